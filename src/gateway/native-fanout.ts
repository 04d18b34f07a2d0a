import type { Server as BunServer, ServerWebSocket } from "bun";
import type { Server as IoServer, Socket as IoSocket } from "socket.io";
import type { BroadcastOptions } from "socket.io-adapter";
import { bunWebsocketOf } from "./bun-engine-internals.ts";
import { takeOverLocalDelivery, type EventPacket, type PacketOptions } from "./socket-io-adapter-internals.ts";

/**
 * Native local delivery of the Socket.IO adapter's broadcasts (docs/gateway.md, "Delivery").
 *
 * Every broadcast goes through the adapter (`io.to(rooms).except(...).emit`), which gives it its
 * resume offset (src/gateway/resumable-adapter.ts on one node; the Redis stream id in cluster
 * mode) and, in cluster mode, sends it to the other nodes. Whatever the adapter class, its
 * delivery to this node's own sockets ends in socket.io-adapter's `Adapter.broadcast`, which
 * encodes the packet (`this._encode`) and then loops over the receivers (`this.apply`): the
 * cluster adapter's own broadcast and the broadcasts it reads from Redis alike. This module
 * takes those two steps over on the adapter instance (src/gateway/socket-io-adapter-internals.ts). The packet is encoded once as the
 * Engine.IO/Socket.IO text frame `42["event",{...},"offset"]` and handed to Bun:
 *   - one room, nobody excepted (the common case: a channel, a server, a user, one socket): one
 *     native `server.publish` per Bun topic mirroring the room; no JavaScript per receiver;
 *   - several rooms or an `except` list: the receivers are the union of the rooms minus the
 *     excepted rooms' members, each counted once, and each websocket receiver gets the same
 *     encoded string with `ws.send` (no encoding per receiver).
 * Long-polling members (and sockets still upgrading) get the encoded packet written to their
 * engine connection, each member once.
 *
 * Only sockets that asked to resume (`auth.resume`, src/gateway/resume.ts) get the offset as the
 * event's last argument; the others get the frame without it (a client that does not track
 * offsets, e.g. python-socketio, would take it for a second payload). So a room has two Bun
 * topics, `@room` for resumable sockets and `#room` for the others, and a broadcast is
 * published to both (a topic without subscribers costs a lookup).
 *
 * Topics follow the Socket.IO rooms through the adapter's `join-room` / `leave-room` events, so
 * a socket that leaves a room (kick, lost VIEW_CHANNEL) stops receiving at once; a socket that
 * upgrades from polling to websocket is subscribed to all its rooms on the engine's `upgrade`; a
 * resumed socket, whose rooms come back before it is in the namespace, on `connection`. Closed
 * websockets drop their subscriptions in Bun itself.
 *
 * A socket being resumed is *held* (`hold`, src/gateway/resume-catch-up.ts): from the moment it
 * is rebuilt in its rooms until it has been sent what it missed, each broadcast to it is handed
 * to the resume code (encoded, with its offset) instead of being delivered, so none is lost or
 * sent twice between reading the missed events and going live; `release` subscribes it then.
 *
 * Left to the stock loop: packets with an ack id (`broadcastWithAck`) and binary packets (PCM:
 * src/audio/native-relay.ts delivers it natively on its own). `onAnyOutgoing` listeners are not
 * notified of broadcasts (Hearth registers none).
 */

type Ws = ServerWebSocket<unknown>;

/** Bun topics for rooms get prefixes of their own, apart from the audio relay's topics. */
const topicOf = (room: string, resumable: boolean) => (resumable ? `@${room}` : `#${room}`);

/** The socket's Bun websocket when its transport is a websocket, else null (polling). */
export const websocketOf = (socket: IoSocket): Ws | null => bunWebsocketOf(socket.conn);

/** Whether the socket asked for resume offsets (src/gateway/resume.ts sets it from the handshake). */
const isResumable = (socket: IoSocket) => (socket.data as { resume?: boolean } | undefined)?.resume === true;

interface NativeFanoutStats {
  /** Broadcasts published natively to one room's topics. */
  published: number;
  /** Broadcasts delivered receiver by receiver (several rooms, or an except list). */
  sentPerReceiver: number;
  /** Broadcasts that were also written to long-polling members' connections. */
  emittedToPolling: number;
}

/** A broadcast's encoded forms. */
interface Encoded {
  /** The Socket.IO packet text with the offset, if it has one (`2[...]`), and without it. */
  full: string;
  plain: string;
  /** The resume offset the adapter gave the packet, null when it has none. */
  offset: string | null;
  packetOpts: PacketOptions;
}
/** Where a held socket's broadcasts go instead (the Engine.IO text frame is "4" + `full`). */
type HeldDelivery = (offset: string | null, full: string, packetOpts: PacketOptions) => void;
interface Held {
  socket: IoSocket;
  deliver: HeldDelivery;
}
interface Connection {
  write(packet: string, opts: PacketOptions): void;
  on(event: "upgrade", cb: () => void): void;
}

