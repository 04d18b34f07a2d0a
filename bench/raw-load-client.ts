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
 * This one answers in a few µs, so the server is what saturates (bench/README.md, "Ninth pass").
 *
 *   bun bench/raw-load-client.ts <url> <seconds> <concurrency> [token]
 */
import { pct } from "./quantile.ts";
const [url, secondsArg, concurrencyArg, token] = process.argv.slice(2);
if (!url) throw new Error("usage: raw-load-client.ts <url> <seconds> <concurrency> [token]");
const target = new URL(url);
const seconds = Number(secondsArg ?? 5);
const concurrency = Number(concurrencyArg ?? 32);
const request = new TextEncoder().encode(
  `GET ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\n${token ? `Authorization: Bearer ${token}\r\n` : ""}\r\n`,
);
const HEAD_END = Buffer.from("\r\n\r\n");
const CONTENT_LENGTH = /\r\ncontent-length:\s*(\d+)/i;

let measuring = false;
let running = true;
let errors = 0;
let answered = 0;
const latencies: number[] = [];

/** One connection: resolves once open; answers are counted while `measuring`. */
const connection = () =>
  new Promise<void>((resolve, reject) => {
    let pending: Buffer = Buffer.alloc(0);
    let sentAt = 0;
    const send = (socket: { write(data: Uint8Array): number }) => {
      sentAt = performance.now();
      socket.write(request);
    };
    void Bun.connect({
      hostname: target.hostname,
      port: Number(target.port),
      socket: {
        open(socket) {
          send(socket);
          resolve();
        },
        data(socket, data) {
          pending = pending.length ? Buffer.concat([pending, data]) : data;
          for (;;) {
            const headEnd = pending.indexOf(HEAD_END);
            if (headEnd < 0) return;
            const head = pending.subarray(0, headEnd).toString("latin1");
            const length = Number(CONTENT_LENGTH.exec(head)?.[1] ?? 0);
            if (pending.length < headEnd + 4 + length) return;
            pending = pending.subarray(headEnd + 4 + length);
            answered++;
            if (measuring) {
              latencies.push(performance.now() - sentAt);
              if (!head.startsWith("HTTP/1.1 200")) errors++;
            }
            if (running) send(socket);
          }
        },
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
