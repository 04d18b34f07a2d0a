/**
 * A light audio receiver for `bench/audio-relay.ts --scenario capacity`, run as its own process.
 * Like bench/fanout-client.ts, each connection is a plain TCP socket (Bun.connect) speaking
 * WebSocket by hand, so the receivers (which share the machine's two cores with the server
 * under test) measure the server rather than themselves: a `WebSocket` client pays a
 * MessageEvent and, for the Socket.IO header, a decoded string per message, and Hearth's
 * frames are two messages (the header and the attachment) where the raw baseline's are one.
 * Here the bytes of both arrive in one chunk and cost a few byte comparisons, and the audio
 * itself is never copied or read past its clock (bench/server-frames.ts).
 *   "sio": Engine.IO v4 / Socket.IO framing for Hearth (handshake with the token, then
 *          `voice:join`; Engine.IO pings answered). A frame counts when its binary message
 *          follows its `451-["bot:audio-data",` header; a binary message without a header, or
 *          a header followed by another header, is an orphan.
 *   "raw": the bare relay's room (`?room=`): every binary message is a frame.
 * The first 8 bytes of each frame are the sender's clock (epoch ms, f64 little-endian).
 *
 *   bun bench/audio-tcp-receiver.ts '<json {proto, url, tokens | count, channelId}>'
 *
 * A connection the server closes (Hearth closes a websocket whose send buffer passes
 * GATEWAY_MAX_BUFFERED_BYTES, src/gateway/slow-consumers.ts, which an overloaded step can
 * cause) is opened again at once, as a real client reconnects, so one overloaded step does not
 * leave the later steps and rounds short of receivers.
 *
 * Lines out: `ready`, then answers: `reset` -> `ok`; `report` -> one JSON line {frames, bytes,
 * orphans, dangling, latencies (ms), cpu_us (this process's CPU since the reset), reconnects
 * (since the reset)}; `quit`.
 */
import type { Socket } from "bun";
import { ServerFrames } from "./server-frames.ts";
import { reopen } from "./reopen.ts";

const cfg = JSON.parse(process.argv[2]!) as { proto: "sio" | "raw"; url: string; tokens?: string[]; count?: number; channelId?: string };
const now = () => performance.timeOrigin + performance.now();
const out = (line: string) => process.stdout.write(line + "\n");
const enc = new TextEncoder();
const dec = new TextDecoder();
const HEADER = enc.encode('451-["bot:audio-data"');

let frames = 0;
let bytes = 0;
let orphans = 0;
let reconnects = 0;
let quitting = false;
let latencies: number[] = [];

interface Conn {
  token: string | null;
  /** Its place in `conns`. */
  index: number;
  ready: boolean;
  /** The last audio message was a header still waiting for its data. */
  expectBinary: boolean;
  /** The upgrade answer and the websocket frames (from `open`). */
  frames: ServerFrames | null;
  resolve: () => void;
  reject: (error: Error) => void;
}

/** A client-to-server text frame, masked with a zero key (valid, and no XOR to pay). */
function textFrame(text: string): Uint8Array {
  const payload = enc.encode(text);
  const n = payload.length;
  const head = n < 126 ? 2 : 4;
  const f = new Uint8Array(head + 4 + n);
  f[0] = 0x81;
  if (n < 126) f[1] = 0x80 | n;
  else {
    f[1] = 0x80 | 126;
    f[2] = n >> 8;
    f[3] = n & 0xff;
  }
  f.set(payload, head + 4);
  return f;
}
const sendText = (s: Socket<Conn>, text: string) => s.write(textFrame(text));

function onSetupText(s: Socket<Conn>, text: string): void {
  const c = s.data;
  if (text === "2") return void sendText(s, "3");
  if (text.startsWith("0{")) return void sendText(s, `40${JSON.stringify({ token: c.token })}`);
  if (text.startsWith("40{")) return void sendText(s, `420${JSON.stringify(["voice:join", { channelId: cfg.channelId }])}`);
  if (text.startsWith("430")) {
    const [ack] = JSON.parse(text.slice(3)) as [{ ok?: boolean }];
    if (!ack?.ok) return c.reject(new Error(`voice:join: ${text}`));
    c.ready = true;
    return c.resolve();
  }
  if (text.startsWith("44")) c.reject(new Error(`connect refused: ${text}`));
}

function isHeader(buf: Buffer, start: number, end: number): boolean {
  if (end - start < HEADER.length) return false;
  for (let i = 0; i < HEADER.length; i++) if (buf[start + i] !== HEADER[i]) return false;
  return true;
}


function onData(s: Socket<Conn>, chunk: Buffer): void {
  s.data.frames!.push(chunk);
}

/**
 * A connection's frames. Only what is looked at is read: a binary frame's clock (8 bytes), an
 * audio header's prefix; setup texts and pings whole.
 */
function framesOf(s: Socket<Conn>): ServerFrames {
  const c = s.data;
  return new ServerFrames(
    (opcode, len) => (opcode === 0x2 ? 8 : opcode === 0x1 && c.ready && len > 1 ? HEADER.length : opcode === 0x8 ? 0 : len),
    (buf, start, len, opcode) => {
      if (opcode === 0x2) {
        if (cfg.proto === "sio") {
          if (!c.expectBinary) return void orphans++;
        }
        c.expectBinary = false;
        frames++;
        bytes += len;
        latencies.push(now() - buf.readDoubleLE(start));
      } else if (opcode === 0x1) {
        if (!c.ready) onSetupText(s, dec.decode(buf.subarray(start, start + len)));
        else if (len === 1 && buf[start] === 0x32) sendText(s, "3"); // Engine.IO ping
        else if (isHeader(buf, start, start + len)) {
          if (c.expectBinary) orphans++;
          c.expectBinary = true;
        }
      } else if (opcode === 0x9) {
        const pong = new Uint8Array(6 + len);
        pong[0] = 0x8a;
        pong[1] = 0x80 | len;
        pong.set(buf.subarray(start, start + len), 6);
        s.write(pong);
      } else if (opcode === 0x8) s.end();
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
const path = cfg.proto === "sio" ? "/socket.io/?EIO=4&transport=websocket" : `/?role=recv&room=${encodeURIComponent(cfg.channelId ?? "")}`;
const upgrade = () =>
  enc.encode(
    `GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: ${Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64")}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  );

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
    data: { token, index, frames: null, ready: false, expectBinary: false, resolve, reject },
    socket: {
      open(s) {
        s.data.frames = framesOf(s);
        s.write(upgrade());
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
for (let i = 0; i < total; i++) conns.push(await open(cfg.proto === "sio" ? cfg.tokens![i]! : null, i));
out("ready");

/** This process's CPU since the last `reset` goes into `report` (`cpu_us`). */
let cpu0 = process.cpuUsage();
for await (const line of console) {
  const cmd = line.trim();
  if (cmd === "reset") {
    frames = bytes = orphans = reconnects = 0;
    latencies = [];
    cpu0 = process.cpuUsage();
    out("ok");
  } else if (cmd === "report") {
    const dangling = conns.filter((s) => s.data.expectBinary).length;
    const cpu = process.cpuUsage(cpu0);
    out(JSON.stringify({ frames, bytes, orphans, dangling, latencies, cpu_us: cpu.user + cpu.system, reconnects }));
  } else if (cmd === "quit") {
    quitting = true;
    for (const s of conns) s.end();
    process.exit(0);
  }
}
export {};
