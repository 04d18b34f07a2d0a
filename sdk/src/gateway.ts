/**
 * The gateway connection: typed events (./generated/gateway.ts, from the AsyncAPI document),
 * acks as promises, and a connection that comes back by itself.
 *
 * Reconnecting: after the first connection, any drop that the bot did not ask for (the network,
 * a server restart, `io server disconnect`) is retried with exponential backoff and jitter. Once
 * connected again, the connection joins again the server and channel rooms the bot had joined,
 * runs the resume steps others registered (the voice helper joins its voice channel again, the
 * bot sends its presence and activity again: the server keeps an activity only while the bot is
 * connected), then emits `resumed` with the disconnection window. The connection asks the
 * server to resume (`auth.resume`): after a drop of up to 2 minutes the server replays, in order,
 * the events the bot missed (they reach the listeners before `resumed`, which then says
 * `recovered: true`); when it cannot (`recovered: false`: a longer gap, a server restart, a room
 * lost meanwhile, or a drop the server asked for), the bot fetches what it may have missed over
 * REST (`lastMessageIds`, `rest.messagesSince`; see docs/bots.md). A connection that stayed up
 * but missed events (the server's `session:resync`, after a Redis outage in a cluster) emits
 * `resync` with `lastMessageIds` too, no later than the outage's start, for the same refetch.
 * A refused token (`Unauthorized`) is final: `error` (on a reconnect), then `closed`.
 *
 * Rooms are what the connection wants to be in: joining or leaving while the connection is down
 * is done when it comes back (a resumed session still holds a room left meanwhile, so it is left
 * then). A closed Gateway can connect again: a new session, with the token asked again and no
 * rooms (a web page logs out and in again on the same Gateway).
 *
 * Bulk subscriptions (docs/gateway.md, "Bulk subscriptions"): `subscribeAll()` joins every server
 * of the account and every channel it may view, in one event, and the server keeps the
 * connection in the servers and channels added later; `joinAllChannels(serverId)` does it for one
 * server's channels. Both are subscribed again after a reconnect, as rooms are.
 */
import { io, type Socket } from "socket.io-client";
import { HearthAckError, HearthError } from "./errors.js";
import { EventPacer, type KindLimit } from "./pacing.js";
import type { ClientEvents, ServerEvents } from "./generated/gateway.js";

export interface ReconnectOptions {
  /** First wait after a drop (default 500 ms); each failed try doubles it... */
  initialDelayMs?: number;
  /** ...up to this (default 30 s). */
  maxDelayMs?: number;
  /** Each wait is shortened by up to this fraction at random (default 0.5), so many bots do not come back at once. */
  jitter?: number;
}

export interface GatewayOptions {
  baseUrl: string;
  /** The token; a function is asked at each connection attempt (a web page's session). */
  token: string | (() => string);
  /** `false`: no reconnection (a drop closes the connection). */
  reconnect?: ReconnectOptions | false;
  /**
   * Socket.IO transports (default: WebSocket only; `["websocket", "polling"]` behind proxies that
   * need it: with several, the next is tried when one fails).
   */
  transports?: ("websocket" | "polling")[];
  /** How long an ack may take before the promise fails (default 10 s). */
  ackTimeoutMs?: number;
  /**
   * Retry a first connection that fails too (a page opened while the server is away), with the
   * reconnect backoff: `connect()` then resolves once connected and rejects only on a refused token.
   */
  retryFirstConnection?: boolean;
  /**
   * `false`: `emit()` while the connection is down fails at once (`NOT_CONNECTED`) instead of
   * waiting for it to come back (a person's page says so rather than keep them waiting).
   */
  queueWhileDisconnected?: boolean;
  /**
   * `false`: `emit()` does not wait for the gateway's event limits (docs/gateway.md, "Limits").
   * By default each emit waits for a token of its kind, so a loop of awaited sends is never
   * refused; the limits are the server's defaults until `setLimits()` gives the instance's own.
   */
  pace?: boolean;
}

