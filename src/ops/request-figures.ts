import type { Metric, Registry } from "prom-client";

/**
 * The HTTP request figures of /metrics (src/ops/metrics.ts): a counter by method, route and
 * status, and a latency histogram by method and route, kept in plain nested maps so that
 * counting a request allocates nothing (prom-client's own `inc` and `observe` build a label
 * string per call, more than the counting itself; bench/metrics-overhead.ts measures both).
 * prom-client reads them at scrape time through the two metric objects `register` adds, in
 * the shape its registry prints (name, help, type, and `get()` answering the samples).
 */

interface RouteFigures {
  /** Requests by status. */
  statuses: Map<number, number>;
  /** Requests by latency bucket (not cumulative); the last slot is above every bound. */
  buckets: Float64Array;
  sum: number;
  count: number;
}

type Sample = { value: number; labels: Record<string, string | number>; metricName?: string };

export class RequestFigures {
  /** route -> method -> figures. */
  private readonly byRoute = new Map<string, Map<string, RouteFigures>>();

  constructor(private readonly bounds: readonly number[]) {}

  observe(method: string, route: string, status: number, seconds: number): void {
    let methods = this.byRoute.get(route);
    if (!methods) this.byRoute.set(route, (methods = new Map()));
    let figures = methods.get(method);
    if (!figures) methods.set(method, (figures = { statuses: new Map(), buckets: new Float64Array(this.bounds.length + 1), sum: 0, count: 0 }));
    figures.statuses.set(status, (figures.statuses.get(status) ?? 0) + 1);
    let slot = 0;
    while (slot < this.bounds.length && seconds > this.bounds[slot]!) slot++;
    figures.buckets[slot]!++;
    figures.sum += seconds;
    figures.count++;
  }

  /** Adds the counter and the histogram to `registry`, under these names. */
  register(registry: Registry, names: { requests: string; duration: string }, help: { requests: string; duration: string }): void {
    const { requests, duration } = names;
    this.add(registry, requests, help.requests, "counter", () => {
      const samples: Sample[] = [];
      this.each((method, route, figures) => {
        for (const [status, value] of figures.statuses) samples.push({ value, labels: { method, route, status: String(status) } });
      });
      return samples;
    });
    this.add(registry, duration, help.duration, "histogram", () => {
      const samples: Sample[] = [];
      this.each((method, route, figures) => {
        let cumulative = 0;
        this.bounds.forEach((le, i) => {
          cumulative += figures.buckets[i]!;
          samples.push({ metricName: `${duration}_bucket`, value: cumulative, labels: { le, method, route } });
        });
        samples.push({ metricName: `${duration}_bucket`, value: figures.count, labels: { le: "+Inf", method, route } });
        samples.push({ metricName: `${duration}_sum`, value: figures.sum, labels: { method, route } });
        samples.push({ metricName: `${duration}_count`, value: figures.count, labels: { method, route } });
      });
      return samples;
    });
  }

  private each(visit: (method: string, route: string, figures: RouteFigures) => void): void {
    for (const [route, methods] of this.byRoute) for (const [method, figures] of methods) visit(method, route, figures);
  }

  private add(registry: Registry, name: string, help: string, type: "counter" | "histogram", values: () => Sample[]): void {
    const metric = {
      name,
      help,
      type,
      aggregator: "sum",
      get: async () => ({ name, help, type, aggregator: "sum", values: values() }),
      reset: () => this.byRoute.clear(),
    };
    // The registry needs only these members (it prints what get() answers); prom-client's types
    // name its own classes instead of that shape.
    registry.registerMetric(metric as unknown as Metric);
  }
}
