import type { Server as BunServer, ServerWebSocket } from "bun";
import type { Server as IoServer, Socket as IoSocket } from "socket.io";
import { pcmEventHeader, type AudioFrame } from "./frames.ts";
import { bunWebsocketOf } from "../gateway/bun-engine-internals.ts";
import { clientReaderOf, type ClientReader } from "../gateway/socket-io-internals.ts";
import { rooms } from "../domain/shared/events.ts";
import { servesSeveral } from "../http/listeners.ts";

/**
 * The native audio forwarder (docs/audio.md, "Delivery, native path").
 *
 * A Socket.IO binary event over Engine.IO v4 websocket is two websocket messages: a text
 * header `451-["bot:audio-data",{"pcm":{"_placeholder":true,"num":0},...}]` and the raw
 * attachment. Per frame this module builds the header once and publishes both messages
 * natively to the Bun topic `voice:<channelId>` from the sender's ServerWebSocket (so Bun
 * skips the sender), with the received bytes as they are: no JavaScript per receiver, no
 * copy. Long-polling members get the ordinary Socket.IO emit, addressed to them alone.
 *
 * Topic subscriptions follow the Socket.IO room `voice:<channelId>` through the adapter's
 * `join-room` / `leave-room` events (the voice domain adds and removes sockets there), and
 * a socket that upgrades from polling to websocket later is moved over on the engine's
 * `upgrade` event.
 *
 * Stalled listeners: a sweep reads every websocket member's buffered amount. A member above
 * `highWaterBytes` is unsubscribed from the topic (it misses whole frames: neither message of
 * the pair is published to it), and subscribed again once it is back under `lowWaterBytes`.
 * A room is swept every `sweepEveryFrames` frames published to it (32 by default), and every
 * room on a timer (every `sweepIntervalMs`, 25 ms by default; an unref'd timer that runs only
 * while some voice room has members) so that a listener that drains is heard again when the
 * room is quiet. The frame count is what bounds a stalled listener's buffer: an overloaded
 * server can run its thread for hundreds of ms without the timer firing, and at 15,000 frames/s
 * per listener that would let a listener pass Bun's 4 MiB bound and be closed. Per frame the work is O(1) JavaScript whatever the number of receivers
 * (one room sweep, O(members), per 32 frames). Both messages of a frame are published in one
 * synchronous step to the same subscriber set, so a listener gets both or neither, as long
 * as Bun itself does not drop one: Bun drops only past the connection's `backpressureLimit`
 * (GATEWAY_MAX_BUFFERED_BYTES, 4 MiB by default), and then closes the connection
 * (src/gateway/slow-consumers.ts). A stalled listener queues at most `highWaterBytes` +
 * `sweepEveryFrames` frames + what Bun's pub/sub still held for it when it was swept (uWS's
 * TopicTree drains a subscriber at 32 messages, 16 frames): 256 KiB + 48 x ~3.96 KB =
 * ~0.45 MB at the benchmarked 3,840-byte frames, ~0.83 MB at the largest (11,520), far below
 * that limit, however long the thread runs.
 */

/** What the relay needs from a Socket.IO socket (a GatewaySocket fits). */
type RelaySocket = IoSocket;
type Ws = ServerWebSocket<unknown>;

interface WsMember {
  ws: Ws;
  subscribed: boolean;
}

interface RoomState {
  /** Websocket-transport members, by socket id. */
  ws: Map<string, WsMember>;
  /** Long-polling members, by socket id. */
  polling: Set<string>;
  /** Websocket members currently subscribed to the topic. */
  listening: number;
  /** Websocket members currently unsubscribed because they were stalled. */
  stalled: number;
  /** Frames published to the room since it was last swept. */
  sinceSweep: number;
}

interface NativeRelayOptions {
  /** A listener with more than this many bytes buffered misses frames until it drains. */
  highWaterBytes?: number;
  /** ... and hears again once it is back under this. */
  lowWaterBytes?: number;
  /** How often every websocket member's buffered amount is checked, in ms. */
  sweepIntervalMs?: number;
  /** ... and a room's members, every this many frames published to it. */
  sweepEveryFrames?: number;
}

