/**
 * A gateway client of bench/gateway-abuse.ts, run as its own process so its CPU is not the
 * observer's: `sockets` socket.io-client connections (websocket) with one `token`, each joined
 * to the channel `join` when given.
 *
 *   bun bench/abuse-client.ts '<json {url, token, sockets, join?, event?, payload?, count?, ack?, transport?}>'
 *
 * Prints `ready {connected, refused, connect_errors}` once every socket has connected or been
 * refused, then answers lines on stdin:
 *   go     - emits `event` with `payload` `count` times, round-robin over the sockets (with an
 *            ack callback when `ack`), waits until a second passes with no ack and no
 *            disconnect (or every socket is gone), and prints
 *            {sent, ms, acks: {ok, rate_limited, other}, first_error, disconnected}
 *   report - {received (events of any kind), disconnected}
 *   quit   - exits
 */
import { io, type Socket } from "socket.io-client";

const cfg = JSON.parse(process.argv[2]!) as {
  url: string;
  token: string;
  sockets: number;
  join?: string;
  event?: string;
  payload?: unknown;
  count?: number;
  ack?: boolean;
  transport?: "websocket" | "polling";
};
const out = (line: string) => process.stdout.write(line + "\n");

const sockets: Socket[] = [];
const connectErrors: string[] = [];
let disconnected = 0;
let received = 0;
/** Acks and disconnects seen so far (to tell when they stop coming). */
let changes = 0;

await Promise.all(
  Array.from({ length: cfg.sockets }, () => {
    const socket = io(cfg.url, { auth: { token: cfg.token }, transports: [cfg.transport ?? "websocket"], reconnection: false, forceNew: true });
    return new Promise<void>((resolve) => {
      socket.once("connect", async () => {
        sockets.push(socket);
        socket.once("disconnect", () => {
          disconnected++;
          changes++;
        });
        socket.onAny(() => received++);
        if (cfg.join) await socket.emitWithAck("channel:join", cfg.join);
        resolve();
      });
      socket.once("connect_error", (error) => {
        connectErrors.push(error.message);
        resolve();
      });
    });
  }),
);
out(`ready ${JSON.stringify({ connected: sockets.length, refused: connectErrors.length, connect_errors: [...new Set(connectErrors)] })}`);

for await (const line of console) {
  const cmd = line.trim();
  if (cmd === "go") {
    const acks = { ok: 0, rate_limited: 0, other: 0 };
    let firstError: string | null = null;
    const onAck = (answer: { ok: boolean; error?: string }) => {
      changes++;
      if (answer?.ok) acks.ok++;
      else {
        if (/rate limit/i.test(answer?.error ?? "")) acks.rate_limited++;
        else acks.other++;
        firstError ??= answer?.error ?? null;
      }
    };
    const t0 = performance.now();
    const count = cfg.count ?? 0;
    for (let i = 0; i < count; i++) {
      const socket = sockets[i % sockets.length]!;
      if (cfg.ack) socket.emit(cfg.event!, cfg.payload, onAck);
      else socket.emit(cfg.event!, cfg.payload);
    }
    const ms = Math.round(performance.now() - t0);
    // The writes leave this process after the loop (which may keep it busy for a while): wait
    // until ten ticks of 100 ms in a row bring no ack and no disconnect, or every socket is
    // gone, for at most 30 s.
    const end = performance.now();
    for (let quiet = 0, seen = changes; quiet < 10 && disconnected < sockets.length && performance.now() - end < 30_000; ) {
      await Bun.sleep(100);
      quiet = changes === seen ? quiet + 1 : 0;
      seen = changes;
    }
    out(JSON.stringify({ sent: count, ms, acks, first_error: firstError, disconnected }));
  } else if (cmd === "report") {
    out(JSON.stringify({ received, disconnected }));
  } else if (cmd === "quit") {
    for (const socket of sockets) socket.close();
    process.exit(0);
  }
}
