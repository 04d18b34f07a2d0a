import { Server as Engine } from "@socket.io/bun-engine";
import { Server, type Socket } from "socket.io";
import type { Domain } from "../domain/domain.ts";
import { rooms, type ClientToServerEvents, type ServerToClientEvents } from "../domain/events.ts";
import type { Logger } from "../log.ts";
import { registerPresenceEvents } from "./handlers/presence.ts";
import { registerRoomEvents } from "./handlers/rooms.ts";
import { registerTypingEvents } from "./handlers/typing.ts";
import { registerDmEvents } from "./handlers/dms.ts";
import { registerBotEvents } from "./handlers/bots.ts";
import { registerVoiceEvents } from "./handlers/voice.ts";
import { registerAudioEvents } from "./handlers/audio.ts";
import { registerDmCallEvents } from "./handlers/dm-calls.ts";
import { installNativeAudioRelay } from "../audio/native-relay.ts";
import { installNativeFanout, type NativeFanout } from "./native-fanout.ts";

export interface SocketData {
  userId: string;
  username: string;
  isBot: boolean;
}

export type GatewayServer = Server<ClientToServerEvents, ServerToClientEvents, Record<never, never>, SocketData>;
export type GatewaySocket = Socket<ClientToServerEvents, ServerToClientEvents, Record<never, never>, SocketData>;

/** The Socket.IO server on the Bun engine, at the default path. */
export function createSocketServer(): { io: GatewayServer; engine: Engine; fanout: NativeFanout } {
  const io: GatewayServer = new Server({ serveClient: false });
  const engine = new Engine({ path: "/socket.io/", maxHttpBufferSize: 1e6 });
  io.bind(engine);
  // Audio frames to websocket members go out as a native Bun publish (docs/audio.md).
  installNativeAudioRelay(io, engine);
  // Room broadcasts of gateway events go out encoded once, natively (docs/gateway.md).
  const fanout = installNativeFanout(io);
  return { io, engine, fanout };
}

/** Handshake authentication, the personal room, presence, and the client events of each feature. */
export function attachGateway(io: GatewayServer, domain: Domain, log: Logger): void {
  io.use(async (socket, next) => {
    const token: unknown = socket.handshake.auth?.token;
    try {
      const user = typeof token === "string" ? await domain.accounts.userForToken(token) : null;
      if (!user) return next(new Error("Unauthorized"));
      socket.data = { userId: user.id, username: user.username, isBot: user.is_bot === 1 };
      next();
    } catch (error) {
      log.error("gateway handshake failed", { error });
      next(new Error("Unauthorized"));
    }
  });

  io.on("connection", (socket) => {
    const { userId } = socket.data;
    const transport = socket.conn.transport.name;
    log.info("gateway connect", { socketId: socket.id, userId, bot: socket.data.isBot, transport });
    void socket.join(rooms.user(userId));
    void domain.presence.socketConnected(userId).catch((error) => log.error("presence update failed", { error }));

    registerPresenceEvents(socket, domain, log);
    registerRoomEvents(socket, domain, log);
    registerTypingEvents(socket, domain, log);
    registerDmEvents(socket, domain, log);
    registerBotEvents(socket, domain, log);
    registerVoiceEvents(socket, domain, log);
    registerAudioEvents(socket, domain, log);
    registerDmCallEvents(socket, domain, log);

    socket.on("disconnect", (reason) => {
      log.info("gateway disconnect", { socketId: socket.id, userId, reason });
      void domain.voice.leave(socket.id).catch((error) => log.error("voice leave failed", { error }));
      void domain.presence.socketDisconnected(userId).catch((error) => log.error("presence update failed", { error }));
    });
  });
}
