import type { Server } from "socket.io";
import type { EventBus, GatewayEventName, GatewayPayload } from "../domain/events.ts";

/** Delivers the domain's events through Socket.IO rooms. */
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
}
