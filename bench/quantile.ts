/**
 * A sorted array's `p` quantile, rounded to 0.01 (`empty` when there are no values). Its own
 * module, with no imports, so the load clients can use it without loading the app
 * (bench/fixture.ts re-exports it).
 */
export const pct = (sorted: readonly number[], p: number, empty = NaN): number =>
  Math.round((sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? empty) * 100) / 100;

const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** The median (the upper middle of an even count, as the benches have always read it) and range of per-round ratios, to 0.001. */
export const medianRange = (values: readonly number[]): { median: number; range: [number, number] } => {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: r3(sorted[Math.floor(sorted.length / 2)]!), range: [r3(sorted[0]!), r3(sorted.at(-1)!)] };
};
