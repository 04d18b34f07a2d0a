import { randomBytes } from "node:crypto";
import { connect, type Socket } from "node:net";
import { eventually } from "./wait.ts";

/** A masked client-to-server WebSocket text frame (RFC 6455). */
function textFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const length = payload.length;
  let header: Buffer;
  if (length < 126) header = Buffer.from([0x81, 0x80 | length]);
  else if (length < 65536) header = Buffer.from([0x81, 0x80 | 126, length >> 8, length & 255]);
  else {
    header = Buffer.alloc(10);
    header[0] = 0x81;
    header[1] = 0x80 | 127;
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  const mask = randomBytes(4);
  for (let i = 0; i < length; i++) payload[i]! ^= mask[i & 3]!;
  return Buffer.concat([header, mask, payload]);
}

/**
 * A Socket.IO client on a raw TCP WebSocket that stops reading once it is set up: the
 * attacker of issue 14 point 9 (a slow consumer). It connects with `token`, emits each of
 * `events` with an ack and waits for the acks, then never reads again; when `pongEveryMs` is
 * given it still writes an Engine.IO pong that often without reading the pings ("answers
 * pings blindly"). The server's writes pile up in the kernel, then in the server's buffer.
 */
export class StalledGatewayClient {
  private timer: ReturnType<typeof setInterval> | null = null;

  private constructor(private readonly socket: Socket) {
    socket.on("close", () => this.stopPongs());
    socket.on("error", () => undefined);
  }

  static open(url: string, token: string, events: [string, unknown][] = [], pongEveryMs?: number): Promise<StalledGatewayClient> {
    const { hostname, port } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), hostname);
      const client = new StalledGatewayClient(socket);
      let seen = "";
      let step: "upgrade" | "connect" | "acks" = "upgrade";
      let pendingAcks = events.length;
      let sent = 0;
      const sendNext = () => {
        const [event, payload] = events[sent]!;
        socket.write(textFrame(`42${sent}${JSON.stringify([event, payload])}`));
        sent++;
      };
      const timer = setTimeout(() => fail(new Error(`stalled client: no answer at step ${step}: ${seen.slice(-200)}`)), 10_000);
      const fail = (error: Error) => {
        clearTimeout(timer);
        socket.destroy();
        reject(error);
      };
      const ready = () => {
        clearTimeout(timer);
        socket.removeAllListeners("data");
        socket.pause();
        if (pongEveryMs) client.timer = setInterval(() => socket.write(textFrame("3")), pongEveryMs);
        resolve(client);
      };
      socket.on("error", fail);
      socket.on("connect", () => {
        socket.write(
          `GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
            `Sec-WebSocket-Key: ${randomBytes(16).toString("base64")}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
        );
      });
      socket.on("data", (chunk: Buffer) => {
        seen += chunk.toString("latin1");
        if (step === "upgrade" && seen.includes("\r\n\r\n")) {
          if (!seen.startsWith("HTTP/1.1 101")) return fail(new Error(`stalled client: upgrade refused: ${seen.slice(0, 100)}`));
          step = "connect";
          socket.write(textFrame(`40${JSON.stringify({ token })}`));
        }
        if (step === "connect") {
          if (seen.includes("44{")) return fail(new Error(`stalled client: connect refused: ${seen.slice(seen.indexOf("44{"))}`));
          if (!seen.includes("40{")) return;
          step = "acks";
          if (pendingAcks === 0) return ready();
          // One event at a time, each after the previous one's ack, as a client that waits for
          // its answers does: the server handles a socket's events concurrently, so a
          // `voice:listen` sent before `voice:join` is answered could find the bot not yet in
          // the room (on PostgreSQL, whose writes really wait).
          sent = 0;
          sendNext();
        }
        if (step === "acks") {
          while (sent < events.length && seen.includes(`43${sent - 1}[`)) sendNext();
          pendingAcks = events.filter((_, i) => !seen.includes(`43${i}[`)).length;
          if (pendingAcks === 0) ready();
        }
      });
    });
  }

  private stopPongs(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  close(): void {
    this.stopPongs();
    this.socket.destroy();
  }
}

/**
 * Streams `frames` audio frames past a stalled listener: `send` emits one, paced by a healthy
 * reader (at most 10 frames ahead of `received()`, as a listener that keeps up), then waits up
 * to 15 s for the reader to have them all (failing if it does not). Answers the most the stalled
 * listener's server-side websocket `ws` had buffered, read every 10 frames and at the end.
 */
export async function streamPastStalled(send: () => void, received: () => number, ws: { getBufferedAmount(): number }, frames: number): Promise<number> {
  let maxBuffered = 0;
  for (let i = 0; i < frames; i++) {
    send();
    if (i % 10 === 9) {
      await eventually(() => received() >= i + 1 - 10, "the reader to keep up", { intervalMs: 2 });
      maxBuffered = Math.max(maxBuffered, ws.getBufferedAmount());
    }
  }
  await eventually(() => received() >= frames, "the reader to have every frame", { timeoutMs: 15_000, intervalMs: 20 });
  return Math.max(maxBuffered, ws.getBufferedAmount());
}
