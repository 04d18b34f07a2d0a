/**
 * A light `message:new` receiver for bench/gateway-fanout.ts, run as its own process with
 * hundreds of connections. Each connection is a plain TCP socket (Bun.connect) speaking
 * WebSocket by hand: the upgrade request, unmasked server frames parsed straight from the
 * received bytes, masked client frames for the few it sends. So a delivery costs the receiver
 * a few byte comparisons, not a MessageEvent and a decoded string: the receivers, which share
 * the machine's two cores with the server under test, take as little of them as they can.
 *   "sio": Engine.IO v4 / Socket.IO framing for Hearth (handshake with the token, then
 *          `channel:join`; Engine.IO pings answered)
 *   "raw": a bare connection for the raw Bun baseline (subscribed by the server on open)
 * Both receive the same text frames, `42["message:new",{...,"content":"fo <seq> <send time
 * ms>",...}]`; per frame a receiver checks the prefix, reads the sequence number and the send
 * time, and counts.
 *
 *   bun bench/fanout-client.ts   (first stdin line: json {proto, url, tokens | count, channelId};
 *                                 on stdin because 1000 tokens would pass the argv size limit)
 *
 * Lines out: `ready` once every connection can receive; `c <seq>` whenever every connection
 * of this process has received message `seq` (coalesced: the highest such seq, at most once
 * per event-loop turn), which the sender uses as its window; answers to commands.
 * Commands: `reset` (zero the counters, answers `ok`), `report` (one JSON line: deliveries,
 * other frames, the latency histogram as [bucket, count] pairs, reconnects since the reset),
 * `quit`.
 *
 * A connection the server closes (Hearth closes a websocket whose send buffer passes
 * GATEWAY_MAX_BUFFERED_BYTES, src/gateway/slow-consumers.ts, which an overloaded step can
 * cause) is opened again at once, as a real client reconnects, so one overloaded step does not
 * leave the later steps short of receivers.
 */
import type { Socket } from "bun";
import { ServerFrames } from "./server-frames.ts";
import { reopen } from "./reopen.ts";
import { LatencyHistogram } from "./latency-histogram.ts";

const lines = console[Symbol.asyncIterator]();
const cfg = JSON.parse(((await lines.next()).value as string | undefined) ?? "{}") as {
  proto: "sio" | "raw";
  url: string; // http://host:port
  tokens?: string[];
  count?: number;
  channelId?: string;
};
const now = () => performance.timeOrigin + performance.now();
const out = (line: string) => process.stdout.write(line + "\n");
const enc = new TextEncoder();
const dec = new TextDecoder();

const PREFIX = enc.encode('42["message:new"');
const MARK = Buffer.from('"content":"fo ');
const hist = new LatencyHistogram();
let deliveries = 0;
let other = 0;
let reconnects = 0;
let quitting = false;

/** How many of this process's connections have received each sequence number not yet complete. */
const pending = new Map<number, number>();
let sockets = 0;
let completed = -1;
let reported = -1;
let flushQueued = false;
const flush = () => {
  flushQueued = false;
  if (completed > reported) {
    reported = completed;
    out(`c ${completed}`);
  }
};

const SPACE = 0x20;
const DOT = 0x2e;
const ZERO = 0x30;

/** One `message:new` text frame in buf[start, end): count it, time it, track completion. */
function onMessage(buf: Buffer, start: number, end: number): void {
  if (end - start < PREFIX.length) return void other++;
  for (let i = 0; i < PREFIX.length; i++) if (buf[start + i] !== PREFIX[i]) return void other++;
  const at = buf.indexOf(MARK, start + PREFIX.length);
  if (at < 0 || at >= end) return void other++;
  let p = at + MARK.length;
  let seq = 0;
  for (let c = buf[p]!; c !== SPACE; c = buf[++p]!) seq = seq * 10 + (c - ZERO);
  let whole = 0;
  for (let c = buf[++p]!; c !== DOT; c = buf[++p]!) whole = whole * 10 + (c - ZERO);
  let frac = 0;
  let scale = 1;
  for (let c = buf[++p]!; c >= ZERO && c <= ZERO + 9; c = buf[++p]!) {
    frac = frac * 10 + (c - ZERO);
    scale *= 10;
  }
  const us = (now() - (whole + frac / scale)) * 1000;
  hist.addUs(us);
  deliveries++;
  // Each connection receives in order, so when every connection has seq, each has all before it.
  const got = (pending.get(seq) ?? 0) + 1;
  if (got < sockets) {
    pending.set(seq, got);
    return;
  }
  pending.delete(seq);
  if (seq > completed) {
    completed = seq;
    // Earlier ones some connection missed (dropped) would never complete: forget them.
    for (const k of pending.keys()) if (k < seq) pending.delete(k);
    if (!flushQueued) {
      flushQueued = true;
      setImmediate(flush);
    }
  }
}

