/**
 * A closed-loop HTTP/1.1 load client that costs the machine little per request, run as its own
 * process: `concurrency` keep-alive connections (Bun.connect), each sending the same prepared GET
 * as soon as the previous answer has fully arrived (no pipelining; answers are framed by their
 * Content-Length, as every JSON answer here is), for `seconds`. Then one JSON line in
 * bench/load-client.ts's shape: requests, errors (answers other than 200, and connections the
 * server closed), rate and latency percentiles; and `served`, every request the server answered
 * or had open at the end, the warm-up included (what its CPU was spent on).
 *
 * Why: `fetch` spends ~20 µs of client CPU per request here, more than the servers under test
 * spend answering it (8-12 µs), so a fetch client on this 2-core machine runs out of CPU before
 * a fast server does, and a ratio of two servers' rates read through it is partly the client's.
 * This one answers in a few µs, so the server is what saturates.
 *
 *   bun bench/raw-load-client.ts <url> <seconds> <concurrency> [token]
 */
import { pct } from "./quantile.ts";
import { answerReader, preparedGet } from "./raw-http.ts";
const [url, secondsArg, concurrencyArg, token] = process.argv.slice(2);
if (!url) throw new Error("usage: raw-load-client.ts <url> <seconds> <concurrency> [token]");
const target = new URL(url);
const seconds = Number(secondsArg ?? 5);
const concurrency = Number(concurrencyArg ?? 32);
const request = preparedGet(target, token);

let measuring = false;
let running = true;
let errors = 0;
let answered = 0;
const latencies: number[] = [];

/** One connection: resolves once open; answers are counted while `measuring`. */
const connection = () =>
  new Promise<void>((resolve, reject) => {
    let sentAt = 0;
    let socket: { write(data: Uint8Array): number } | null = null;
    const send = () => {
      sentAt = performance.now();
      socket!.write(request);
    };
    const read = answerReader((ok) => {
      answered++;
      if (measuring) {
        latencies.push(performance.now() - sentAt);
        if (!ok) errors++;
      }
      if (running) send();
    });
    void Bun.connect({
      hostname: target.hostname,
      port: Number(target.port),
      socket: {
        open(opened) {
          socket = opened;
          send();
          resolve();
        },
        data: (_socket, data) => read(data),
        // A connection the server ends during the run is an error: it sends nothing more.
        close: () => {
          if (running) errors++;
        },
        error: (_socket, error) => reject(error),
      },
    }).catch(reject);
  });

await Promise.all(Array.from({ length: concurrency }, connection));
// Warm-up outside the measured window: the connections are open and every path has run.
await Bun.sleep(200);
measuring = true;
const started = performance.now();
await Bun.sleep(seconds * 1000);
measuring = false;
const elapsed = (performance.now() - started) / 1000;
running = false;
latencies.sort((a, b) => a - b);
console.log(JSON.stringify({ requests: latencies.length, errors, rps: Math.round(latencies.length / elapsed), p50_ms: pct(latencies, 0.5, 0), p99_ms: pct(latencies, 0.99, 0), served: answered + concurrency }));
process.exit(0);
