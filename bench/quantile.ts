/**
 * A sorted array's `p` quantile, rounded to 0.01 (`empty` when there are no values). Its own
 * module, with no imports, so the load clients can use it without loading the app
 * (bench/fixture.ts re-exports it).
 */
export const pct = (sorted: readonly number[], p: number, empty = NaN): number =>
  Math.round((sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? empty) * 100) / 100;