interface NativeRelayStats {
  /** Frames handed to the native publish. */
  published: number;
  /** Frame deliveries skipped because a listener was stalled (whole frames; counted per
   *  stalled member per published frame, the sender included if it is the one stalled). */
  dropped: number;
  /** Stall sweeps run (a room's, or every room's on the timer). */
  sweeps: number;
  /** Frames sent through the ordinary emit to long-polling members. */
  emittedToPolling: number;
  /** Frames read by the fast read path (FastAudioReader) rather than Socket.IO's decoder. */
  readFast: number;
}

const EVENT = "bot:audio-data";
const VOICE_PREFIX = "voice:";
/** A `bot:audio-data` event with one binary attachment, in the main namespace, without an ack id
 *  (a Socket.IO packet as Engine.IO hands it over: `51-[...]`, without the `4` of the message). */
const FAST_HEADER_PREFIX = '51-["bot:audio-data",';

interface EngineConn {
  readyState: string;
  on(event: "data", cb: (data: unknown) => void): unknown;
  off(event: "data", cb: (data: unknown) => void): unknown;
}

/**
 * The sender's read path for audio frames (docs/audio.md, "Delivery, native path"), installed
 * on a connection while its socket is in a voice room. Socket.IO would decode each frame's
 * header (JSON.parse), rebuild the packet around the attachment, and reach the event's
 * listeners after two `process.nextTick` hops; a bot sends the same header text for every
 * frame, so this parses it once, pairs the next binary message with it, and calls the
 * socket's own `bot:audio-data` listeners (the gateway's rate limit, admission and delivery)
 * and its `onAny` listeners with the payload Socket.IO would have built. Anything else (other
 * events, an ack id, another namespace, a header with other placeholders) goes to Socket.IO's
 * decoder untouched, in order; so does a header whose next message is not binary, which the
 * decoder then refuses as it always did.
 */
class FastAudioReader {
  private lastHeader = "";
  private template: Record<string, unknown> | null = null;
  private pending = false;
  private readonly onData = (data: unknown) => this.read(data);

  constructor(
    private readonly socket: RelaySocket,
    private readonly client: ClientReader,
    private readonly conn: EngineConn,
    private readonly stats: NativeRelayStats,
  ) {
    conn.off("data", client.ondata);
    conn.on("data", this.onData);
  }

  /** Gives the connection back to Socket.IO's decoder (not when it is closing: Socket.IO has let go of it). */
  uninstall(): void {
    this.conn.off("data", this.onData);
    if (this.conn.readyState !== "open") return;
    this.conn.on("data", this.client.ondata);
    this.flushPending();
  }

  private flushPending(): void {
    if (!this.pending) return;
    this.pending = false;
    this.client.ondata(this.lastHeader);
  }

  private read(data: unknown): void {
    if (this.pending) {
      this.pending = false;
      if (typeof data !== "string" && (ArrayBuffer.isView(data) || data instanceof ArrayBuffer)) return this.dispatch(data);
      // Not the attachment: Socket.IO decides, on the header and this, as it always did.
      this.client.ondata(this.lastHeader);
      return this.client.ondata(data);
    }
    if (typeof data === "string" && data.startsWith(FAST_HEADER_PREFIX) && !this.client.awaitingAttachments() && this.parse(data)) {
      this.pending = true;
      return;
    }
    this.client.ondata(data);
  }

  /** Remembers the header's payload (parsed once per distinct header text); false if it is not a plain frame header. */
  private parse(header: string): boolean {
    if (header === this.lastHeader && this.template) return true;
    this.template = null;
    // Exactly one placeholder, `pcm`, attachment 0 (the prefix says one attachment).
    if (header.indexOf('"_placeholder"') !== header.lastIndexOf('"_placeholder"')) return false;
    let packet: unknown;
    try {
      packet = JSON.parse(header.slice(FAST_HEADER_PREFIX.indexOf("[")));
    } catch {
      return false;
    }
    if (!Array.isArray(packet) || packet.length !== 2) return false;
    const payload = packet[1] as Record<string, unknown> | null;
    if (typeof payload !== "object" || payload === null || Array.isArray(payload)) return false;
    const pcm = payload.pcm as { _placeholder?: unknown; num?: unknown } | null;
    if (typeof pcm !== "object" || pcm === null || pcm._placeholder !== true || pcm.num !== 0) return false;
    this.lastHeader = header;
    this.template = payload;
    return true;
  }