export class NativeFanout {
  readonly stats: NativeFanoutStats = { published: 0, sentPerReceiver: 0, emittedToPolling: 0 };
  /** Long-polling members of each room, by socket id. */
  private readonly polling = new Map<string, Set<string>>();
  private readonly watched = new WeakSet<object>();
  /** Sockets being resumed, by id: their broadcasts go to the resume code. */
  private readonly held = new Map<string, Held>();
  private server: BunServer<unknown> | null = null;
  /** The adapter's rooms (room -> socket ids). */
  private readonly rooms: Map<string, Set<string>>;
  /** Off: broadcasts are written receiver by receiver to each connection, as Socket.IO does (the bench's "stock"). */
  enabled = true;

  constructor(private readonly io: IoServer) {
    const nsp = io.of("/");
    const adapter = nsp.adapter;
    this.rooms = adapter.rooms;
    adapter.on("join-room", (room: string, id: string) => this.onJoin(room, id));
    adapter.on("leave-room", (room: string, id: string) => this.onLeave(room, id));
    nsp.on("connection", (socket: IoSocket) => {
      if (socket.recovered && !this.held.has(socket.id)) this.adopt(socket);
    });
    takeOverLocalDelivery(adapter, {
      takes: textPacket,
      deliver: (opts, packet, text, packetOpts) => this.deliver(opts, withAndWithoutOffset(packet, text, packetOpts)),
    });
  }

  /** The Bun server to publish on; until it is known, broadcasts are written receiver by receiver. */
  setServer(server: BunServer<unknown>): void {
    this.server = server;
  }

  /**
   * From now until `release`, broadcasts to `socket` (a resumed socket, rebuilt in its rooms but
   * not live yet) are handed to `deliver` rather than sent. Ack and binary packets (never
   * stored for replay) are left to the stock delivery.
   */
  hold(socket: IoSocket, deliver: HeldDelivery): void {
    this.held.set(socket.id, { socket, deliver });
  }

  /** The held socket of this id, if one is held (it is in its rooms but not in the namespace yet). */
  heldSocket(id: string): IoSocket | undefined {
    return this.held.get(id)?.socket;
  }

  /** Ends the hold: a socket that is connected is subscribed to its rooms (delivered natively from now on). */
  release(socket: IoSocket): void {
    if (this.held.get(socket.id)?.socket !== socket) return;
    this.held.delete(socket.id);
    if (this.io.of("/").sockets.get(socket.id) === socket) this.adopt(socket);
  }

  /** Long-polling members of a room (for tests). */
  pollingMembers(room: string): string[] {
    return [...(this.polling.get(room) ?? [])];
  }

  private deliver(opts: BroadcastOptions, encoded: Encoded): void {
    const server = this.server;
    const except = opts.except ?? new Set<string>();
    if (this.held.size > 0) this.toHeld(opts, except, encoded);
    if (this.enabled && server && opts.rooms.size === 1 && except.size === 0) {
      const [room] = opts.rooms as Set<string>;
      server.publish(topicOf(room!, false), "4" + encoded.plain);
      server.publish(topicOf(room!, true), "4" + encoded.full);
      this.stats.published++;
      const polling = this.polling.get(room!);
      if (polling && polling.size > 0) this.writeTo(polling, encoded);
      return;
    }
    const sockets = this.io.of("/").sockets;
    const excluded = new Set<string>();
    for (const room of except) for (const id of this.rooms.get(room) ?? []) excluded.add(id);
    const receivers = opts.rooms.size > 0 ? union(this.rooms, opts.rooms) : new Set(sockets.keys());
    const native = this.enabled && server !== null;
    const full = "4" + encoded.full;
    const plain = "4" + encoded.plain;
    const pollingTargets: string[] = [];
    for (const id of receivers) {
      if (excluded.has(id) || this.held.has(id)) continue;
      const socket = sockets.get(id);
      if (!socket) continue;
      const ws = native ? websocketOf(socket) : null;
      if (ws) ws.send(isResumable(socket) ? full : plain);
      else if (native) pollingTargets.push(id);
      else write(socket, encoded);
    }
    this.stats.sentPerReceiver++;
    if (pollingTargets.length > 0) this.writeTo(pollingTargets, encoded);
  }

