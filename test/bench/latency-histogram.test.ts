import { describe, expect, test } from "bun:test";
import { LatencyHistogram } from "../../bench/latency-histogram.ts";

describe("LatencyHistogram", () => {
  test("quantiles over merged processes' buckets are within the 1% bucket width", () => {
    const a = new LatencyHistogram();
    const b = new LatencyHistogram();
    for (let i = 1; i <= 500; i++) a.add(i / 10); // 0.1 .. 50 ms
    for (let i = 501; i <= 1000; i++) b.add(i / 10); // 50.1 .. 100 ms
    expect(a.count).toBe(500);
    const { total, at } = LatencyHistogram.quantiles([a.buckets(), b.buckets()], [0.5, 0.99, 1]);
    expect(total).toBe(1000);
    const [p50, p99, max] = at;
    expect(p50).toBeWithin(50, 50.6);
    expect(p99).toBeWithin(99, 100.1);
    expect(max).toBeWithin(100, 101.1);
  });

  test.each([
    [0, 0],
    [0.0005, 0],
    [0.002, 0],
    [1, 1],
    [250, 250],
  ])("one latency of %f ms reads back as at most 1%% above it (%f)", (ms, floor) => {
    const h = new LatencyHistogram();
    h.add(ms);
    const [p] = LatencyHistogram.quantiles([h.buckets()], [0.99]).at;
    expect(p).toBeGreaterThanOrEqual(floor);
    expect(p).toBeLessThanOrEqual(Math.max(ms * 1.01, 0.01) + 0.005);
  });

  test("nothing recorded: NaN; clear() empties it", () => {
    const h = new LatencyHistogram();
    expect(LatencyHistogram.quantiles([h.buckets()], [0.5]).at[0]).toBeNaN();
    h.add(5);
    h.clear();
    expect(h.count).toBe(0);
    expect(h.buckets()).toEqual([]);
  });
});
