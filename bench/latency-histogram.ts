/**
 * Latencies in buckets about 1% wide (bucket b holds (1.01^(b-1), 1.01^b] µs; 0 holds up to
 * 1 µs), cheap to add to and to ship as [bucket, count] pairs between processes: the load
 * clients' (bench/fanout-client.ts, bench/realistic-client.ts), merged by the benches that read
 * them (bench/fanout-phases.ts, bench/realistic.ts). No imports, so a load client loads none of
 * the app.
 */
export class LatencyHistogram {
  private static readonly LOG_STEP = Math.log(1.01);
  private static readonly BUCKETS = 2200; // 1.01^2200 µs is about 3 hours
  private counts = new Uint32Array(LatencyHistogram.BUCKETS);
  count = 0;

  add(ms: number): void {
    this.addUs(ms * 1000);
  }

  addUs(us: number): void {
    this.counts[us <= 1 ? 0 : Math.min(LatencyHistogram.BUCKETS - 1, Math.ceil(Math.log(us) / LatencyHistogram.LOG_STEP))]!++;
    this.count++;
  }

  clear(): void {
    this.counts = new Uint32Array(LatencyHistogram.BUCKETS);
    this.count = 0;
  }

  /** The non-empty buckets, as [bucket, count] pairs. */
  buckets(): [number, number][] {
    const out: [number, number][] = [];
    for (let b = 0; b < this.counts.length; b++) if (this.counts[b]) out.push([b, this.counts[b]!]);
    return out;
  }

  /** A bucket's upper bound in ms, to 0.01. */
  static bucketMs(b: number): number {
    return Math.round((Math.pow(1.01, b) / 1000) * 100) / 100;
  }

  /** The `ps` quantiles (0-1) over several processes' buckets, in ms (NaN when there is nothing); the total count. */
  static quantiles(lists: readonly (readonly [number, number])[][], ps: readonly number[]): { total: number; at: number[] } {
    const merged = new Map<number, number>();
    for (const list of lists) for (const [b, c] of list) merged.set(b, (merged.get(b) ?? 0) + c);
    const sorted = [...merged].sort((a, b) => a[0] - b[0]);
    const total = sorted.reduce((s, [, c]) => s + c, 0);
    const at = ps.map((p) => {
      let seen = 0;
      for (const [b, c] of sorted) if ((seen += c) >= total * p && seen > 0) return LatencyHistogram.bucketMs(b);
      return NaN;
    });
    return { total, at };
  }
}