  /** Hands the packet to each held socket it is for (a held socket has no topic and is in no polling set). */
  private toHeld(opts: BroadcastOptions, except: Set<string>, encoded: Encoded): void {
    const inAny = (rooms: Set<string>, id: string) => {
      for (const room of rooms) if (this.rooms.get(room)?.has(id)) return true;
      return false;
    };
    for (const [id, held] of this.held) {
      if ((opts.rooms.size > 0 && !inAny(opts.rooms, id)) || inAny(except, id)) continue;
      held.deliver(encoded.offset, encoded.full, encoded.packetOpts);
    }
  }

  /** The encoded packet, written to each given socket's engine connection. */
  private writeTo(socketIds: Iterable<string>, encoded: Encoded): void {
    const sockets = this.io.of("/").sockets;
    for (const id of socketIds) {
      const socket = sockets.get(id);
      if (socket) write(socket, encoded);
    }
    this.stats.emittedToPolling++;
  }

  private onJoin(room: string, id: string): void {
    // A held socket is subscribed to all its rooms when released.
    if (this.held.has(id)) return;
    const socket = this.io.of("/").sockets.get(id);
    if (socket) this.subscribe(socket, room);
  }

  private subscribe(socket: IoSocket, room: string): void {
    const ws = websocketOf(socket);
    if (ws) {
      ws.subscribe(topicOf(room, isResumable(socket)));
      return;
    }
    let members = this.polling.get(room);
    if (!members) this.polling.set(room, (members = new Set()));
    members.add(socket.id);
    this.watchUpgrade(socket);
  }

  /** A resumed socket got its rooms back before it was in the namespace: subscribe it now. */
  private adopt(socket: IoSocket): void {
    for (const room of socket.rooms) this.subscribe(socket, room);
  }

  private onLeave(room: string, id: string): void {
    const members = this.polling.get(room);
    if (members?.delete(id)) {
      if (members.size === 0) this.polling.delete(room);
      return;
    }
    const socket = this.io.of("/").sockets.get(id);
    const ws = socket ? websocketOf(socket) : null;
    if (ws) ws.unsubscribe(topicOf(room, isResumable(socket!)));
  }

  /** A polling socket that upgrades moves to native delivery for all of its rooms. */
  private watchUpgrade(socket: IoSocket): void {
    const conn = socket.conn as unknown as Connection;
    if (this.watched.has(conn)) return;
    this.watched.add(conn);
    conn.on("upgrade", () => {
      const ws = websocketOf(socket);
      if (!ws) return;
      for (const room of socket.rooms) {
        const members = this.polling.get(room);
        if (!members?.delete(socket.id)) continue;
        if (members.size === 0) this.polling.delete(room);
        ws.subscribe(topicOf(room, isResumable(socket)));
      }
    });
  }
}

/** An event without an ack id: Hearth's broadcasts and direct emits. */
const textPacket = (packet: EventPacket) => packet.type === 2 && packet.id === undefined;

/**
 * Every gateway event has exactly one payload argument (SERVER_EVENTS), so a third element is
 * the offset the adapter appended: `2["e",{...},"off"]` loses `,"off"` for the plain form.
 */
function withAndWithoutOffset(packet: EventPacket, full: string, packetOpts: PacketOptions): Encoded {
  const last = packet.data[packet.data.length - 1];
  if (packet.data.length < 3 || typeof last !== "string") return { full, plain: full, offset: null, packetOpts };
  return { full, plain: full.slice(0, full.length - JSON.stringify(last).length - 2) + "]", offset: last, packetOpts };
}

function write(socket: IoSocket, encoded: Encoded): void {
  (socket.conn as unknown as Connection).write(isResumable(socket) ? encoded.full : encoded.plain, encoded.packetOpts);
}

function union(rooms: Map<string, Set<string>>, names: Set<string>): Set<string> {
  if (names.size === 1) {
    const [name] = names;
    return rooms.get(name!) ?? new Set();
  }
  const ids = new Set<string>();
  for (const name of names) for (const id of rooms.get(name) ?? []) ids.add(id);
  return ids;
}

const installed = new WeakMap<object, NativeFanout>();

/** Installs native local delivery on `io`'s main namespace adapter (createSocketServer does). */
export function installNativeFanout(io: IoServer): NativeFanout {
  const fanout = new NativeFanout(io);
  installed.set(io.of("/"), fanout);
  return fanout;
}

export function nativeFanoutOf(io: IoServer): NativeFanout | undefined {
  return installed.get(io.of("/"));
}

/**
 * Switches local delivery between native fan-out and writing to each receiver's connection as
 * Socket.IO does (the bench compares both on the same connections). Membership tracking goes on
 * while it is off.
 */
export function setNativeFanoutEnabled(io: IoServer, enabled: boolean): void {
  const fanout = installed.get(io.of("/"));
  if (fanout) fanout.enabled = enabled;
}
