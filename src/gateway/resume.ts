import { Socket, type ServerOptions } from "socket.io";
import type { Session } from "socket.io-adapter";
import type { Domain } from "../domain/domain.ts";
import type { Logger } from "../log.ts";
import { rooms } from "../domain/shared/events.ts";
import type { EventLimiter } from "./event-limiter.ts";
import { nativeFanoutOf } from "./native-fanout.ts";
import { ResumeCatchUp } from "./resume-catch-up.ts";
import { ResumableAdapter } from "./resumable-adapter.ts";
import { installSessionSnapshots } from "./session-snapshots.ts";
import { installStreamOrder } from "./stream-order.ts";
import { discardSocket, replaceCreateSocket } from "./socket-io-internals.ts";
import type { GatewayServer, SocketData } from "./socket-types.ts";

/**
 * Session resume (docs/gateway.md, "Resume"), on Socket.IO's connection state recovery: a
 * socket that connected with `auth: {token, resume: true}` and drops can reconnect within
 * `RESUME_WINDOW_MS` with the session id and the last offset its client saw (socket.io-client
 * sends both by itself) and gets back its socket id, its rooms, its data and, in order, the
 * events it missed; `socket.recovered` tells the client. The adapter keeps the sessions and
 * the stored broadcasts (src/gateway/resumable-adapter.ts on one node, the Redis stream in
 * cluster mode), so a client may resume on another node.
 *
 * A session is restored only if, at reconnect time:
 *   - the token is still valid (a token revoked or an account disabled meanwhile does not
 *     resume) and belongs to the session's user;
 *   - the user may still be in every server and channel room of the session (a kick, a ban or
 *     a lost VIEW_CHANNEL meanwhile: no resume, the client reloads), and in the servers of its
 *     presence subscriptions and of its bulk subscriptions' markers.
 * Voice rooms are not restored: a dropped socket left its voice channel (the disconnect
 * handler), and the client joins again. These checks run before the socket is built, so a
 * refused session never has a missed event written to it. The missed events are then read
 * again and sent with those broadcast meanwhile, each once (src/gateway/resume-catch-up.ts).
 * In cluster mode sessions are also saved while connected (src/gateway/session-snapshots.ts),
 * for nodes that die.
 */

/** How long a dropped session can be resumed. */
const RESUME_WINDOW_MS = 120_000;

/** Socket.IO options: recovery on; no middleware skipped or run again (the checks are here). */
export const recoveryOptions: Pick<ServerOptions, "connectionStateRecovery"> = {
  connectionStateRecovery: { maxDisconnectionDuration: RESUME_WINDOW_MS, skipMiddlewares: true },
};

interface SessionStore {
  persistSession(session: Omit<Session, "missedPackets">): void;
  restoreSession(pid: string, offset: string): Promise<Session>;
}

