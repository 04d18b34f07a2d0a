import type { Server } from "socket.io";
import { rooms, type EventBus, type GatewayEventName, type GatewayPayload, type RoomSocket } from "../domain/shared/events.ts";
import { nativeFanoutOf } from "./native-fanout.ts";
import { ResumableAdapter } from "./resumable-adapter.ts";
import type { SocketData } from "./socket-types.ts";

/** In cluster mode, how many times the users of a room are read again for those who joined meanwhile. */
const SCREEN_ROUNDS = 3;

/**
 * Delivers the domain's events through Socket.IO rooms. Every broadcast goes through the
 * adapter, which gives it its resume offset and, in cluster mode, carries it to the other nodes;
 * each node's own sockets get it natively, encoded once (src/gateway/native-fanout.ts).
 */
export class SocketIoEventBus implements EventBus {
  constructor(private readonly io: Server) {}

  publish<E extends GatewayEventName>(room: string | string[], event: E, payload: GatewayPayload<E>, except: string[] = []): void {
    if (Array.isArray(room) && room.length === 0) return;
    const target = this.io.to(room);
    (except.length ? target.except(except) : target).emit(event, payload);
  }

  async publishScreened<E extends GatewayEventName>(
    room: string,
    event: E,
    payload: GatewayPayload<E>,
    hiddenAmong: (userIds: string[]) => Promise<string[]>,
  ): Promise<void> {
    const asked = new Set<string>();
    const except = new Set<string>();
    const ask = async (userIds: string[]) => {
      for (const id of userIds) asked.add(id);
      for (const id of await hiddenAmong(userIds)) except.add(rooms.user(id));
    };
    /** The users of `room` not asked about yet; this node's sockets whose user is unknown are excepted by their own id. */
    const unasked = (remote: readonly string[]) => {
      const local = this.localUsersIn(room);
      for (const id of local.unknown) except.add(id);
      return [...new Set([...local.users, ...remote])].filter((id) => !asked.has(id));
    };
    if (this.io.of("/").adapter instanceof ResumableAdapter) {
      // One node: the read that finds nobody new and the delivery run in one go, with no await between them.
      for (;;) {
        const fresh = unasked([]);
        if (fresh.length === 0) return this.publish(room, event, payload, [...except]);
        await ask(fresh);
      }
    }
    // Cluster mode: every node's sockets (fetchSockets), read again after each answer.
    for (let round = 0; round < SCREEN_ROUNDS; round++) {
      const fresh = unasked(await this.usersIn(room));
      if (fresh.length === 0) break;
      await ask(fresh);
    }
    this.publish(room, event, payload, [...except]);
  }

  /**
   * The users of this node's sockets in `room`, read synchronously from the adapter's rooms: a
   * resumed socket being caught up (held, src/gateway/native-fanout.ts) is in its rooms before it
   * is in the namespace. `unknown`: socket ids whose user cannot be told.
   */
  private localUsersIn(room: string): { users: Set<string>; unknown: string[] } {
    const nsp = this.io.of("/");
    const fanout = nativeFanoutOf(this.io);
    const users = new Set<string>();
    const unknown: string[] = [];
    for (const id of nsp.adapter.rooms.get(room) ?? []) {
      const socket = nsp.sockets.get(id) ?? fanout?.heldSocket(id);
      const userId = (socket?.data as Partial<SocketData> | undefined)?.userId;
      if (userId) users.add(userId);
      else unknown.push(id);
    }
    return { users, unknown };
  }

  addToRoom(selector: string, room: string | string[]): void {
    if (Array.isArray(room) && room.length === 0) return;
    this.io.in(selector).socketsJoin(room);
  }

  removeFromRoom(selector: string, room: string): void {
    this.io.in(selector).socketsLeave(room);
  }

  disconnect(selector: string): void {
    this.io.in(selector).disconnectSockets(true);
  }

  disconnectToken(userId: string, tokenId: string): void {
    // Through the user's room: fetchSockets reaches every node's sockets once a cluster adapter is installed.
    void this.io
      .in(rooms.user(userId))
      .fetchSockets()
      .then((sockets) => {
        for (const socket of sockets) if ((socket.data as SocketData).tokenId === tokenId) socket.disconnect(true);
      })
      .catch(() => {
        // A node that did not answer in time keeps its sockets until their next handshake, which the revocation refuses.
      });
  }

  async usersIn(room: string): Promise<string[]> {
    // fetchSockets also answers for other nodes once a cluster adapter is installed.
    const sockets = await this.io.in(room).fetchSockets();
    return [...new Set(sockets.map((socket) => (socket.data as { userId: string }).userId))];
  }

  async socketsIn(room: string): Promise<RoomSocket[]> {
    const sockets = await this.io.in(room).fetchSockets();
    return sockets.map((socket) => ({ id: socket.id, userId: (socket.data as SocketData).userId, rooms: socket.rooms }));
  }
}
