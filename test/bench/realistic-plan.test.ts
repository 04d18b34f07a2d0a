import { describe, expect, test } from "bun:test";
import { distinct, planBatch, seededRandom, stepVerdict, type StepFigures } from "../../bench/realistic-plan.ts";

describe("seededRandom", () => {
  test("the same seed gives the same numbers, in [0, 1); another seed others", () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    const xs = Array.from({ length: 1000 }, () => a());
    expect(Array.from({ length: 1000 }, () => b())).toEqual(xs);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(seededRandom(8)()).not.toBe(xs[0]);
    // Roughly uniform: each tenth holds about a tenth.
    for (let d = 0; d < 10; d++) expect(xs.filter((x) => Math.floor(x * 10) === d).length).toBeWithin(60, 140);
  });
});

describe("distinct", () => {
  test.each([
    [10, 3, 3],
    [4, 5, 4],
    [1, 3, 1],
    [0, 3, 0],
  ])("%i numbers, %i wanted: %i distinct ones in range", (n, count, size) => {
    const picked = distinct(seededRandom(1), n, count);
    expect(picked.length).toBe(size);
    expect(new Set(picked).size).toBe(size);
    expect(picked.every((x) => Number.isInteger(x) && x >= 0 && x < n)).toBe(true);
  });
});

describe("planBatch", () => {
  test.each([
    // users, servers, members a server about
    [250, 5, 200],
    [1000, 20, 200],
    [100, 2, 100],
    [10, 1, 10],
  ])("%i users: %i servers of about %i members, each user in 3-5 distinct ones", (users, servers, members) => {
    const plan = planBatch(seededRandom(3), users);
    expect(plan.servers).toBe(servers);
    expect(plan.memberships.length).toBe(users);
    for (const mine of plan.memberships) {
      expect(new Set(mine).size).toBe(mine.length);
      expect(mine.length).toBe(Math.min(servers, mine.length));
      expect(mine.length).toBeGreaterThanOrEqual(Math.min(3, servers));
      expect(mine.length).toBeLessThanOrEqual(5);
      expect(mine.every((s) => s >= 0 && s < servers)).toBe(true);
    }
    const total = plan.memberships.reduce((n, m) => n + m.length, 0);
    expect(total / servers).toBeWithin(members * 0.85, members * 1.15 + 1);
  });
});

describe("stepVerdict", () => {
  const good: StepFigures = { deliveries: 1000, delivery_p99_ms: 40, failures: { message: 0 }, disconnects: 0 };
  test.each<[string, Partial<StepFigures>, string | null]>([
    ["a step within the bound holds", {}, null],
    ["at the bound holds", { delivery_p99_ms: 100 }, null],
    ["over the bound", { delivery_p99_ms: 100.5 }, "p99 delivery 100.5 ms > 100 ms"],
    ["no p99 (nothing timed)", { deliveries: 0, delivery_p99_ms: NaN }, "no message delivered"],
    ["a failed send", { failures: { message: 1, read: 0 } }, "failed: 1 message"],
    ["failures of several kinds", { failures: { reaction: 2, typing: 1 } }, "failed: 2 reaction, 1 typing"],
    ["a socket closed", { disconnects: 3 }, "3 sockets closed by the server"],
  ])("%s", (_, change, verdict) => {
    expect(stepVerdict({ ...good, ...change }, 100)).toBe(verdict);
  });
});
