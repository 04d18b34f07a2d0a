import { describe, expect, test } from "bun:test";
import { RateLimiter } from "../../../src/domain/shared/rate-limit.ts";

const clock = () => {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
};

describe("RateLimiter", () => {
  test("allows `limit` hits per window, then refuses with the seconds left", () => {
    const time = clock();
    const limiter = new RateLimiter(3, 60_000, 100, time.now);
    expect([1, 2, 3].map(() => limiter.hit("a").allowed)).toEqual([true, true, true]);
    time.advance(15_000);
    expect(limiter.hit("a")).toEqual({ allowed: false, retryAfter: 45 });
    expect(limiter.hit("b").allowed).toBe(true);
    time.advance(45_000);
    expect(limiter.hit("a").allowed).toBe(true);
  });

  test("check does not count; reset forgets", () => {
    const time = clock();
    const limiter = new RateLimiter(2, 1000, 100, time.now);
    expect(limiter.check("k").allowed).toBe(true);
    limiter.hit("k");
    expect(limiter.check("k").allowed).toBe(true);
    limiter.hit("k");
    expect(limiter.check("k")).toEqual({ allowed: false, retryAfter: 1 });
    limiter.reset("k");
    expect(limiter.check("k").allowed).toBe(true);
  });

  test("reserve takes a unit only while one is left; refund gives one back within the window", () => {
    const time = clock();
    const limiter = new RateLimiter(2, 60_000, 100, time.now);
    expect(limiter.reserve("k")).toEqual({ allowed: true, retryAfter: 0 });
    expect(limiter.reserve("k").allowed).toBe(true);
    // Refused reservations are not counted: one refund makes room for exactly one more.
    for (let i = 0; i < 5; i++) expect(limiter.reserve("k")).toEqual({ allowed: false, retryAfter: 60 });
    limiter.refund("k");
    expect(limiter.reserve("k").allowed).toBe(true);
    expect(limiter.reserve("k").allowed).toBe(false);
    // A refund never goes below zero, and a refund after the window ended changes nothing.
    limiter.refund("unknown");
    time.advance(60_000);
    limiter.refund("k");
    expect([1, 2, 3].map(() => limiter.reserve("k").allowed)).toEqual([true, true, false]);
  });

  test("memory stays bounded whatever the number of keys", () => {
    const time = clock();
    const limiter = new RateLimiter(1, 60_000, 1000, time.now);
    for (let i = 0; i < 50_000; i++) limiter.hit(`key-${i}`);
    expect(limiter.size).toBeLessThanOrEqual(1000);
    expect(limiter.size).toBeGreaterThanOrEqual(900);
    // The newest keys are still limited.
    expect(limiter.hit("key-49999").allowed).toBe(false);
  });

  test("a full table drops its oldest tenth at once, so a flood of new keys does not scan it per hit", () => {
    const time = clock();
    const limiter = new RateLimiter(1, 60_000, 1000, time.now);
    for (let i = 0; i < 1000; i++) limiter.hit(`key-${i}`);
    expect(limiter.size).toBe(1000);
    limiter.hit("one-more");
    expect(limiter.size).toBe(901);
    // The oldest went, the newest stay limited.
    expect(limiter.check("key-0").allowed).toBe(true);
    expect(limiter.check("key-99").allowed).toBe(true);
    expect(limiter.check("key-100").allowed).toBe(false);
    expect(limiter.check("one-more").allowed).toBe(false);
    // The next 99 new keys fit without another eviction.
    for (let i = 0; i < 99; i++) limiter.hit(`next-${i}`);
    expect(limiter.size).toBe(1000);
  });

  test("expired windows are swept before anything live is dropped", () => {
    const time = clock();
    const limiter = new RateLimiter(1, 1000, 3, time.now);
    limiter.hit("old-1");
    limiter.hit("old-2");
    time.advance(2000);
    limiter.hit("live");
    limiter.hit("new");
    expect(limiter.size).toBe(2);
    expect(limiter.hit("live").allowed).toBe(false);
  });
});
