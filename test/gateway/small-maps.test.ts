import { expect, test } from "bun:test";
import { ListenerTable, OneEntryMap, SmallSet } from "../../src/gateway/small-maps.ts";

/** src/gateway/small-maps.ts: each stand-in answers as the real Map / Set would, over random operations. */

/** A small deterministic generator (mulberry32), so a failure repeats. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test("SmallSet behaves as a Set (add, delete, has, size, order, forEach, clear) across 0 to 5 values", () => {
  const next = random(7);
  for (let round = 0; round < 200; round++) {
    const real = new Set<string>();
    const small = new SmallSet<string>();
    for (let op = 0; op < 30; op++) {
      const value = `v${Math.floor(next() * 5)}`;
      const r = next();
      if (r < 0.5) expect(small.add(value)).toBe(small), real.add(value);
      else if (r < 0.9) expect(small.delete(value)).toBe(real.delete(value));
      else small.clear(), real.clear();
      expect(small.size).toBe(real.size);
      expect(small.has(value)).toBe(real.has(value));
      expect([...small]).toEqual([...real]);
      const seen: string[] = [];
      small.forEach((v, k, set) => {
        expect(k).toBe(v);
        expect(set).toBe(small);
        seen.push(v);
      });
      expect(seen).toEqual([...real.values()]);
    }
  }
});

test("SmallSet: deleting values during iteration skips those not reached yet, as a Set does", () => {
  for (const values of [["a", "b"], ["a", "b", "c"]]) {
    const real = new Set(values);
    const small = new SmallSet<string>();
    for (const v of values) small.add(v);
    const visit = (set: Iterable<string> & { delete(v: string): boolean }) => {
      const seen: string[] = [];
      for (const v of set) {
        seen.push(v);
        set.delete(v);
        set.delete("b");
      }
      return seen;
    };
    expect(visit(small)).toEqual(visit(real));
    expect(small.size).toBe(real.size);
  }
});

test("OneEntryMap behaves as a Map (set, get, has, delete, size, order, iteration, clear)", () => {
  const next = random(11);
  for (let round = 0; round < 200; round++) {
    const real = new Map<string, number>();
    const small = new OneEntryMap<string, number>();
    for (let op = 0; op < 30; op++) {
      const key = `k${Math.floor(next() * 4)}`;
      const r = next();
      if (r < 0.5) expect(small.set(key, op)).toBe(small), real.set(key, op);
      else if (r < 0.9) expect(small.delete(key)).toBe(real.delete(key));
      else small.clear(), real.clear();
      expect(small.size).toBe(real.size);
      expect(small.get(key)).toBe(real.get(key));
      expect(small.has(key)).toBe(real.has(key));
      expect([...small]).toEqual([...real]);
      expect([...small.keys()]).toEqual([...real.keys()]);
      expect([...small.values()]).toEqual([...real.values()]);
    }
  }
});

test("ListenerTable answers get/set/delete/clear as the engine's Map did (a removed event reads as absent)", () => {
  const a = () => {};
  const table = new ListenerTable<() => void>([["close", [a]]]);
  expect(table.get("close")).toEqual([a]);
  expect(table.get("packet")).toBeUndefined();
  table.set("packet", [a, a]);
  expect(table.get("packet")).toHaveLength(2);
  expect(table.delete("packet")).toBe(true);
  expect(table.delete("packet")).toBe(false);
  expect(table.get("packet")).toBeUndefined();
  table.clear();
  expect(table.get("close")).toBeUndefined();
  // Event names that are Object.prototype's own are plain keys here (no prototype).
  expect(table.get("constructor")).toBeUndefined();
  expect(table.get("toString")).toBeUndefined();
});