/** Installs the resume checks on `io`'s main namespace (attachGateway does). */
export function installResume(io: GatewayServer, domain: Domain, log: Logger, limiter: Pick<EventLimiter, "handshake" | "release">): void {
  const nsp = io.of("/");
  const adapter = nsp.adapter as unknown as SessionStore;
  const persist = adapter.persistSession.bind(adapter);
  // Only sockets that asked for it get offsets, so only theirs can resume.
  adapter.persistSession = (session) => {
    if ((session.data as Partial<SocketData> | undefined)?.resume === true) persist(session);
  };
  // A shared store (cluster mode) also gets each session while it is connected, so a node that dies still leaves them.
  if (!(nsp.adapter instanceof ResumableAdapter)) {
    installSessionSnapshots(io);
    // Each node delivers in stream order, so a client's last offset covers all it has.
    installStreamOrder(nsp.adapter as unknown as Parameters<typeof installStreamOrder>[0]);
  }
  const fanout = nativeFanoutOf(io);
  if (!fanout) throw new Error("installResume needs the native fan-out installed first");
  // Channel events went to the users of the server room checked then; a session away meanwhile was not among them.
  const screen = async (socket: Socket, missed: unknown[][]) => {
    const keep = await domain.members.replayable(socket.data.userId as string, missed.map((packet) => ({ event: packet[0], payload: packet[1] })));
    return keep && missed.filter((_, i) => keep[i]);
  };
  const catchUp = new ResumeCatchUp(io, nsp.adapter as unknown as ConstructorParameters<typeof ResumeCatchUp>[1], persist, fanout, screen);

  /** The session to rebuild (its missed events left to the catch-up) and the client's offset, or null. */
  async function restore(auth: Record<string, unknown>): Promise<{ session: Session; offset: string } | null> {
    const { pid, offset, token } = auth;
    if (typeof pid !== "string" || typeof offset !== "string" || typeof token !== "string") return null;
    const identity = await domain.accounts.identify(token);
    if (!identity) return null;
    const { user } = identity;
    let session: Session | null = null;
    try {
      session = await adapter.restoreSession(pid, offset);
    } catch {
      // Both adapters reject an unknown or expired session, or an offset no longer stored.
    }
    if (!session) return null;
    const data = session.data as Partial<SocketData> | undefined;
    if (data?.userId !== user.id || data.resume !== true) return null;
    const kept = await allowedRooms(domain, user.id, session.sid, session.rooms);
    if (!kept) return null;
    const fresh: SocketData = { userId: user.id, username: user.username, isBot: user.is_bot === 1, resume: true };
    if (identity.tokenId) fresh.tokenId = identity.tokenId;
    if (identity.expiresAt !== undefined) fresh.tokenExpiresAt = identity.expiresAt;
    return { session: { ...session, rooms: kept, data: fresh, missedPackets: [] }, offset };
  }

  // Socket.IO's own `_createSocket` restores any session whose id and offset match; this one
  // checks the token and the rooms first (the middleware is skipped for a restored socket), and
  // sends the missed events itself, after the socket is back in its rooms.
  type Args = ConstructorParameters<typeof Socket>;
  replaceCreateSocket(nsp, async (client, auth) => {
    let restored: { session: Session; offset: string } | null = null;
    try {
      restored = await restore(auth);
    } catch (error) {
      log.error("gateway resume check failed", { error });
    }
    if (restored) {
      const socket = new Socket(nsp as Args[0], client as Args[1], auth, restored.session);
      // The connection cap and refusal strikes, as the (skipped) middleware checks every handshake.
      const refused = limiter.handshake(socket);
      if (refused) {
        discardSocket(socket);
        log.info("gateway resume refused", { socketId: socket.id, userId: socket.data.userId, reason: refused });
      } else {
        if (await catchUp.start(socket, restored.offset)) return socket;
        // The events could not be read again: not resumed after all (the client reloads).
        limiter.release(socket);
        discardSocket(socket);
        log.warn("gateway resume failed: the missed events could not be read", { socketId: socket.id });
      }
    }
    return new Socket(nsp as Args[0], client as Args[1], auth);
  });
}

/**
 * The session's rooms the user may still be in, voice rooms left out; null when one server,
 * channel, presence or marker room is no longer allowed (or the room is of no known kind).
 */
async function allowedRooms(domain: Domain, userId: string, socketId: string, sessionRooms: string[]): Promise<string[] | null> {
  const kept: string[] = [];
  const ownMarkers = new Set([rooms.followServers(userId), rooms.followChannels(userId)]);
  const serverMarker = rooms.followServerChannels("");
  // One membership check per server, however many of its rooms (presence subscriptions: up to 200).
  const memberships = new Map<string, Promise<unknown>>();
  const member = (serverId: string) => {
    let check = memberships.get(serverId);
    if (!check) memberships.set(serverId, (check = domain.access.member(serverId, userId)));
    return check;
  };
  for (const room of sessionRooms) {
    const colon = room.indexOf(":");
    const kind = colon < 0 ? "" : room.slice(0, colon);
    const id = room.slice(colon + 1);
    if (room === socketId || room === rooms.user(userId) || ownMarkers.has(room)) {
      kept.push(room);
      continue;
    }
    if (kind === "voice") continue;
    try {
      if (kind === "server") await member(id);
      else if (kind === "channel") await domain.access.requireChannel(id, userId);
      // presence:<serverId>:<userId> (presence:subscribe): the subscriber still shares that server.
      else if (kind === "presence") await member(id.slice(0, id.indexOf(":")));
      // A bulk subscription's marker of one server (docs/gateway.md, "Bulk subscriptions"); the user's own markers are kept above.
      else if (room.startsWith(serverMarker)) await member(room.slice(serverMarker.length));
      else return null;
    } catch {
      return null;
    }
    kept.push(room);
  }
  return kept;
}
