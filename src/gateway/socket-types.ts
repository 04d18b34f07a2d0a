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
  /** A voice link opened by another node for one of its clients (src/gateway/voice-proxy.ts). */
  voiceLink?: true;
  /** The token's id (its `jti`), so a logout of that token finds the socket (EventBus.disconnectToken). */
  tokenId?: string;
  /** When that token expires (ms since the epoch): the socket is disconnected then (src/gateway/token-expiry.ts). */
  tokenExpiresAt?: number;
}

export type GatewayServer = Server<ClientToServerEvents, ServerToClientEvents, Record<never, never>, SocketData>;
export type GatewaySocket = Socket<ClientToServerEvents, ServerToClientEvents, Record<never, never>, SocketData>;
