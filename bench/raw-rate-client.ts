/**
 * An open-loop HTTP/1.1 load client that costs the machine little per request, run as its own
 * process (the capacity mode of bench/rest-auth-read.ts, `--client raw`): GET `url` at `rate`
 * requests/s for `seconds`, whatever the answers' pace, with at most `maxInFlight` requests open
 * (a request that would pass it is counted as dropped, not sent). The requests are prepared
 * bytes spread over CONNECTIONS keep-alive sockets, pipelined: those due in one tick (~1 ms)
 * go out in one write per socket, so the client spends a few syscalls per tick, not one per
 * request (a connection's answers come back in order, so each one's send time is the oldest
 * still open on it). Then one JSON line, as
 * bench/rate-client.ts prints it: offered, completed (200s), errors, dropped, warm_up, p99.
 *
 * Why: bench/rate-client.ts's `fetch` tops out at 45-55k requests/s here, below every server
 * under test, so a capacity read through it is the client's.
 *
 *   bun bench/raw-rate-client.ts <url> <seconds> <rate> <maxInFlight> [token]
 */
import { openLoop } from "./open-loop.ts";
import { pct } from "./quantile.ts";
import { answerReader, preparedGet } from "./raw-http.ts";

const [url, secondsArg, rateArg, maxArg, token] = process.argv.slice(2);
if (!url) throw new Error("usage: raw-rate-client.ts <url> <seconds> <rate> <maxInFlight> [token]");
const target = new URL(url);
const seconds = Number(secondsArg);
const rate = Number(rateArg);
const maxInFlight = Number(maxArg);
const request = preparedGet(target, token);
/** Sockets the load is spread over (as many as the closed-loop runs use). */
const CONNECTIONS = 32;
/** `request` repeated: the bytes of up to `maxInFlight` requests, for one write. */
const repeated = Buffer.alloc(request.length * Math.max(1, maxInFlight));
for (let i = 0; i < Math.max(1, maxInFlight); i++) repeated.set(request, i * request.length);
/** Requests before the measured window: connections and JIT. */
const WARM_UP = 64;

let measuring = false;
let running = true;
let inFlight = 0;
let completed = 0;
let errors = 0;
const latencies: number[] = [];

interface Connection {
  /** Send times of the requests still open on it, oldest first. */
  sent: number[];
  /** Requests of this tick not written yet (`writeQueued`). */
  queued: number;
  /** Bytes the socket did not take yet (written on `drain`). */
  unsent: Uint8Array | null;
  socket: { write(data: Uint8Array): number; end(): void } | null;
  closed: boolean;
}

const flush = (c: Connection) => {
  if (!c.unsent || !c.socket) return;
  const written = c.socket.write(c.unsent);
  c.unsent = written >= c.unsent.length ? null : c.unsent.subarray(Math.max(0, written));
};

const open = () =>
  new Promise<Connection>((resolve, reject) => {
    const c: Connection = { sent: [], queued: 0, unsent: null, socket: null, closed: false };
    const read = answerReader((ok) => {
      const sentAt = c.sent.shift()!;
      inFlight--;
      if (!measuring) return;
      if (ok) {
        completed++;
        latencies.push(performance.now() - sentAt);
      } else errors++;
    });
    void Bun.connect({
      hostname: target.hostname,
      port: Number(target.port),
      socket: {
        open(socket) {
          c.socket = socket;
          resolve(c);
        },
        data: (_socket, data) => read(data),
        drain: () => flush(c),
        // A connection the server ends: what was open on it is lost, counted as errors.
        close: () => {
          c.closed = true;
          inFlight -= c.sent.length;
          if (running && measuring) errors += c.sent.length + 1;
          c.sent.length = 0;
        },
        error: (_socket, error) => reject(error),
      },
    }).catch(reject);
  });

const connections = await Promise.all(Array.from({ length: CONNECTIONS }, open));
let next = 0;
/** Queues one request on the next open connection, round robin; false when none is open. */
const fire = (now: number): boolean => {
  for (let tries = 0; tries < CONNECTIONS; tries++) {
    const c = connections[next]!;
    next = (next + 1) % CONNECTIONS;
    if (c.closed) continue;
    inFlight++;
    c.sent.push(now);
    c.queued++;
    return true;
  }
  return false;
};
/** Writes each connection's queued requests, one write per connection. */
const writeQueued = () => {
  for (const c of connections) {
    if (c.queued === 0) continue;
    const bytes = repeated.subarray(0, c.queued * request.length);
    c.queued = 0;
    if (c.closed) continue;
    if (c.unsent) c.unsent = Buffer.concat([c.unsent, bytes]);
    else {
      c.unsent = bytes;
      flush(c);
    }
  }
};

for (let i = 0; i < WARM_UP; i++) fire(performance.now());
writeQueued();
const warmUntil = performance.now() + 5000;
while (inFlight > 0 && performance.now() < warmUntil) await Bun.sleep(1);

measuring = true;
const { offered, dropped } = await openLoop(rate, seconds, (now) => inFlight < maxInFlight && fire(now), () => inFlight, writeQueued);
running = false;
latencies.sort((a, b) => a - b);
console.log(JSON.stringify({ offered, completed, errors, dropped, warm_up: WARM_UP, p99_ms: pct(latencies, 0.99, 0) }));
for (const c of connections) c.socket?.end();
process.exit(0);
