import { Server as Engine } from "@socket.io/bun-engine";
import { Server, type ServerOptions } from "socket.io";
import type { Domain } from "../domain/domain.ts";
import { rooms } from "../domain/shared/events.ts";
import type { Logger } from "../log.ts";
import { listenAll, sharedListeners, type ClientEventTable } from "./ack.ts";
import { presenceEvents } from "./handlers/presence.ts";
import { followAgain, roomEvents } from "./handlers/rooms.ts";
import { installPresenceCleanup } from "./presence-subscriptions.ts";
import { typingEvents } from "./handlers/typing.ts";
import { dmEvents } from "./handlers/dms.ts";
import { botEvents } from "./handlers/bots.ts";
import { voiceEvents } from "./handlers/voice.ts";
import { audioEvents } from "./handlers/audio.ts";
import { dmCallEvents } from "./handlers/dm-calls.ts";
import { installNativeAudioRelay, type NativeAudioRelay } from "../audio/native-relay.ts";
import { installNativeFanout, type NativeFanout } from "./native-fanout.ts";
import { resumableAdapter } from "./resumable-adapter.ts";
import { installResume, recoveryOptions } from "./resume.ts";
import { whenPublished } from "./stream-order.ts";
import type { EventLimiter } from "./event-limiter.ts";
import { installSlowConsumerGuard } from "./slow-consumers.ts";
import { releaseHandshakeRequests, trimHandshake } from "./handshake-memory.ts";
import type { GatewayServer, GatewaySocket } from "./socket-types.ts";
import { isLinkEvent, isVoiceLinkHandshake, type VoiceRelay } from "./voice-proxy.ts";
import { TokenExpiry } from "./token-expiry.ts";
import { logFailure } from "../store/availability.ts";

/** Cluster mode's voice relay (src/gateway/voice-proxy.ts) and the secret that proves a voice link. */
interface GatewayVoiceRelay {
  relay: VoiceRelay;
  secret: string;
}

/** The largest packet (websocket message or polling POST body) a client may send. */
export const GATEWAY_MAX_PACKET_BYTES = 1e6;

export interface SocketServerOptions {
  /** What may be queued for one socket before it is closed (src/gateway/slow-consumers.ts). */
  maxBufferedBytes: number;
  /**
   * The Socket.IO adapter: in cluster mode the Redis streams adapter (src/cluster/cluster.ts);
   * one node: a ResumableAdapter keeping `resumeBuffer` events.
   */
  adapter?: ServerOptions["adapter"];
  resumeBuffer: number;
  /**
   * How long a session may wait for its Socket.IO connect (a valid token) before it is closed
   * (Socket.IO's `connectTimeout`; src/gateway/pending-sessions.ts).
   */
  handshakeTimeoutMs: number;
}

/** The Socket.IO server on the Bun engine, at the default path. */
export function createSocketServer(options: SocketServerOptions): { io: GatewayServer; engine: Engine; fanout: NativeFanout; audioRelay: NativeAudioRelay } {
  // The adapter is given here, before the native fan-out hooks its local delivery (src/gateway/native-fanout.ts).
  const io: GatewayServer = new Server({
    serveClient: false,
    ...recoveryOptions,
    connectTimeout: options.handshakeTimeoutMs,
    adapter: options.adapter ?? resumableAdapter(options.resumeBuffer),
  });
  const engine = new Engine({ path: "/socket.io/", maxHttpBufferSize: GATEWAY_MAX_PACKET_BYTES });
  io.bind(engine);
  installSlowConsumerGuard(engine, options.maxBufferedBytes);
  // An open connection does not keep its handshake's Request (src/gateway/handshake-memory.ts).
  releaseHandshakeRequests(engine);
  // Audio frames to websocket members go out as a native Bun publish (docs/audio.md).
  const audioRelay = installNativeAudioRelay(io, engine);
  // The adapter's deliveries to this node's sockets go out encoded once, natively (docs/gateway.md).
  const fanout = installNativeFanout(io);
  return { io, engine, fanout, audioRelay };
}

/** Every client event's handler, from each feature's table (the events: client-events.ts). */
export function clientEventHandlers(domain: Domain): ClientEventTable {
  return {
    ...presenceEvents(domain),
    ...roomEvents(domain),
    ...typingEvents(domain),
    ...dmEvents(domain),
    ...botEvents(domain),
    ...voiceEvents(domain),
    ...audioEvents(domain),
    ...dmCallEvents(domain),
  };
}

/**
 * Handshake authentication, the connection cap, the personal room, presence, and the client
 * events of each feature, rate-limited by `limiter` (docs/gateway.md, "Limits").
 */
interface AttachedGateway {
  /** Settles once the work started by sockets closing (voice leave, presence) is done: a stop awaits it before closing the database. */
  settled(): Promise<void>;
}

