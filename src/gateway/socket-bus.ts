import type { Server } from "socket.io";
import type { EventBus, GatewayEventName, GatewayPayload } from "../domain/shared/events.ts";

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

  addToRoom(selector: string, room: string): void {
    this.io.in(selector).socketsJoin(room);
  }

  removeFromRoom(selector: string, room: string): void {
    this.io.in(selector).socketsLeave(room);
  }

  disconnect(selector: string): void {
    this.io.in(selector).disconnectSockets(true);
  }

  async usersIn(room: string): Promise<string[]> {
    // fetchSockets also answers for other nodes once a cluster adapter is installed.
    const sockets = await this.io.in(room).fetchSockets();
    return [...new Set(sockets.map((socket) => (socket.data as { userId: string }).userId))];
  }
}