/** A client-to-server frame (masked, as the protocol requires). */
function frame(opcode: number, payload: Uint8Array): Uint8Array {
  const n = payload.length;
  const head = n < 126 ? 2 : 4;
  const f = new Uint8Array(head + 4 + n);
  f[0] = 0x80 | opcode;
  if (n < 126) f[1] = 0x80 | n;
  else {
    f[1] = 0x80 | 126;
    f[2] = n >> 8;
    f[3] = n & 0xff;
  }
  const mask = crypto.getRandomValues(new Uint8Array(4));
  f.set(mask, head);
  for (let i = 0; i < n; i++) f[head + 4 + i] = payload[i]! ^ mask[i & 3]!;
  return f;
}
const sendText = (s: Socket<Conn>, text: string) => s.write(frame(0x1, enc.encode(text)));

interface Conn {
  token: string | null;
  /** Its place in `conns`. */
  index: number;
  /** The upgrade answer and the websocket frames (from `open`). */
  frames: ServerFrames | null;
  ready: boolean;
  resolve: () => void;
  reject: (error: Error) => void;
}

/** Before `ready` (handshake and join, a few frames): decoded and answered. */
function onSetupText(s: Socket<Conn>, text: string): void {
  const c = s.data;
  if (cfg.proto === "raw") return;
  if (text === "2") return void sendText(s, "3");
  if (text.startsWith("0{")) return void sendText(s, `40${JSON.stringify({ token: c.token })}`);
  if (text.startsWith("40{")) return void sendText(s, `420${JSON.stringify(["channel:join", cfg.channelId])}`);
  if (text.startsWith("430")) {
    const [ack] = JSON.parse(text.slice(3)) as [{ ok?: boolean }];
    if (!ack?.ok) return c.reject(new Error(`channel:join: ${text}`));
    c.ready = true;
    return c.resolve();
  }
  if (text.startsWith("44")) c.reject(new Error(`connect refused: ${text}`));
}


function onData(s: Socket<Conn>, chunk: Buffer): void {
  s.data.frames!.push(chunk);
}

/** A connection's frames: every payload is read whole (a `message:new` is read up to its send time). */
function framesOf(s: Socket<Conn>): ServerFrames {
  return new ServerFrames(
    (_opcode, len) => len,
    (buf, start, len, opcode) => {
      const c = s.data;
      const end = start + len;
      // Server frames are unmasked and, at these sizes, never fragmented (FIN set).
      if (opcode === 0x1) {
        if (c.ready) {
          if (len === 1 && buf[start] === 0x32) sendText(s, "3"); // Engine.IO ping "2"
          else onMessage(buf, start, end);
        } else onSetupText(s, dec.decode(buf.subarray(start, end)));
      } else if (opcode === 0x9) s.write(frame(0xa, buf.subarray(start, end))); // ping -> pong
      else if (opcode === 0x8) s.end();
      else other++;
    },
    (refusal) => {
      if (refusal) return s.data.reject(new Error(refusal));
      // The raw relay's connection is ready as soon as it is upgraded; Hearth's after its join.
      if (cfg.proto === "raw") {
        s.data.ready = true;
        s.data.resolve();
      }
    },
  );
}

const url = new URL(cfg.url);
const path = cfg.proto === "sio" ? "/socket.io/?EIO=4&transport=websocket" : "/";
const upgrade = enc.encode(
  `GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
    `Sec-WebSocket-Key: ${Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64")}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
);

/** Opens one connection; resolves once it receives the channel's messages. */
async function open(token: string | null, index: number): Promise<Socket<Conn>> {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const ready = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  const socket = await Bun.connect<Conn>({
    hostname: url.hostname,
    port: Number(url.port),
    data: { token, index, frames: null, ready: false, resolve, reject },
    socket: {
      open(s) {
        s.data.frames = framesOf(s);
        s.write(upgrade);
      },
      data: onData,
      close(s) {
        if (!s.data.ready) s.data.reject(new Error("closed before ready"));
        else if (!quitting) {
          reconnects++;
          const { token, index } = s.data;
          reopen(() => open(token, index), (conn) => (conns[index] = conn), () => quitting);
        }
      },
      error(s, error) {
        s.data.reject(error);
      },
    },
  });
  await ready;
  return socket;
}

const conns: Socket<Conn>[] = [];
const total = cfg.proto === "sio" ? cfg.tokens!.length : (cfg.count ?? 1);
const BATCH = 50;
for (let i = 0; i < total; i += BATCH) {
  const batch = [];
  for (let k = i; k < Math.min(total, i + BATCH); k++) batch.push(open(cfg.proto === "sio" ? cfg.tokens![k]! : null, k));
  conns.push(...(await Promise.all(batch)));
}
sockets = conns.length;
out("ready");

for (let next = await lines.next(); !next.done; next = await lines.next()) {
  const cmd = (next.value as string).trim();
  if (cmd === "reset") {
    hist.clear();
    deliveries = other = reconnects = 0;
    pending.clear();
    completed = reported = -1;
    out("ok");
  } else if (cmd === "report") {
    out(JSON.stringify({ deliveries, other, buckets: hist.buckets(), reconnects }));
  } else if (cmd === "quit") {
    quitting = true;
    for (const s of conns) s.end();
    process.exit(0);
  }
}
export {};
