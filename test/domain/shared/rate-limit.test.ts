import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Redis } from "ioredis";
import { memoryRateLimiter, type SharedRateLimiter } from "../../../src/domain/shared/rate-limit.ts";
import { redisRateLimiter } from "../../../src/cluster/redis-rate-limiter.ts";
import { redisServerInstalled, startRedis, type RedisServer } from "../../helpers/redis-server.ts";
import { letTimePass } from "../../helpers/wait.ts";

/**
 * The SharedRateLimiter contract, held alike by the memory store (one node) and the Redis store
 * (cluster mode): both are rate-limiter-flexible underneath, these are the behaviours the login,
 * registration, webhook, report and REST limits rely on. Windows are whole seconds; the tests
 * that wait for one to end use a window of 1 s.
 */
let redis: RedisServer | null = null;
let client: Redis | null = null;
let names = 0;

beforeAll(async () => {
  if (!redisServerInstalled) return;
  redis = await startRedis();
  client = new Redis(redis.url);
});

afterAll(async () => {
  client?.disconnect();
  await redis?.stop();
});

const stores: [string, (limit: number, windowMs: number) => SharedRateLimiter][] = [
  ["memory", (limit, windowMs) => memoryRateLimiter(`test-${++names}`, limit, windowMs)],
  ["redis", (limit, windowMs) => redisRateLimiter(client!, `test-${++names}`, limit, windowMs)],
];

describe.each(stores)("SharedRateLimiter on %s", (store, make) => {
  const skip = store === "redis" && !redisServerInstalled;

  test.skipIf(skip)("allows `limit` hits per window, then refuses with the seconds left; keys are apart", async () => {
    const limiter = make(3, 60_000);
    const first = await limiter.hit("a");
    expect(first).toMatchObject({ allowed: true, retryAfter: 0, limit: 3, remaining: 2 });
    expect(first.resetAt).toBeGreaterThan(Date.now() + 59_000);
    expect((await limiter.hit("a")).remaining).toBe(1);
    expect(await limiter.hit("a")).toMatchObject({ allowed: true, remaining: 0 });
    const refused = await limiter.hit("a");
    expect(refused).toMatchObject({ allowed: false, limit: 3, remaining: 0 });
    expect(refused.retryAfter).toBeGreaterThanOrEqual(59);
    expect(refused.retryAfter).toBeLessThanOrEqual(60);
    expect((await limiter.hit("b")).allowed).toBe(true);
  });

  test.skipIf(skip)("a window ends after its duration and the next attempt opens a new one", async () => {
    const limiter = make(1, 1000);
    expect((await limiter.hit("k")).allowed).toBe(true);
    expect((await limiter.hit("k")).allowed).toBe(false);
    await letTimePass(1100, "the 1 s window ends");
    expect((await limiter.hit("k")).allowed).toBe(true);
  });

  test.skipIf(skip)("check does not count; reset forgets", async () => {
    const limiter = make(2, 60_000);
    expect((await limiter.check("k")).allowed).toBe(true);
    await limiter.hit("k");
    expect((await limiter.check("k")).allowed).toBe(true);
    await limiter.hit("k");
    expect(await limiter.check("k")).toMatchObject({ allowed: false, remaining: 0 });
    await limiter.reset("k");
    expect((await limiter.check("k")).allowed).toBe(true);
    expect((await limiter.hit("k")).remaining).toBe(1);
  });

  test.skipIf(skip)("reserve takes a unit only while one is left; refund gives one back within the window", async () => {
    const limiter = make(2, 1000);
    expect(await limiter.reserve("k")).toMatchObject({ allowed: true, retryAfter: 0 });
    expect((await limiter.reserve("k")).allowed).toBe(true);
    // Refused reservations are not counted: one refund makes room for exactly one more.
    for (let i = 0; i < 5; i++) expect((await limiter.reserve("k")).allowed).toBe(false);
    await limiter.refund("k");
    expect((await limiter.reserve("k")).allowed).toBe(true);
    expect((await limiter.reserve("k")).allowed).toBe(false);
    // A refund of nothing changes nothing, and a refund after the window ended adds nothing to the next.
    await limiter.refund("unknown");
    expect((await limiter.check("unknown")).remaining).toBe(2);
    await letTimePass(1100, "the 1 s window ends");
    await limiter.refund("k");
    expect([await limiter.reserve("k"), await limiter.reserve("k"), await limiter.reserve("k")].map((d) => d.allowed)).toEqual([true, true, false]);
  });

  test.skipIf(skip)("concurrent reservations never take more than the limit", async () => {
    const limiter = make(10, 60_000);
    const decisions = await Promise.all(Array.from({ length: 50 }, () => limiter.reserve("k")));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    expect((await limiter.check("k")).remaining).toBe(0);
  });
});

describe.skipIf(!redisServerInstalled)("a hit-only limiter on redis", () => {
  test("once a key's window is spent, this node refuses it from memory: Redis is not asked again until the window ends", async () => {
    const name = `test-${++names}`;
    const limiter = redisRateLimiter(client!, name, 2, 1000, { hitOnly: true });
    expect((await limiter.hit("k")).allowed).toBe(true);
    expect((await limiter.hit("k")).allowed).toBe(true);
    // The count in Redis is removed behind the limiter's back: a plain limiter would start over.
    await client!.del(`hearth:rate:${name}:k`);
    const refused = await limiter.hit("k");
    expect(refused).toMatchObject({ allowed: false, remaining: 0, limit: 2 });
    expect(refused.retryAfter).toBe(1);
    expect(await client!.exists(`hearth:rate:${name}:k`)).toBe(0);
    // Another key still counts in Redis.
    expect((await limiter.hit("other")).allowed).toBe(true);
    expect(await client!.get(`hearth:rate:${name}:other`)).toBe("1");
    await letTimePass(1100, "the 1 s window ends");
    expect((await limiter.hit("k")).allowed).toBe(true);
  });
});

describe.skipIf(!redisServerInstalled)("SharedRateLimiter on redis without Redis", () => {
  test("counts in this node's memory instead of failing", async () => {
    const gone = new Redis("redis://127.0.0.1:1", { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
    gone.on("error", () => {});
    const limiter = redisRateLimiter(gone, "no-redis", 2, 60_000);
    expect((await limiter.hit("k")).allowed).toBe(true);
    expect((await limiter.hit("k")).allowed).toBe(true);
    expect((await limiter.hit("k")).allowed).toBe(false);
    gone.disconnect();
  });
});
