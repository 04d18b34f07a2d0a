import type { Server } from "socket.io";
import { rooms, type EventBus, type GatewayEventName, type GatewayPayload, type RoomSocket } from "../domain/shared/events.ts";
import type { SocketData } from "./socket-types.ts";

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
