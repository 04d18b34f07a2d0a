/**
 * A light HTTP load client for JSON POSTs, run as its own process (bench/load-client.ts is
 * its GET twin): `concurrency` loops POSTing `body` to `url` for `seconds`, then one JSON
 * line with the request count, errors (any status other than 2xx, or a failed fetch), the
 * statuses seen, the rate and latency percentiles. `{seq}` in the body is replaced by a
 * per-request counter, so every message differs.
 *
 *   bun bench/post-client.ts <url> <seconds> <concurrency> <token|""> <json body>
 */
import { pct } from "./quantile.ts";
const [url, secondsArg, concurrencyArg, token, bodyTemplate] = process.argv.slice(2);
if (!url || bodyTemplate === undefined) throw new Error("usage: post-client.ts <url> <seconds> <concurrency> <token|\"\"> <json body>");
const seconds = Number(secondsArg ?? 5);
const concurrency = Number(concurrencyArg ?? 32);
const headers: Record<string, string> = { "content-type": "application/json" };
if (token) headers.authorization = `Bearer ${token}`;

let seq = 0;
const post = () => fetch(url, { method: "POST", headers, body: bodyTemplate.replace("{seq}", String(++seq)) });

// Warm up connections and JIT outside the measured window.
await Promise.all(Array.from({ length: concurrency }, () => post().then((r) => r.arrayBuffer())));

const latencies: number[] = [];
const statuses: Record<string, number> = {};
let errors = 0;
const end = performance.now() + seconds * 1000;
const started = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (performance.now() < end) {
      const t = performance.now();
      let status = "fetch-failed";
      try {
        const res = await post();
        await res.arrayBuffer();
        status = String(res.status);
      } catch {
        // Counted below as an error; the loop goes on.
      }
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (!/^2\d\d$/.test(status)) errors++;
      latencies.push(performance.now() - t);
    }
  }),
);
const elapsed = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
console.log(
  JSON.stringify({ requests: latencies.length, errors, statuses, rps: Math.round(latencies.length / elapsed), p50_ms: pct(latencies, 0.5, 0), p99_ms: pct(latencies, 0.99, 0) }),
);
