/**
 * An open-loop HTTP load client, run as its own process (the capacity mode of
 * bench/rest-auth-read.ts): GET `url` at `rate` requests/s for `seconds`, whatever the answers'
 * pace, with at most `maxInFlight` requests open (a request that would pass it is counted as
 * dropped, not sent). Then one JSON line: offered, completed (200s), errors, dropped, p99.
 *
 *   bun bench/rate-client.ts <url> <seconds> <rate> <maxInFlight> [token]
 */
import { openLoop } from "./open-loop.ts";
import { pct } from "./quantile.ts";

const [url, secondsArg, rateArg, maxArg, token] = process.argv.slice(2);
if (!url) throw new Error("usage: rate-client.ts <url> <seconds> <rate> <maxInFlight> [token]");
const seconds = Number(secondsArg);
const rate = Number(rateArg);
const maxInFlight = Number(maxArg);
const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};

// Warm-up outside the measured window: connections and JIT.
const WARM_UP = 64;
await Promise.all(Array.from({ length: WARM_UP }, () => fetch(url, { headers }).then((r) => r.arrayBuffer())));

let inFlight = 0;
let completed = 0;
let errors = 0;
const latencies: number[] = [];
const fire = () => {
  inFlight++;
  const t = performance.now();
  fetch(url, { headers })
    .then(async (res) => {
      await res.arrayBuffer();
      if (res.status === 200) {
        completed++;
        latencies.push(performance.now() - t);
      } else errors++;
    })
    .catch(() => errors++)
    .finally(() => inFlight--);
};

const { offered, dropped } = await openLoop(rate, seconds, () => inFlight < maxInFlight && (fire(), true), () => inFlight);
latencies.sort((a, b) => a - b);
console.log(JSON.stringify({ offered, completed, errors, dropped, warm_up: WARM_UP, p99_ms: pct(latencies, 0.99, 0) }));
