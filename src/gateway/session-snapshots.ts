import type { Session } from "socket.io-adapter";
import type { GatewayServer, GatewaySocket } from "./socket-types.ts";
import { privateSessionIdOf, RESUMABLE_REASONS } from "./socket-io-internals.ts";

/**
 * Session snapshots for cluster mode (docs/gateway.md, "Resume"). Socket.IO saves a session
 * when its socket closes, so a node that dies (SIGKILL, a crash, a lost machine) saves none,
 * and its clients could not resume on another node. Here the sessions of resumable sockets are
 * also written to the adapter's shared store while they are connected: within `SNAPSHOT_MS` of a
 * room change, and all of them every `REFRESH_MS` (the store expires a session 2 minutes after
 * its last write). A socket that closes for a reason Socket.IO does not resume (the server or
 * the client ended it: a revoked token, a flood, a logout) has its snapshot consumed at once, so
 * it cannot be resumed either. One node does not need this: its store dies with it.
 *
 * No state per socket beyond a set of ids changed since the last write; one timer per node.
 */

export const SNAPSHOT_MS = 5_000;
const REFRESH_MS = 60_000;

interface SessionStore {
  /** Resume's filtered persist (./resume.ts): only sessions that asked for resume. */
  persistSession(session: Omit<Session, "missedPackets">): void;
  restoreSession(pid: string, offset: string): Promise<Session>;
  on(event: "join-room" | "leave-room", listener: (room: string, id: string) => void): void;
}

/** Writes one connected socket's session now, when it asked for resume (after a Redis outage: ./outage-recovery.ts). */
export function persistSnapshot(io: GatewayServer, socket: GatewaySocket | undefined): void {
  if (!socket?.connected || !socket.data.resume) return;
  const pid = privateSessionIdOf(socket);
  if (pid) (io.of("/").adapter as unknown as SessionStore).persistSession({ sid: socket.id, pid, rooms: [...socket.rooms], data: socket.data });
}

export function installSessionSnapshots(io: GatewayServer): () => void {
  const nsp = io.of("/");
  const store = nsp.adapter as unknown as SessionStore;
  const changed = new Set<string>();
  const mark = (_room: string, id: string) => void changed.add(id);
  store.on("join-room", mark);
  store.on("leave-room", mark);

  const snapshot = (socket: GatewaySocket | undefined) => persistSnapshot(io, socket);
  let sinceRefresh = 0;
  const timer = setInterval(() => {
    sinceRefresh += SNAPSHOT_MS;
    if (sinceRefresh >= REFRESH_MS) {
      sinceRefresh = 0;
      for (const socket of nsp.sockets.values()) snapshot(socket);
    } else {
      for (const id of changed) snapshot(nsp.sockets.get(id));
    }
    changed.clear();
  }, SNAPSHOT_MS);
  timer.unref();

  // Shared by every socket (no closure per socket).
  function onDisconnect(this: GatewaySocket, reason: string) {
    const pid = privateSessionIdOf(this);
    if (!this.data.resume || !pid || RESUMABLE_REASONS.has(reason)) return;
    // Restoring consumes the stored session (the Redis streams adapter's GETDEL); the offset is none.
    store.restoreSession(pid, "0-0").catch(() => {});
  }
  nsp.on("connection", (socket: GatewaySocket) => {
    if (socket.data.resume) socket.on("disconnect", onDisconnect);
  });
  return () => clearInterval(timer);
}
