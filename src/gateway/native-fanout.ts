import type { Server as BunServer, ServerWebSocket } from "bun";
import type { Server as IoServer, Socket as IoSocket } from "socket.io";

/**
 * Native fan-out of gateway room broadcasts (docs/gateway.md, "Delivery").
 *
 * Socket.IO's own room emit runs a JavaScript loop per receiver (and, on bun-engine, a
 * `ws.send` each). Here a broadcast is encoded once as the Engine.IO/Socket.IO text frame
 * `42["event",{...}]` and handed to Bun:
 *   - one room, nobody excepted (the common case: a channel, a server, a user): one native
 *     `server.publish` to the Bun topic mirroring the room; no JavaScript per receiver;
 *   - several rooms or an `except` list: the receivers are the union of the rooms minus the
 *     excepted rooms' members, each counted once, and each websocket receiver gets the same
 *     encoded string with `ws.send` (no encoding per receiver).
 * Long-polling members (and sockets still upgrading) get the ordinary Socket.IO emit,
 * addressed to them alone, so every member receives the event exactly once.
 *
 * Topics follow the Socket.IO rooms through the adapter's `join-room` / `leave-room` events, so
 * a socket that leaves a room (kick, lost VIEW_CHANNEL) stops receiving at once; a socket that
 * upgrades from polling to websocket is subscribed to all its rooms on the engine's `upgrade`.
 * Closed websockets drop their subscriptions in Bun itself.
 *
 * Payloads are JSON (the typed gateway event map has no binary); PCM frames have their own
 * forwarder (src/audio/native-relay.ts).
 */

type Ws = ServerWebSocket<unknown>;

/** Bun topics for rooms get a prefix of their own, apart from the audio relay's topics. */
const topicOf = (room: string) => `#${room}`;

/** The socket's Bun websocket when its transport is a websocket, else null (polling). */
export function websocketOf(socket: IoSocket): Ws | null {
  const transport = socket.conn?.transport as unknown as { name?: string; socket?: Ws } | undefined;
  if (!transport || transport.name !== "websocket") return null;
  const ws = transport.socket;
  return ws && ws.readyState === 1 ? ws : null;
}

export interface NativeFanoutStats {
  /** Broadcasts published natively to one topic. */
  published: number;
  /** Broadcasts delivered receiver by receiver (several rooms, or an except list). */
  sentPerReceiver: number;
  /** Broadcasts that also went through the Socket.IO emit for long-polling members. */
  emittedToPolling: number;
}

export class NativeFanout {
  readonly stats: NativeFanoutStats = { published: 0, sentPerReceiver: 0, emittedToPolling: 0 };
  /** Long-polling members of each room, by socket id. */
  private readonly polling = new Map<string, Set<string>>();
  private readonly watched = new WeakSet<object>();
  private server: BunServer<unknown> | null = null;
  enabled = true;

  constructor(private readonly io: IoServer) {
    const adapter = io.of("/").adapter;
    adapter.on("join-room", (room: string, id: string) => this.onJoin(room, id));
    adapter.on("leave-room", (room: string, id: string) => this.onLeave(room, id));
  }

  /** The Bun server to publish on; until it is known, broadcasts take the Socket.IO path. */
  setServer(server: BunServer<unknown>): void {
    this.server = server;
  }

  /** Long-polling members of a room (for tests). */
  pollingMembers(room: string): string[] {
    return [...(this.polling.get(room) ?? [])];
  }

  /**
   * Delivers `event` to every socket in `rooms` except those in `except`. False when it
   * cannot (switched off, or no Bun server yet): the caller uses the Socket.IO emit.
   */
  publish(rooms: string[], event: string, payload: unknown, except: string[]): boolean {
    const server = this.server;
    if (!this.enabled || !server) return false;
    const packet = `42${JSON.stringify([event, payload])}`;
    if (rooms.length === 1 && except.length === 0) {
      const room = rooms[0]!;
      server.publish(topicOf(room), packet);
      this.stats.published++;
      const polling = this.polling.get(room);
      if (polling && polling.size > 0) this.emitTo([...polling], event, payload);
      return true;
    }
    const adapterRooms = this.io.of("/").adapter.rooms;
    const excluded = new Set<string>();
    for (const room of except) for (const id of adapterRooms.get(room) ?? []) excluded.add(id);
    const seen = new Set<string>();
    const pollingTargets: string[] = [];
    const sockets = this.io.of("/").sockets;
    for (const room of rooms) {
      for (const id of adapterRooms.get(room) ?? []) {
        if (excluded.has(id) || seen.has(id)) continue;
        seen.add(id);
        const socket = sockets.get(id);
        if (!socket) continue;
        const ws = websocketOf(socket);
        if (ws) ws.send(packet);
        else pollingTargets.push(id);
      }
    }
    this.stats.sentPerReceiver++;
    if (pollingTargets.length > 0) this.emitTo(pollingTargets, event, payload);
    return true;
  }

  /** The Socket.IO emit, to the given sockets only (each socket is in a room named by its id). */
  private emitTo(socketIds: string[], event: string, payload: unknown): void {
    (this.io.to(socketIds) as unknown as { emit(event: string, payload: unknown): void }).emit(event, payload);
    this.stats.emittedToPolling++;
  }

  private onJoin(room: string, id: string): void {
    const socket = this.io.of("/").sockets.get(id);
    if (!socket) return;
    const ws = websocketOf(socket);
    if (ws) {
      ws.subscribe(topicOf(room));
      return;
    }
    let members = this.polling.get(room);
    if (!members) this.polling.set(room, (members = new Set()));
    members.add(id);
    this.watchUpgrade(socket);
  }

  private onLeave(room: string, id: string): void {
    const members = this.polling.get(room);
    if (members?.delete(id)) {
      if (members.size === 0) this.polling.delete(room);
      return;
    }
    const socket = this.io.of("/").sockets.get(id);
    const ws = socket ? websocketOf(socket) : null;
    if (ws) ws.unsubscribe(topicOf(room));
  }

  /** A polling socket that upgrades moves to native delivery for all of its rooms. */
  private watchUpgrade(socket: IoSocket): void {
    const conn = socket.conn as unknown as { on(event: "upgrade", cb: () => void): void };
    if (this.watched.has(conn)) return;
    this.watched.add(conn);
    conn.on("upgrade", () => {
      const ws = websocketOf(socket);
      if (!ws) return;
      for (const room of socket.rooms) {
        const members = this.polling.get(room);
        if (!members?.delete(socket.id)) continue;
        if (members.size === 0) this.polling.delete(room);
        ws.subscribe(topicOf(room));
      }
    });
  }
}

const installed = new WeakMap<object, NativeFanout>();

/** Installs native fan-out on `io`'s main namespace (createSocketServer does). */
export function installNativeFanout(io: IoServer): NativeFanout {
  const fanout = new NativeFanout(io);
  installed.set(io.of("/"), fanout);
  return fanout;
}

export function nativeFanoutOf(io: IoServer): NativeFanout | undefined {
  return installed.get(io.of("/"));
}

/**
 * Switches room broadcasts between native fan-out and the stock Socket.IO emit (the bench
 * compares both on the same connections). Membership tracking goes on while it is off.
 */
export function setNativeFanoutEnabled(io: IoServer, enabled: boolean): void {
  const fanout = installed.get(io.of("/"));
  if (fanout) fanout.enabled = enabled;
}
