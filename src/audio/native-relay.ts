import type { Server as BunServer, ServerWebSocket } from "bun";
import type { Server as IoServer, Socket as IoSocket } from "socket.io";
import { pcmEventHeader, type AudioFrame } from "./frames.ts";
import { rooms } from "../domain/shared/events.ts";

/**
 * The tuned audio forwarder (docs/audio.md, "Delivery, tuned path").
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
 * Listeners that fall behind (docs/audio.md, "Listeners behind"): a sweep reads the buffered
 * amount of every websocket member still subscribed to the topic, in a room every
 * `sweepEveryFrames` frames published to it (32 by default) and in every room on a timer
 * (`sweepIntervalMs`, 25 ms). A member with anything buffered in Bun (more than `lagBytes`, 0
 * by default) is taken off the topic and fed from its own queue instead: each frame's two
 * messages are queued for it (references, no copy), and written when Bun reports the
 * connection drained (`onDrain`, the server's websocket `drain` handler) and nothing is left
 * buffered: under one cork, up to the first send that Bun has to buffer. Once its queue is
 * empty with nothing buffered, it is subscribed again. Why: for a connection with anything
 * buffered, uWS tries a `send()` system call for every message published to it (its whole
 * buffer, at every message), and a Socket.IO frame is two messages; at capacity that made
 * the server's CPU per delivery double just as the receivers fell behind (bench/README.md,
 * "Eighth pass"). Fed from the queue, a member behind costs a syscall per ~16 KB written.
 * A member whose queue and buffered bytes would pass `highWaterBytes` (256 KiB) misses whole
 * frames (neither message of the pair is queued) until it drains. So a stalled listener holds at
 * most what Bun buffered for it before a sweep found it behind (the 32 frames of a sweep's span
 * and the 16 that Bun's pub/sub may hold for a subscriber: uWS's TopicTree drains one at 32
 * messages), or `highWaterBytes` with its queue plus those 16 frames if that is more: ~0.32 MB
 * at the benchmarked 3,840-byte frames, ~0.57 MB at the largest (11,520), far below Bun's 4 MiB bound (GATEWAY_MAX_BUFFERED_BYTES, past which Bun drops and closes the
 * connection: src/gateway/slow-consumers.ts), however long the thread runs. Per frame the
 * work is O(1) JavaScript plus one queue push per member behind (one room sweep, O(members), per
 * 32 frames). A listener gets both messages of a frame or neither: they are published in one
 * synchronous step to the same subscriber set, or queued and written as a pair, and uWS
 * writes a subscriber's pending topic messages before any direct send to it, so the order holds
 * when a member moves between the topic and its queue.
 */

/** What the relay needs from a Socket.IO socket (a GatewaySocket fits). */
type RelaySocket = IoSocket;
type Ws = ServerWebSocket<unknown>;

/** A frame's two messages as Bun sends them: the Socket.IO header (text) and the PCM (binary). */
type Message = Exclude<Parameters<Ws["send"]>[0], Blob>;

interface WsMember {
  ws: Ws;
  /** Its room's topic. */
  topic: string;
  /** On the topic (keeping up); else behind, fed from `queue`. */
  subscribed: boolean;
  /** While behind: the frames waiting for it, two messages each (header, PCM, header, ...). */
  queue: Message[];
  /** Their bytes, with the websocket framing. */
  queuedBytes: number;
  /** Its buffered amount in Bun when last read (a sweep or a drain). */
  buffered: number;
}

interface RoomState {
  /** Websocket-transport members, by socket id. */
  ws: Map<string, WsMember>;
  /** Long-polling members, by socket id. */
  polling: Set<string>;
  /** Websocket members currently subscribed to the topic. */
  listening: number;
  /** Websocket members behind: off the topic, fed from their queues. */
  behind: Set<WsMember>;
  /** Frames published to the room since it was last swept. */
  sinceSweep: number;
}

export interface NativeRelayOptions {
  /** A listener behind misses whole frames while its queued and buffered bytes would pass this. */
  highWaterBytes?: number;
  /** A listener with more than this buffered in Bun at a sweep is behind (fed from its queue). */
  lagBytes?: number;
  /** How often every websocket member's buffered amount is checked, in ms. */
  sweepIntervalMs?: number;
  /** ... and a room's members, every this many frames published to it. */
  sweepEveryFrames?: number;
}