  /** What Socket.IO's `onevent` would do with the rebuilt packet, without its ticks. */
  private dispatch(pcm: unknown): void {
    const socket = this.socket;
    if (!socket.connected) return;
    const payload = { ...this.template, pcm };
    this.stats.readFast++;
    for (const listener of socket.listenersAny()) listener.call(socket, EVENT, payload);
    for (const listener of socket.listeners(EVENT)) (listener as (p: unknown) => void).call(socket, payload);
  }
}

const wsOf = (socket: RelaySocket): Ws | null => bunWebsocketOf(socket.conn);

export class NativeAudioRelay {
  readonly stats: NativeRelayStats = { published: 0, dropped: 0, emittedToPolling: 0, sweeps: 0, readFast: 0 };
  private readonly rooms = new Map<string, RoomState>();
  /** The rooms each socket is in, for moving it on upgrade. */
  private readonly roomsOf = new Map<string, Set<string>>();
  private readonly watched = new WeakSet<object>();
  /** The fast read path of each socket in a voice room (FastAudioReader), by socket id. */
  private readonly readers = new Map<string, FastAudioReader>();
  /** Each sender's last frame header, rebuilt only when its format changes. */
  private readonly headers = new Map<string, { sampleRate: number; channels: number; userId: string; text: string }>();
  private bunServer: BunServer<unknown> | null = null;
  private readonly high: number;
  private readonly low: number;
  private readonly sweepMs: number;
  private readonly sweepEvery: number;
  private timer: ReturnType<typeof setInterval> | null = null;
  private closed = false;

  constructor(
    private readonly io: IoServer,
    options: NativeRelayOptions = {},
  ) {
    this.high = options.highWaterBytes ?? 256 * 1024;
    this.low = options.lowWaterBytes ?? Math.floor(this.high / 2);
    this.sweepMs = options.sweepIntervalMs ?? 25;
    this.sweepEvery = options.sweepEveryFrames ?? 32;
    const adapter = io.of("/").adapter;
    adapter.on("join-room", (room: string, id: string) => {
      if (room.startsWith(VOICE_PREFIX)) this.onJoin(room, id);
    });
    adapter.on("leave-room", (room: string, id: string) => {
      if (room.startsWith(VOICE_PREFIX)) this.onLeave(room, id);
    });
  }

  /**
   * The Bun server, for publishing from a sender that is not on a websocket: the app's listener
   * set (src/http/listeners.ts), which the engine passes with each connection.
   */
  setServer(server: BunServer<unknown>): void {
    this.bunServer = server;
  }

  /** Members of a room by transport (for tests and the bench). */
  membership(channelId: string): { websocket: string[]; polling: string[] } {
    const state = this.rooms.get(rooms.voice(channelId));
    return { websocket: [...(state?.ws.keys() ?? [])], polling: [...(state?.polling ?? [])] };
  }

  /** Stops the stall sweep for good (server shutdown). */
  close(): void {
    this.closed = true;
    this.stopSweep();
  }

  private startSweep(): void {
    if (this.timer || this.closed) return;
    this.timer = setInterval(() => this.sweep(), this.sweepMs);
    (this.timer as { unref?: () => void }).unref?.();
  }

