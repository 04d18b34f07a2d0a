import type { Server, Socket } from "socket.io";
import type { ServerToClientEvents } from "../domain/shared/events.ts";
import type { ClientToServerEvents } from "./client-events.ts";

/** What the handshake stores on every socket: the account behind it. */
export interface SocketData {
  userId: string;
  username: string;
  isBot: boolean;
  /** The client asked for resume offsets (`auth.resume: true`, docs/gateway.md "Resume"). */
  resume: boolean;
}

export type GatewayServer = Server<ClientToServerEvents, ServerToClientEvents, Record<never, never>, SocketData>;
export type GatewaySocket = Socket<ClientToServerEvents, ServerToClientEvents, Record<never, never>, SocketData>;