export interface NativeRelayStats {
  /** Frames handed to the native publish. */
  published: number;
  /** Frame deliveries skipped because a listener behind held too much (whole frames; counted
   *  per such member per frame). */
  dropped: number;
  /** Frame deliveries queued for listeners behind (per member per frame). */
  queued: number;
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

/** What the fast read path needs from Socket.IO's per-connection Client (socket.io/dist/client.js). */
interface IoClient {
  ondata(data: unknown): void;
  decoder: { reconstructor: unknown };
}
interface EngineConn {
  readyState: string;
  on(event: "data", cb: (data: unknown) => void): unknown;
  off(event: "data", cb: (data: unknown) => void): unknown;
}

/**
 * The sender's read path for audio frames (docs/audio.md, "Delivery, tuned path"), installed
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
    private readonly client: IoClient,
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
    if (typeof data === "string" && data.startsWith(FAST_HEADER_PREFIX) && this.client.decoder.reconstructor == null && this.parse(data)) {
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

/** A message's bytes on the wire: its payload and at most 14 bytes of websocket framing. */
const messageBytes = (message: Message): number => (typeof message === "string" ? Buffer.byteLength(message) : message.byteLength) + 14;

const wsOf = (socket: RelaySocket): Ws | null => {
  const transport = socket.conn?.transport as unknown as { name?: string; socket?: Ws } | undefined;
  if (!transport || transport.name !== "websocket") return null;
  const ws = transport.socket;
  return ws && ws.readyState === 1 ? ws : null;
};

export class NativeAudioRelay {
  readonly stats: NativeRelayStats = { published: 0, dropped: 0, queued: 0, emittedToPolling: 0, sweeps: 0, readFast: 0 };
  private readonly rooms = new Map<string, RoomState>();
  /** The rooms each socket is in, for moving it on upgrade. */
  private readonly roomsOf = new Map<string, Set<string>>();
  /** Each websocket's memberships, for its drain. */
  private readonly membersOf = new WeakMap<Ws, WsMember[]>();
  private readonly watched = new WeakSet<object>();
  /** The fast read path of each socket in a voice room (FastAudioReader), by socket id. */
  private readonly readers = new Map<string, FastAudioReader>();
  /** Each sender's last frame header, rebuilt only when its format changes. */
  private readonly headers = new Map<string, { sampleRate: number; channels: number; userId: string; text: string }>();
  private bunServer: BunServer<unknown> | null = null;
  private readonly high: number;
  private readonly lag: number;
  private readonly sweepMs: number;
  private readonly sweepEvery: number;
  private timer: ReturnType<typeof setInterval> | null = null;
  private closed = false;