  private stopSweep(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** The stall check of every room (the timer's). */
  sweep(): void {
    for (const [topic, state] of this.rooms) this.sweepRoom(topic, state);
  }

  /**
   * The stall check of one room: every websocket member above `high` buffered is unsubscribed
   * from the room's topic (it misses whole frames from then on), and one that is back under
   * `low` is subscribed again.
   */
  private sweepRoom(topic: string, state: RoomState): void {
    this.stats.sweeps++;
    state.sinceSweep = 0;
    for (const member of state.ws.values()) {
      if (member.ws.readyState !== 1) continue;
      const buffered = member.ws.getBufferedAmount();
      if (member.subscribed) {
        if (buffered > this.high) {
          member.subscribed = false;
          member.ws.unsubscribe(topic);
          state.listening--;
          state.stalled++;
        }
      } else if (buffered <= this.low) {
        member.subscribed = true;
        member.ws.subscribe(topic);
        state.listening++;
        state.stalled--;
      }
    }
  }

  /**
   * Delivers one admitted frame to the voice room except the sender: native publish to the
   * websocket members that are keeping up, the ordinary emit to long-polling members.
   */
  deliver(from: RelaySocket, channelId: string, frame: AudioFrame, senderUserId: string): void {
    const topic = rooms.voice(channelId);
    const state = this.rooms.get(topic);
    if (!state) return;
    // O(1) JavaScript per frame whatever the number of receivers, and one room sweep (a native
    // call per member) every `sweepEvery` frames. A stalled listener is simply not subscribed to the topic.
    if (++state.sinceSweep >= this.sweepEvery) this.sweepRoom(topic, state);
    const self = state.ws.get(from.id);
    const others = state.listening - (self?.subscribed ? 1 : 0);
    if (others > 0) {
      const header = this.header(from.id, frame, senderUserId);
      const senderWs = wsOf(from);
      const data = frame.pcm as Parameters<Ws["publish"]>[1];
      // A websocket's publish reaches its own Bun server's subscribers only: while a TLS reload's
      // previous listener still holds websockets (src/http/listeners.ts), every listener is published
      // to, the sender left out by unsubscribing it around the publish.
      const several = servesSeveral(this.bunServer);
      if (senderWs && several && this.bunServer) {
        if (self?.subscribed) senderWs.unsubscribe(topic);
        this.bunServer.publish(topic, header, false);
        this.bunServer.publish(topic, data, false);
        if (self?.subscribed) senderWs.subscribe(topic);
      } else if (senderWs) {
        senderWs.publish(topic, header);
        senderWs.publish(topic, data);
      } else if (this.bunServer) {
        // The sender is not subscribed (it is not on a websocket), so nobody is skipped.
        this.bunServer.publish(topic, header, false);
        this.bunServer.publish(topic, data, false);
      }
      this.stats.published++;
      if (state.stalled > 0) this.stats.dropped += state.stalled - (self && !self.subscribed ? 1 : 0);
    }
    if (state.polling.size > 0) {
      const to = [...state.polling].filter((id) => id !== from.id);
      if (to.length > 0) {
        // `local`: PCM never leaves this node (the cluster adapter's stream) nor goes into resume storage.
        from.local.to(to).emit(EVENT, { pcm: frame.pcm, sampleRate: frame.sampleRate, channels: frame.channels, botUserId: senderUserId });
        this.stats.emittedToPolling++;
      }
    }
  }

  /** The Socket.IO header of a frame from `socketId`, built again only when the format or sender changes. */
  private header(socketId: string, frame: AudioFrame, userId: string): string {
    const last = this.headers.get(socketId);
    if (last && last.sampleRate === frame.sampleRate && last.channels === frame.channels && last.userId === userId) return last.text;
    const text = pcmEventHeader(EVENT, { sampleRate: frame.sampleRate, channels: frame.channels, botUserId: userId });
    this.headers.set(socketId, { sampleRate: frame.sampleRate, channels: frame.channels, userId, text });
    return text;
  }

  private socket(id: string): RelaySocket | undefined {
    return this.io.of("/").sockets.get(id);
  }

  private onJoin(room: string, id: string): void {
    const socket = this.socket(id);
    if (!socket) return;
    let state = this.rooms.get(room);
    if (!state) this.rooms.set(room, (state = { ws: new Map(), polling: new Set(), listening: 0, stalled: 0, sinceSweep: 0 }));
    this.startSweep();
    let mine = this.roomsOf.get(id);
    if (!mine) this.roomsOf.set(id, (mine = new Set()));
    mine.add(room);
    this.installReader(socket);
    const ws = wsOf(socket);
    if (ws) {
      if (state.ws.has(id)) return;
      ws.subscribe(room);
      state.ws.set(id, { ws, subscribed: true });
      state.listening++;
    } else {
      state.polling.add(id);
      this.watchUpgrade(socket);
    }
  }

  private onLeave(room: string, id: string): void {
    const state = this.rooms.get(room);
    const mine = this.roomsOf.get(id);
    mine?.delete(room);
    if (mine && mine.size === 0) {
      this.roomsOf.delete(id);
      this.readers.get(id)?.uninstall();
      this.readers.delete(id);
      this.headers.delete(id);
    }
    if (!state) return;
    const member = state.ws.get(id);
    if (member) {
      state.ws.delete(id);
      if (member.subscribed) {
        state.listening--;
        if (member.ws.readyState === 1) member.ws.unsubscribe(room);
      } else state.stalled--;
    }
    state.polling.delete(id);
    if (state.ws.size === 0 && state.polling.size === 0) this.rooms.delete(room);
    if (this.rooms.size === 0) this.stopSweep();
  }

  /** The fast read path for a socket's frames while it is in a voice room (FastAudioReader). */
  private installReader(socket: RelaySocket): void {
    if (this.readers.has(socket.id)) return;
    const client = clientReaderOf(socket);
    const conn = socket.conn as unknown as EngineConn | undefined;
    if (!client || !conn) return;
    this.readers.set(socket.id, new FastAudioReader(socket, client, conn, this.stats));
  }

  /** A polling socket that upgrades later moves to the native path for its voice rooms. */
  private watchUpgrade(socket: RelaySocket): void {
    const conn = socket.conn as unknown as { on(event: "upgrade", cb: () => void): void };
    if (this.watched.has(conn)) return;
    this.watched.add(conn);
    conn.on("upgrade", () => {
      const ws = wsOf(socket);
      if (!ws) return;
      for (const room of this.roomsOf.get(socket.id) ?? []) {
        const state = this.rooms.get(room);
        if (!state || !state.polling.delete(socket.id)) continue;
        ws.subscribe(room);
        state.ws.set(socket.id, { ws, subscribed: true });
        state.listening++;
      }
    });
  }
}

/** Installed forwarders by namespace, and the ones switched on. */
const installed = new WeakMap<object, NativeAudioRelay>();
const relays = new WeakMap<object, NativeAudioRelay>();

/**
 * Installs the native forwarder on `io`'s main namespace; `deliverFrame` uses it from then
 * on. `engine` gives the Bun server (for a sender on long-polling).
 */
export function installNativeAudioRelay(
  io: IoServer,
  // any[]: the structural type of @socket.io/bun-engine's `on`, whose listener arguments depend on the event.
  engine: { on(event: "connection", cb: (...args: any[]) => void): unknown; close?(): unknown },
  options?: NativeRelayOptions,
): NativeAudioRelay {
  const relay = new NativeAudioRelay(io, options);
  // The stall sweep's timer is unref'd and stops when no room has members; it is also
  // cleared for good when the engine closes (io.close() and app.stop() both close it).
  const engineClose = engine.close;
  if (typeof engineClose === "function") {
    engine.close = function (this: unknown, ...args: unknown[]) {
      relay.close();
      return (engineClose as (...a: unknown[]) => unknown).apply(this, args);
    };
  }
  engine.on("connection", (_socket: unknown, _req: unknown, server: BunServer<unknown> | undefined) => {
    if (server) relay.setServer(server);
  });
  installed.set(io.of("/"), relay);
  relays.set(io.of("/"), relay);
  return relay;
}

/**
 * Switches `deliverFrame` between the native forwarder and the stock emit path (Socket.IO's own; the bench
 * compares both on the same connections). Membership tracking goes on while it is off.
 */
export function setNativeAudioRelayEnabled(io: IoServer, enabled: boolean): void {
  const relay = installed.get(io.of("/"));
  if (enabled && relay) relays.set(io.of("/"), relay);
  else relays.delete(io.of("/"));
}

/** The forwarder for a socket's namespace, if installed. */
export function nativeRelayFor(socket: unknown): NativeAudioRelay | undefined {
  const nsp = (socket as { nsp?: object } | null)?.nsp;
  return nsp ? relays.get(nsp) : undefined;
}