/** The error of an `emit()` refused at once because the connection is down (`queueWhileDisconnected: false`). */
export const NOT_CONNECTED = "Not connected to the server. Try again in a moment.";

/** The error of an `emit()` after the connection closed for good (`close()`, a refused token, a drop with reconnection off): nothing would ever send it. */
export const CLOSED = "The gateway connection is closed.";
/** An emit that got no ack within `ackTimeoutMs`: it may or may not have been handled. */
export const NO_ANSWER = "no answer in time (the server may not know this event, or the connection is down)";

/** What `resumed` tells the bot. */
export interface ResumedInfo {
  /** When the connection dropped and came back (`Date.now()` values), and the gap in ms. */
  disconnectedAt: number;
  reconnectedAt: number;
  downtimeMs: number;
  /** Socket.IO's reason for the drop (`transport close`, `io server disconnect`, `ping timeout`, ...). */
  reason: string;
  /**
   * True: the server resumed the session and replayed every event sent to the bot while it was
   * away (already delivered to the listeners, in order). False: nothing was replayed; fetch what
   * matters over REST (`lastMessageIds`).
   */
  recovered: boolean;
  /** Connection attempts it took. */
  attempts: number;
  /**
   * For each channel room the bot is in: the last message it received there before the drop
   * (null: none yet). Fetch the gap with `rest.messagesSince(channelId, id)`.
   */
  lastMessageIds: Record<string, string | null>;
  /** Rooms that could not be joined again (kicked, lost VIEW_CHANNEL meanwhile), with the server's reason. */
  lostRooms: { kind: "server" | "channel"; id: string; error: string }[];
}

/** The SDK's own events, beside the server's. */
export interface LifecycleEvents {
  /** Connected for the first time. */
  ready: void;
  /** The connection dropped; the SDK is reconnecting (unless `willReconnect` is false). */
  disconnected: { reason: string; willReconnect: boolean };
  /** Connected again, rooms and state restored. */
  resumed: ResumedInfo;
  /** Closed for good: `stop()`, a refused token, or a drop with reconnection off. */
  closed: { reason: string };
  /**
   * The server says the connection missed events while it stayed connected (`session:resync`:
   * a Redis outage between the nodes of a cluster): fetch what matters over REST, as after a
   * `resumed` with `recovered: false` (`lastMessageIds`, `rest.messagesSince`). Here each id is
   * the last message got in the channel, or a point a little before the outage began if that is
   * earlier: messages got during the outage come again (skip the ids already handled).
   */
  resync: { reason: string; lastMessageIds: Record<string, string | null> };
  /** Something failed that no promise could report (a handler threw, a resume step failed). */
  error: Error;
}

export type GatewayEvents = ServerEvents & LifecycleEvents;
export type GatewayEventName = keyof GatewayEvents;
export type Listener<E extends GatewayEventName> = (payload: GatewayEvents[E]) => unknown;

/**
 * How far before the outage's start a resync fetches from: the nodes' clocks differ a little, and
 * a message whose event could not cross was stored a moment before its node saw Redis go.
 */
export const RESYNC_MARGIN_MS = 2000;

