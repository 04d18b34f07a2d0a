import type { Server as Engine } from "@socket.io/bun-engine";
import { bunWebsocketOf } from "./bun-engine-internals.ts";

/**
 * Slow consumers (docs/gateway.md, "Limits"): what a socket that stops reading may cost.
 *
 * - WebSocket: Bun buffers what the kernel does not take yet, per connection. With
 *   `backpressureLimit` at the configured bound and `closeOnBackpressureLimit`, Bun closes
 *   a connection whose buffer is past the bound at its next send, whatever sends it (the
 *   native fan-out's publish, the audio relay, an ack): no JavaScript per delivery. Events
 *   are never dropped silently; the client reconnects and catches up over REST.
 * - Long-polling: the engine queues packets until the next poll. The bytes queued since the
 *   last flush are counted (only while the transport is polling); past the bound the socket
 *   is closed.
 * - A socket still more than `STALLED_BYTES` behind at two heartbeats in a row is closed: it
 *   answers pings without reading (a live client reads the ping before it answers it).
 */

/** Behind by more than this at two pongs in a row: not reading. */
const STALLED_BYTES = 64 * 1024;

/** Bun's websocket options that bound each connection's send buffer. */
export function websocketBackpressure(maxBufferedBytes: number) {
  return { backpressureLimit: maxBufferedBytes, closeOnBackpressureLimit: true };
}

interface EnginePacket {
  data?: unknown;
}

/** The parts of @socket.io/bun-engine's Socket used here. */
interface EngineSocket {
  readonly readyState: string;
  readonly transport: { readonly name: string; close(): void };
  on(event: string, listener: (this: EngineSocket, ...args: never[]) => void): unknown;
  off(event: string, listener: (this: EngineSocket, ...args: never[]) => void): unknown;
}

const sizeOf = (data: unknown): number =>
  typeof data === "string" ? data.length : data instanceof ArrayBuffer || ArrayBuffer.isView(data) ? data.byteLength : 0;

/**
 * Bounds what each engine socket may have queued for a client that does not read: the
 * long-polling write buffer at `maxBufferedBytes`, and stalled sockets at heartbeats.
 * (WebSocket buffers are bounded by Bun itself, see `websocketBackpressure`.)
 */
export function installSlowConsumerGuard(engine: Engine, maxBufferedBytes: number): void {
  /** Bytes queued for long-polling sockets since their last flush. */
  const queued = new WeakMap<EngineSocket, number>();
  /** Sockets found behind at their last heartbeat. */
  const behind = new WeakSet<EngineSocket>();

  // Shared listeners: the engine's emitter calls them with `this` set to the socket.
  function onPacketCreate(this: EngineSocket, packet: EnginePacket) {
    const total = (queued.get(this) ?? 0) + sizeOf(packet.data) + 1;
    queued.set(this, total);
    // Closing the transport closes the socket at once; the socket's own close would wait for
    // its queue to drain, which a client that does not poll never lets happen.
    if (total > maxBufferedBytes && this.readyState === "open") this.transport.close();
  }
  function onFlush(this: EngineSocket) {
    queued.delete(this);
  }
  function onUpgrade(this: EngineSocket) {
    this.off("packetCreate", onPacketCreate);
    this.off("flush", onFlush);
    this.off("upgrade", onUpgrade);
    queued.delete(this);
  }
  function onHeartbeat(this: EngineSocket) {
    const ws = bunWebsocketOf(this);
    const pending = ws ? ws.getBufferedAmount() : (queued.get(this) ?? 0);
    if (pending <= STALLED_BYTES) {
      behind.delete(this);
      return;
    }
    if (!behind.has(this)) {
      behind.add(this);
      return;
    }
    // Terminate rather than close: a close frame would wait behind everything queued.
    if (ws) ws.terminate();
    else this.transport.close();
  }

  engine.on("connection", (engineSocket) => {
    const socket = engineSocket as unknown as EngineSocket;
    socket.on("heartbeat", onHeartbeat);
    if (socket.transport.name !== "polling") return;
    socket.on("packetCreate", onPacketCreate);
    socket.on("flush", onFlush);
    socket.on("upgrade", onUpgrade);
  });
}
