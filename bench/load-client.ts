/**
 * A light HTTP load client, run as its own process: `concurrency` loops issuing GET `url`
 * for `seconds`, then one JSON line with the request count, errors, rate and latency percentiles.
 *
 *   bun bench/load-client.ts <url> <seconds> <concurrency> [token]
 */
import { pct } from "./quantile.ts";
const [url, secondsArg, concurrencyArg, token] = process.argv.slice(2);
if (!url) throw new Error("usage: load-client.ts <url> <seconds> <concurrency> [token]");
const seconds = Number(secondsArg ?? 5);
const concurrency = Number(concurrencyArg ?? 32);
const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};

// Warm up connections and JIT outside the measured window.
await Promise.all(Array.from({ length: concurrency }, () => fetch(url, { headers }).then((r) => r.arrayBuffer())));

const latencies: number[] = [];
let errors = 0;
const end = performance.now() + seconds * 1000;
const started = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (performance.now() < end) {
      const t = performance.now();
      const res = await fetch(url, { headers });
      await res.arrayBuffer();
      if (res.status !== 200) errors++;
      latencies.push(performance.now() - t);
    }
  }),
);
const elapsed = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
console.log(JSON.stringify({ requests: latencies.length, errors, rps: Math.round(latencies.length / elapsed), p50_ms: pct(latencies, 0.5, 0), p99_ms: pct(latencies, 0.99, 0) }));