/** The smallest UUIDv7 of `ms` (since the epoch): every message id made at or after it sorts after it. */
export function idAtTime(ms: number): string {
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, "0");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-8000-000000000000`;
}

export type ClientEventName = keyof ClientEvents;
/** The payload argument(s) of a client event: none when it takes no payload. */
export type PayloadArgs<E extends ClientEventName> = ClientEvents[E]["payload"] extends undefined ? [] : [payload: ClientEvents[E]["payload"]];
export type AckOf<E extends ClientEventName> = ClientEvents[E]["ack"];

const SOCKET_EVENTS = new Set(["connect", "disconnect", "connect_error"]);
const LIFECYCLE: ReadonlySet<string> = new Set<keyof LifecycleEvents>(["ready", "disconnected", "resumed", "closed", "resync", "error"]);

type AnyListener = (payload: unknown) => unknown;

export class Gateway {
  private current: Socket;
  private readonly options: GatewayOptions;
  private readonly listeners = new Map<string, Set<AnyListener>>();
  private readonly servers = new Set<string>();
  private readonly channels = new Map<string, string | null>();
  /** `subscribeAll()`: every server (and, with `channels`, every channel), followed by the server. */
  private everything: { channels: boolean } | null = null;
  /** `joinAllChannels(serverId)`: servers whose channels are all followed. */
  private readonly allChannelsOf = new Set<string>();
  /** Channel rooms joined through a bulk subscription (its acks, and channels it joined later), with their last message. */
  private readonly followedChannels = new Map<string, string | null>();
  /** Rooms left while the connection was down: a resumed session still holds them. */
  private readonly leftWhileAway = { servers: new Set<string>(), channels: new Set<string>(), everything: false, allChannelsOf: new Set<string>() };
  private readonly resumeSteps: { name: string; run: () => Promise<void> }[] = [];
  private state: "idle" | "connecting" | "connected" | "reconnecting" | "closed" = "idle";
  private everConnected = false;
  private attempts = 0;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private dropped: { at: number; reason: string } | null = null;
  private readonly pacer = new EventPacer();

  constructor(options: GatewayOptions) {
    this.options = options;
    this.current = this.newSocket();
  }

  /** The Socket.IO socket of the current session, for anything the typed methods do not cover. */
  get socket(): Socket {
    return this.current;
  }

  private newSocket(): Socket {
    const { token, transports = ["websocket"] } = this.options;
    const socket = io(this.options.baseUrl, {
      // `resume`: the server adds offsets to its events and keeps the session when the connection drops.
      auth: (send) => send({ token: typeof token === "function" ? token() : token, resume: true }),
      transports,
      tryAllTransports: transports.length > 1,
      reconnection: false,
      autoConnect: false,
      forceNew: true,
    });
    socket.on("connect", () => void this.onConnect());
    socket.on("disconnect", (reason) => this.onDisconnect(reason));
    socket.on("connect_error", (error) => this.onConnectError(error));
    // Remember the newest message of each channel room, for `resumed`.
    socket.on("message:new", (message: { id: string; channel_id: string }) => {
      if (this.channels.has(message.channel_id)) this.channels.set(message.channel_id, message.id);
      // A channel the server joined for a bulk subscription (created, or made visible, later).
      else if (this.follows()) this.followedChannels.set(message.channel_id, message.id);
    });
    socket.on("session:resync", (payload: { reason: string; since: number }) => this.fire("resync", { reason: payload.reason, lastMessageIds: this.resyncFrom(payload.since) }));
    socket.onAny((event: string, payload: unknown) => {
      if (!LIFECYCLE.has(event) && !SOCKET_EVENTS.has(event)) this.fire(event as GatewayEventName, payload as never);
    });
    return socket;
  }

  get connected(): boolean {
    return this.state === "connected";
  }

  /**
   * Connects; resolves once connected, rejects on the first failure (a bad token: `Unauthorized`;
   * with `retryFirstConnection`, only that). After `close()`, a new session.
   */
  connect(): Promise<void> {
    if (this.state === "connected") return Promise.resolve();
    if (this.state === "closed") {
      this.current = this.newSocket();
      this.everConnected = false;
      this.dropped = null;
    }
    this.state = "connecting";
    const socket = this.current;
    return new Promise((resolve, reject) => {
      const cleanup = () => {
        socket.off("connect", onConnect);
        socket.off("connect_error", onError);
      };
      const onConnect = () => {
        cleanup();
        resolve();
      };
      const onError = (error: Error) => {
        if (this.state !== "connecting") return cleanup();
        if (this.options.retryFirstConnection && error.message !== "Unauthorized") return this.scheduleRetry();
        cleanup();
        this.close(error.message === "Unauthorized" ? "Unauthorized" : `could not connect: ${error.message}`);
        reject(new HearthError(`could not connect to the gateway: ${error.message}`));
      };
      socket.on("connect", onConnect);
      socket.on("connect_error", onError);
      socket.connect();
    });
  }

  /** Disconnects for good, forgetting the rooms; `connect()` again starts a new session. */
  close(reason = "closed by the bot"): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const wasClosed = this.state === "closed";
    this.state = "closed";
    this.current.disconnect();
    this.servers.clear();
    this.channels.clear();
    this.everything = null;
    this.allChannelsOf.clear();
    this.followedChannels.clear();
    this.forgetLeftWhileAway();
    if (!wasClosed) this.fire("closed", { reason });
  }

  /** Listens to a server event or a lifecycle event; returns a function that stops listening. */
  on<E extends GatewayEventName>(event: E, listener: Listener<E>): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener as AnyListener);
    return () => set.delete(listener as AnyListener);
  }

  /** The next `event` (matching `filter`), as a promise. */
  once<E extends GatewayEventName>(event: E, filter: (payload: GatewayEvents[E]) => boolean = () => true): Promise<GatewayEvents[E]> {
    return new Promise((resolve) => {
      const off = this.on(event, (payload) => {
        if (!filter(payload)) return;
        off();
        resolve(payload);
      });
    });
  }

  /** Emits a client event and waits for its ack; a refusal throws HearthAckError with the server's message. */
  async emit<E extends ClientEventName>(event: E, ...payload: PayloadArgs<E>): Promise<AckOf<E>> {
    if (this.state === "closed") throw new HearthAckError(event, CLOSED);
    if (this.options.queueWhileDisconnected === false && !this.socket.connected) throw new HearthAckError(event, NOT_CONNECTED);
    const paced = this.options.pace === false ? undefined : this.pacer.take(event);
    if (paced) await paced;
    let ack: { ok: boolean; error?: string };
    try {
      ack = await this.socket.timeout(this.options.ackTimeoutMs ?? 10_000).emitWithAck(event, ...payload);
    } catch {
      throw new HearthAckError(event, NO_ANSWER);
    }
    if (!ack.ok) throw new HearthAckError(event, ack.error ?? "refused");
    return ack as AckOf<E>;
  }

  /**
   * The instance's gateway limits (`GET /api/v1/platform/config`, `gateway_limits.kinds`), which
   * `emit()` paces itself by from now on; `Bot.start()` reads and sets them.
   */
  setLimits(kinds: Record<string, KindLimit>): void {
    this.pacer.setLimits(kinds);
  }

  /**
   * Emits without asking for an ack, and without pacing: for real-time streams the caller paces
   * itself (audio frames, 50 a second). `dropWhileDisconnected`: dropped rather than queued while
   * the connection is down (audio frames: a late frame is worse than a lost one). Not Socket.IO's
   * `volatile`, which also drops a packet whenever the previous one is still being written.
   */
  send<E extends ClientEventName>(event: E, payload: ClientEvents[E]["payload"], options: { dropWhileDisconnected?: boolean } = {}): boolean {
    if (options.dropWhileDisconnected && !this.socket.connected) return false;
    this.socket.emit(event, payload);
    return true;
  }

  /**
   * Joins a server's room (its member, role, channel and presence events); joined again after a
   * reconnect. While the connection is down it is joined on return (a refusal then is in
   * `resumed.lostRooms`).
   */
  async joinServer(serverId: string): Promise<void> {
    this.leftWhileAway.servers.delete(serverId);
    if (!this.connected) return void this.servers.add(serverId);
    await this.emit("server:join", serverId);
    this.servers.add(serverId);
  }

  async leaveServer(serverId: string): Promise<void> {
    this.servers.delete(serverId);
    if (!this.connected) return void this.leftWhileAway.servers.add(serverId);
    await this.emit("server:leave", serverId);
  }

  /** Joins a channel's room (`message:*`, `typing:*`); joined again after a reconnect, as servers are. */
  async joinChannel(channelId: string): Promise<void> {
    this.leftWhileAway.channels.delete(channelId);
    if (!this.connected) {
      if (!this.channels.has(channelId)) this.channels.set(channelId, null);
      return;
    }
    await this.emit("channel:join", channelId);
    if (!this.channels.has(channelId)) this.channels.set(channelId, null);
  }

  async leaveChannel(channelId: string): Promise<void> {
    this.channels.delete(channelId);
    if (!this.connected) return void this.leftWhileAway.channels.add(channelId);
    await this.emit("channel:leave", channelId);
  }

  /**
   * Every server of the account, and (unless `channels: false`) every channel it may view in each,
   * in one event (`server:join {servers: "all", channels: "all"}`): the bot receives every
   * message without joining rooms one by one. The server follows for it: servers it joins later,
   * channels created or made visible later are joined, hidden ones left. Subscribed again after
   * every reconnect; while the connection is down, on return (the answer is then empty).
   */
  async subscribeAll(options: { channels?: boolean } = {}): Promise<{ servers: string[]; channels: string[] }> {
    this.everything = { channels: options.channels !== false };
    this.leftWhileAway.everything = false;
    if (!this.connected) return { servers: [], channels: [] };
    return this.emitSubscribeAll(this.everything.channels);
  }

  /** Undoes `subscribeAll()`: follows nothing more and leaves every server room of the account (and their channel rooms, if it had them). */
  async unsubscribeAll(): Promise<void> {
    const channels = this.everything?.channels ?? true;
    this.everything = null;
    if (!this.connected) return void (this.leftWhileAway.everything = true);
    const ack = await this.emit("server:leave", channels ? { servers: "all", channels: "all" } : { servers: "all" });
    if ("channels" in ack) for (const id of ack.channels ?? []) this.followedChannels.delete(id);
  }

  /**
   * Every channel of one server the bot may view, in one event (`channel:join {server_id, channels:
   * "all"}`), and those created or made visible there later; the ids joined. Joined again after a
   * reconnect, as rooms are.
   */
  async joinAllChannels(serverId: string): Promise<string[]> {
    this.allChannelsOf.add(serverId);
    this.leftWhileAway.allChannelsOf.delete(serverId);
    if (!this.connected) return [];
    return this.emitAllChannels(serverId);
  }

  /** Undoes `joinAllChannels(serverId)`: leaves the server's channel rooms and follows them no more. */
  async leaveAllChannels(serverId: string): Promise<void> {
    this.allChannelsOf.delete(serverId);
    if (!this.connected) return void this.leftWhileAway.allChannelsOf.add(serverId);
    const ack = await this.emit("channel:leave", { server_id: serverId, channels: "all" });
    if ("channels" in ack) for (const id of ack.channels) this.followedChannels.delete(id);
  }

  /**
   * The bulk subscriptions the connection keeps (`all`: `subscribeAll()`'s, null when none;
   * `allChannelsOf`: `joinAllChannels()`'s servers) and the channel rooms they have joined as far
   * as the connection has seen (their acks, and the channels messages arrived from).
   */
  subscriptions(): { all: { channels: boolean } | null; allChannelsOf: string[]; channels: string[] } {
    return { all: this.everything, allChannelsOf: [...this.allChannelsOf], channels: [...this.followedChannels.keys()] };
  }

  /** The server and channel rooms the connection keeps (joined one by one; see `subscriptions()` for the bulk ones). */
  rooms(): { servers: string[]; channels: string[] } {
    return { servers: [...this.servers], channels: [...this.channels.keys()] };
  }

  private follows(): boolean {
    return this.everything?.channels === true || this.allChannelsOf.size > 0;
  }

  private async emitSubscribeAll(channels: boolean): Promise<{ servers: string[]; channels: string[] }> {
    const ack = await this.emit("server:join", channels ? { servers: "all", channels: "all" } : { servers: "all" });
    if (!("servers" in ack)) throw new HearthError("server:join {servers: \"all\"} was answered as a single join: is the server older than bulk subscriptions?");
    for (const id of ack.channels ?? []) if (!this.followedChannels.has(id)) this.followedChannels.set(id, null);
    return { servers: ack.servers, channels: ack.channels ?? [] };
  }

  private async emitAllChannels(serverId: string): Promise<string[]> {
    const ack = await this.emit("channel:join", { server_id: serverId, channels: "all" });
    if (!("server_id" in ack)) throw new HearthError("channel:join {server_id, channels: \"all\"} was answered as a single join: is the server older than bulk subscriptions?");
    for (const id of ack.channels) if (!this.followedChannels.has(id)) this.followedChannels.set(id, null);
    return ack.channels;
  }

  private forgetLeftWhileAway(): void {
    this.leftWhileAway.servers.clear();
    this.leftWhileAway.channels.clear();
    this.leftWhileAway.everything = false;
    this.leftWhileAway.allChannelsOf.clear();
  }

  /**
   * Something to do again after each reconnect, before `resumed` (in the order added). Returns
   * a function that removes it.
   */
  onResume(name: string, run: () => Promise<void>): () => void {
    const step = { name, run };
    this.resumeSteps.push(step);
    return () => {
      const index = this.resumeSteps.indexOf(step);
      if (index >= 0) this.resumeSteps.splice(index, 1);
    };
  }

  /** For each channel room the connection is in: the last message it got there (null: none yet). */
  private lastMessageIds(): Record<string, string | null> {
    return { ...Object.fromEntries(this.followedChannels), ...Object.fromEntries(this.channels) };
  }

  /**
   * Where to fetch from after `session:resync`, per channel room: the last message got there, but
   * no later than the outage's start (`since`, less RESYNC_MARGIN_MS). During the outage the
   * connection went on getting its own node's messages, stored after others it missed, so its
   * last one alone would skip those. An id made of a time (message ids are UUIDv7s, ordered by
   * time) is a place to start `messagesSince` from; messages got since then come again.
   */
  private resyncFrom(sinceSeconds: number): Record<string, string | null> {
    const boundary = idAtTime(sinceSeconds * 1000 - RESYNC_MARGIN_MS);
    const from: Record<string, string | null> = {};
    for (const [channelId, last] of Object.entries(this.lastMessageIds())) from[channelId] = last !== null && last < boundary ? last : boundary;
    return from;
  }

  private fire<E extends GatewayEventName>(event: E, payload: GatewayEvents[E]): void {
    for (const listener of [...(this.listeners.get(event) ?? [])]) {
      try {
        const result = listener(payload);
        if (result instanceof Promise) result.catch((error: unknown) => this.reportError(error, event));
      } catch (error) {
        this.reportError(error, event);
      }
    }
  }

  private reportError(error: unknown, where: string): void {
    const wrapped = error instanceof Error ? error : new HearthError(String(error));
    if (where === "error" || !this.listeners.get("error")?.size) {
      // Nobody listens to errors: do not lose it silently.
      console.error(`[hearth-sdk] ${where}:`, wrapped);
      return;
    }
    this.fire("error", wrapped);
  }

  private async onConnect(): Promise<void> {
    this.attempts = 0;
    const first = !this.everConnected;
    this.everConnected = true;
    this.state = "connected";
    const recovered = this.socket.recovered;
    if (recovered) {
      for (const id of this.leftWhileAway.servers) this.socket.emit("server:leave", id);
      for (const id of this.leftWhileAway.channels) this.socket.emit("channel:leave", id);
      if (this.leftWhileAway.everything) this.socket.emit("server:leave", { servers: "all", channels: "all" });
      for (const id of this.leftWhileAway.allChannelsOf) this.socket.emit("channel:leave", { server_id: id, channels: "all" });
    }
    this.forgetLeftWhileAway();
    if (first) {
      // Rooms asked for while connecting.
      const lostRooms = this.servers.size || this.channels.size || this.everything || this.allChannelsOf.size ? await this.joinRooms() : [];
      for (const lost of lostRooms) this.reportError(new HearthError(`could not join ${lost.kind} ${lost.id}: ${lost.error}`), "ready");
      this.fire("ready", undefined);
      return;
    }
    const dropped = this.dropped ?? { at: Date.now(), reason: "unknown" };
    const attempts = this.attemptsUsed;
    this.dropped = null;
    const lastMessageIds = this.lastMessageIds();
    const lostRooms = await this.joinRooms();
    for (const step of [...this.resumeSteps]) {
      try {
        await step.run();
      } catch (error) {
        this.reportError(error instanceof Error ? new HearthError(`resuming (${step.name}): ${error.message}`) : error, "resumed");
      }
    }
    if (!this.connected) return; // dropped again while resuming: the next connect resumes
    const reconnectedAt = Date.now();
    this.fire("resumed", { disconnectedAt: dropped.at, reconnectedAt, downtimeMs: reconnectedAt - dropped.at, reason: dropped.reason, recovered, attempts, lastMessageIds, lostRooms });
  }

  /**
   * Joins every room the connection keeps and subscribes its bulk subscriptions again (joining one
   * the socket is in is a no-op; one event each); those refused are forgotten.
   */
  private async joinRooms(): Promise<ResumedInfo["lostRooms"]> {
    const lostRooms: ResumedInfo["lostRooms"] = [];
    if (this.everything) {
      try {
        await this.emitSubscribeAll(this.everything.channels);
      } catch (error) {
        this.reportError(error, "subscribeAll");
      }
    }
    for (const id of [...this.allChannelsOf]) {
      try {
        await this.emitAllChannels(id);
      } catch (error) {
        this.allChannelsOf.delete(id);
        lostRooms.push({ kind: "server", id, error: error instanceof HearthAckError ? error.error : String(error) });
      }
    }
    for (const id of [...this.servers]) {
      try {
        await this.emit("server:join", id);
      } catch (error) {
        this.servers.delete(id);
        lostRooms.push({ kind: "server", id, error: error instanceof HearthAckError ? error.error : String(error) });
      }
    }
    for (const id of [...this.channels.keys()]) {
      try {
        await this.emit("channel:join", id);
      } catch (error) {
        this.channels.delete(id);
        lostRooms.push({ kind: "channel", id, error: error instanceof HearthAckError ? error.error : String(error) });
      }
    }
    return lostRooms;
  }

  private attemptsUsed = 0;

  private onDisconnect(reason: string): void {
    if (this.state === "closed" || reason === "io client disconnect") return;
    this.dropped ??= { at: Date.now(), reason };
    this.attemptsUsed = 0;
    const willReconnect = this.options.reconnect !== false;
    this.fire("disconnected", { reason, willReconnect });
    if (!willReconnect) return this.close(`disconnected: ${reason}`);
    this.state = "reconnecting";
    this.scheduleRetry();
  }

  private onConnectError(error: Error): void {
    if (this.state !== "reconnecting") return; // the first connect reports through connect()
    if (error.message === "Unauthorized") {
      this.reportError(new HearthError("the gateway refused the token (Unauthorized): not reconnecting"), "connect");
      return this.close("Unauthorized");
    }
    this.scheduleRetry();
  }

  /** The wait before try n (0-based): initial * 2^n, capped, minus up to `jitter` of it at random. */
  static backoff(attempt: number, options: ReconnectOptions = {}, random = Math.random): number {
    const initial = options.initialDelayMs ?? 500;
    const max = options.maxDelayMs ?? 30_000;
    const jitter = options.jitter ?? 0.5;
    const base = Math.min(max, initial * 2 ** attempt);
    return Math.round(base * (1 - jitter * random()));
  }

  private scheduleRetry(): void {
    if (this.retryTimer || this.state === "closed") return;
    const delay = Gateway.backoff(this.attempts++, this.options.reconnect || {});
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (this.state !== "reconnecting" && this.state !== "connecting") return;
      this.attemptsUsed++;
      this.socket.connect();
    }, delay);
  }
}