export function attachGateway(io: GatewayServer, domain: Domain, log: Logger, limiter: EventLimiter, voice?: GatewayVoiceRelay): AttachedGateway {
  const tokenExpiry = new TokenExpiry();
  installResume(io, domain, log, limiter);
  // Presence subscriptions of a server go with its room (docs/gateway.md, "Presence").
  installPresenceCleanup(io);
  const closing = new Set<Promise<unknown>>();
  const track = (work: Promise<unknown>) => {
    closing.add(work);
    void work.finally(() => closing.delete(work));
  };
  io.use(async (socket, next) => {
    const token: unknown = socket.handshake.auth?.token;
    try {
      const identity = typeof token === "string" ? await domain.accounts.identify(token) : null;
      if (!identity) return next(new Error("Unauthorized"));
      const { user } = identity;
      // `resume: true`: the client tracks offsets and may resume (src/gateway/resume.ts).
      socket.data = { userId: user.id, username: user.username, isBot: user.is_bot === 1, resume: socket.handshake.auth?.resume === true };
      if (identity.tokenId) socket.data.tokenId = identity.tokenId;
      if (identity.expiresAt !== undefined) socket.data.tokenExpiresAt = identity.expiresAt;
      if (voice && isVoiceLinkHandshake(voice.secret, socket.handshake.auth)) socket.data.voiceLink = true;
      const refused = limiter.handshake(socket);
      if (refused) {
        log.info("gateway handshake refused", { userId: user.id, reason: refused });
        return next(new Error(refused));
      }
      next();
    } catch (error) {
      log.error("gateway handshake failed", { error });
      next(new Error("Unauthorized"));
    }
  });

  // Built once: every socket registers these same listeners (an idle connection holds no closures of its own).
  // In cluster mode, voice events of a room held by another node are relayed there.
  const handlers = clientEventHandlers(domain);
  const table = voice ? voice.relay.wrap(handlers, io, domain.voice) : handlers;
  const listeners = sharedListeners(table, log, limiter, whenPublished(io.of("/").adapter));
  // Events no handler knows are dropped by Socket.IO after decoding; each counts as a refusal,
  // so a flood of them ends in a disconnect like any other (docs/gateway.md, "Limits").
  const known = new Set(listeners.map(([event]) => event));
  function onAnyEvent(this: GatewaySocket, event: unknown) {
    if (typeof event === "string" && known.has(event)) return;
    // The nodes' own events on a voice link are known there (VoiceRelay.serveLink).
    if (this.data.voiceLink && typeof event === "string" && isLinkEvent(event)) return;
    if (!limiter.unknownEvent(this)) return;
    log.warn("gateway socket disconnected: too many events refused", { socketId: this.id, userId: this.data.userId, event: String(event).slice(0, 50) });
    this.disconnect(true);
  }
  function onDisconnect(this: GatewaySocket, reason: string) {
    const { userId } = this.data;
    tokenExpiry.forget(this);
    limiter.disconnected(this);
    voice?.relay.disconnected(this.id);
    log.info("gateway disconnect", { socketId: this.id, userId, reason });
    try {
      domain.dmCalls.socketDisconnected(userId, this.id);
    } catch (error) {
      log.error("dm call leave failed", { error });
    }
    track(domain.voice.leave(this.id).catch((error) => log.error("voice leave failed", { error })));
    if (this.data.voiceLink) return;
    track(domain.presence.socketDisconnected(userId).catch(logFailure(log, "presence update failed")));
  }

  io.on("connection", (socket) => {
    const { userId } = socket.data;
    const transport = socket.conn.transport.name;
    log.info("gateway connect", { socketId: socket.id, userId, bot: socket.data.isBot, transport, resumed: socket.recovered });
    limiter.connected(socket);
    tokenExpiry.watch(socket, socket.data.tokenExpiresAt);
    // A voice link joins no shared room and is no presence: its events are its client's voice only.
    if (!socket.data.voiceLink) {
      void socket.join(rooms.user(userId));
      void domain.presence.socketConnected(userId).catch(logFailure(log, "presence update failed"));
      domain.callRings.socketConnected(userId, socket.id);
    }
    listenAll(socket, listeners);
    // What the other nodes ask of this one over a voice link (joins across homes, moves).
    if (socket.data.voiceLink) voice?.relay.serveLink(socket);
    // A resumed socket that follows servers or channels joins those added while it was away.
    if (socket.recovered) void followAgain(domain, socket).catch((error) => log.error("gateway resume: following again failed", { error }));
    socket.onAny(onAnyEvent);
    socket.on("disconnect", onDisconnect);
    // After the missed events (a restored socket got them when it was built); stored too, so a
    // resumable client has an offset from its first connect on.
    if (socket.data.resume) socket.emit("session:ready", { resumed: socket.recovered });
    // What the handshake told is in socket.data now; its request copy goes (cluster mode keeps
    // `auth`: the voice relay links with the client's token).
    trimHandshake(socket, voice !== undefined);
  });

  return {
    async settled() {
      while (closing.size > 0) await Promise.allSettled([...closing]);
    },
  };
}