  constructor(
    private readonly io: IoServer,
    options: NativeRelayOptions = {},
  ) {
    this.high = options.highWaterBytes ?? 256 * 1024;
    this.lag = options.lagBytes ?? 0;
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

  /** The Bun server, for publishing from a sender that is not on a websocket. */
  setServer(server: BunServer<unknown>): void {
    this.bunServer = server;
  }

  /** Members of a room by transport, and the websocket members behind (for tests and the bench). */
  membership(channelId: string): { websocket: string[]; polling: string[]; behind: string[] } {
    const state = this.rooms.get(rooms.voice(channelId));
    const behind = [...(state?.ws ?? [])].filter(([, member]) => !member.subscribed).map(([id]) => id);
    return { websocket: [...(state?.ws.keys() ?? [])], polling: [...(state?.polling ?? [])], behind };
  }

  /** Bytes queued for a socket while it is behind, in every room it is in (tests, the bench). */
  queuedBytes(socketId: string): number {
    let bytes = 0;
    for (const room of this.roomsOf.get(socketId) ?? []) bytes += this.rooms.get(room)?.ws.get(socketId)?.queuedBytes ?? 0;
    return bytes;
  }

  /** Stops the sweep's timer for good (server shutdown). */
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

  /** The check of every room (the timer's): members that fell behind, and members behind that drained. */
  sweep(): void {
    for (const state of this.rooms.values()) {
      this.sweepRoom(state);
      for (const member of state.behind) this.feed(state, member);
    }
  }

  /** The check of one room: every member on the topic with more than `lag` buffered in Bun is now behind. */
  private sweepRoom(state: RoomState): void {
    this.stats.sweeps++;
    state.sinceSweep = 0;
    for (const member of state.ws.values()) {
      if (!member.subscribed || member.ws.readyState !== 1) continue;
      const buffered = member.ws.getBufferedAmount();
      if (buffered <= this.lag) continue;
      member.subscribed = false;
      member.buffered = buffered;
      member.ws.unsubscribe(member.topic);
      state.listening--;
      state.behind.add(member);
    }
  }

  /** The server's websocket `drain` handler: Bun wrote some of what `ws` had buffered. */
  onDrain(ws: Ws): void {
    const members = this.membersOf.get(ws);
    if (!members) return;
    for (const member of members) {
      if (member.subscribed) continue;
      const state = this.rooms.get(member.topic);
      if (state) this.feed(state, member);
    }
  }

  /**
   * Writes a member's queue once Bun has nothing buffered for it: under one cork (a syscall per
   * ~16 KB), up to the first frame Bun has to buffer; the rest waits for the next drain. With
   * its queue empty and nothing buffered, the member is back on the topic.
   */
  private feed(state: RoomState, member: WsMember): void {
    const ws = member.ws;
    if (ws.readyState !== 1) return;
    member.buffered = ws.getBufferedAmount();
    if (member.buffered > 0) return;
    const queue = member.queue;
    let sent = 0;
    let full = false;
    if (queue.length > 0) {
      ws.cork(() => {
        while (sent < queue.length && !full) {
          // Both messages of the frame, whatever the first answers: a pair is never split.
          const header = ws.send(queue[sent]!);
          const data = ws.send(queue[sent + 1]!);
          sent += 2;
          full = header === -1 || data === -1;
        }
      });
      queue.splice(0, sent);
      member.queuedBytes = 0;
      for (const message of queue) member.queuedBytes += messageBytes(message);
      member.buffered = ws.getBufferedAmount();
    }
    if (full || queue.length > 0 || member.buffered > 0) return;
    member.subscribed = true;
    ws.subscribe(member.topic);
    state.listening++;
    state.behind.delete(member);
  }

  /** Queues a frame for every member behind but the sender, or drops it whole for one that holds too much. */
  private queueBehind(state: RoomState, self: WsMember | undefined, header: string, data: Message): void {
    const bytes = messageBytes(header) + messageBytes(data);
    for (const member of state.behind) {
      if (member === self) continue;
      if (member.buffered + member.queuedBytes + bytes > this.high) {
        this.stats.dropped++;
        continue;
      }
      member.queue.push(header, data);
      member.queuedBytes += bytes;
      this.stats.queued++;
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
    // O(1) JavaScript per frame whatever the number of receivers, plus a queue push per member
    // behind, and one room sweep (a native call per member) every `sweepEvery` frames.
    if (++state.sinceSweep >= this.sweepEvery) this.sweepRoom(state);
    const self = state.ws.get(from.id);
    const others = state.listening - (self?.subscribed ? 1 : 0);
    const behind = state.behind.size - (self && !self.subscribed ? 1 : 0);
    if (others > 0 || behind > 0) {
      const header = this.header(from.id, frame, senderUserId);
      const data = frame.pcm as Message;
      if (others > 0) {
        const senderWs = wsOf(from);
        if (senderWs) {
          senderWs.publish(topic, header);
          senderWs.publish(topic, data);
        } else if (this.bunServer) {
          // The sender is not subscribed (it is not on a websocket), so nobody is skipped.
          this.bunServer.publish(topic, header, false);
          this.bunServer.publish(topic, data, false);
        }
        this.stats.published++;
      }
      if (behind > 0) this.queueBehind(state, self, header, data);
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
    if (!state) this.rooms.set(room, (state = { ws: new Map(), polling: new Set(), listening: 0, behind: new Set(), sinceSweep: 0 }));
    this.startSweep();
    let mine = this.roomsOf.get(id);
    if (!mine) this.roomsOf.set(id, (mine = new Set()));
    mine.add(room);
    this.installReader(socket);
    const ws = wsOf(socket);
    if (ws) {
      if (!state.ws.has(id)) this.addWsMember(state, id, ws, room);
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
      } else state.behind.delete(member);
      member.queue = [];
      const others = this.membersOf.get(member.ws)?.filter((m) => m !== member) ?? [];
      if (others.length > 0) this.membersOf.set(member.ws, others);
      else this.membersOf.delete(member.ws);
    }
    state.polling.delete(id);
    if (state.ws.size === 0 && state.polling.size === 0) this.rooms.delete(room);
    if (this.rooms.size === 0) this.stopSweep();
  }

  /** A websocket member joins the room's topic. */
  private addWsMember(state: RoomState, id: string, ws: Ws, topic: string): void {
    const member: WsMember = { ws, topic, subscribed: true, queue: [], queuedBytes: 0, buffered: 0 };
    ws.subscribe(topic);
    state.ws.set(id, member);
    state.listening++;
    this.membersOf.set(ws, [...(this.membersOf.get(ws) ?? []), member]);
  }

  /** The fast read path for a socket's frames while it is in a voice room (FastAudioReader). */
  private installReader(socket: RelaySocket): void {
    if (this.readers.has(socket.id)) return;
    const client = (socket as unknown as { client?: IoClient }).client;
    const conn = socket.conn as unknown as EngineConn | undefined;
    if (!client || typeof client.ondata !== "function" || !client.decoder || !conn) return;
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
        this.addWsMember(state, socket.id, ws, room);
      }
    });
  }
}

/** Installed forwarders by namespace, and the ones switched on. */
const installed = new WeakMap<object, NativeAudioRelay>();
const relays = new WeakMap<object, NativeAudioRelay>();

/**
 * Installs the tuned forwarder on `io`'s main namespace; `deliverFrame` uses it from then
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
 * Switches `deliverFrame` between the tuned forwarder and the standard emit path (the bench
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
