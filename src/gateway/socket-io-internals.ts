import type { Namespace, Socket } from "socket.io";
// Imported, not read at run time, so that the compiled binary (which has no node_modules) carries it.
import socketIoPackage from "socket.io/package.json" with { type: "json" };

/**
 * Every use Hearth makes of socket.io's non-public members (and of the decoder it builds from
 * socket.io-parser), and only here (docs/architecture.md, "Dependency internals"). The
 * package is pinned exactly; each member below has a contract test
 * (test/gateway/socket-io-internals.test.ts) that names it and the installed version when an
 * upgrade changes it.
 *
 * - `Client.ondata` and `Client.decoder.reconstructor` (private): the audio relay's fast read
 *   path takes a voice socket's frames off its engine connection before Socket.IO's decoder,
 *   and hands everything else to `ondata` (src/audio/native-relay.ts).
 * - `Namespace._createSocket` (private): resume checks the token and the rooms before a
 *   session is restored, and sends the missed events itself (src/gateway/resume.ts).
 * - `Socket._cleanup` (private): a restored socket that is refused after all is dropped as
 *   Socket.IO drops one whose middleware failed.
 * - `Socket.packet` (private): a resumed socket's missed events are sent as Socket.IO's
 *   constructor sends a restored session's (src/gateway/resume-catch-up.ts).
 * - `Socket.pid` (private): the session id the adapter stores a resumable session under
 *   (src/gateway/session-snapshots.ts).
 * - `RECOVERABLE_DISCONNECT_REASONS` (not exported): the disconnect reasons after which
 *   Socket.IO keeps a session for resume.
 * - `Server.opts` (private): how long a dropped session is kept
 *   (`connectionStateRecovery.maxDisconnectionDuration`), read by the one-node adapter that
 *   keeps them (src/gateway/resumable-adapter.ts).
 */

/** The installed version, for the contract tests' messages. */
export const SOCKET_IO_VERSION = socketIoPackage.version;

/** The disconnect reasons after which Socket.IO keeps a session (socket.io/dist/socket.js RECOVERABLE_DISCONNECT_REASONS). */
export const RESUMABLE_REASONS: ReadonlySet<string> = new Set(["transport error", "transport close", "forced close", "ping timeout", "server shutting down", "forced server close"]);

/** What the audio relay's read path uses of a socket's Socket.IO Client. */
export interface ClientReader {
  /** The Client's listener of its engine connection's "data" (the same function it registered). */
  readonly ondata: (data: unknown) => void;
  /** Whether the decoder is waiting for a binary packet's attachments. */
  awaitingAttachments(): boolean;
}

interface IoClient {
  ondata?: (data: unknown) => void;
  decoder?: { reconstructor?: unknown };
}

/** The read side of the socket's Client, or null when it does not have the members used. */
export function clientReaderOf(socket: Socket): ClientReader | null {
  const client = (socket as unknown as { client?: IoClient }).client;
  const decoder = client?.decoder;
  if (!client || typeof client.ondata !== "function" || !decoder) return null;
  return { ondata: client.ondata, awaitingAttachments: () => decoder.reconstructor != null };
}

/** Builds the socket of a namespace connect (Socket.IO's own restores any session whose id and offset match). */
type CreateSocket = (client: unknown, auth: Record<string, unknown>) => Promise<Socket>;

/** Replaces how `nsp` builds the socket of a connect (`Namespace._createSocket`). */
export function replaceCreateSocket(nsp: Namespace, create: CreateSocket): void {
  (nsp as unknown as { _createSocket: CreateSocket })._createSocket = create;
}

/** Drops a socket that will not be connected, as Socket.IO does after a failed middleware (`Socket._cleanup`). */
export function discardSocket(socket: Socket): void {
  (socket as unknown as { _cleanup(): void })._cleanup();
}

/** Sends an event packet to this socket alone, as Socket.IO sends a restored session's missed packets (`Socket.packet`). */
export function sendPacket(socket: Socket, packet: { type: number; data: unknown[] }): void {
  (socket as unknown as { packet(packet: { type: number; data: unknown[] }): void }).packet(packet);
}

/** The private session id a resumable session is stored under (`Socket.pid`), if it has one. */
export function privateSessionIdOf(socket: Socket): string | undefined {
  return (socket as unknown as { pid?: string }).pid;
}

/** How long the namespace's server keeps a dropped session for resume (`Server.opts`), if recovery is on. */
export function resumeWindowMsOf(nsp: { server: unknown }): number | undefined {
  const opts = (nsp.server as { opts?: { connectionStateRecovery?: { maxDisconnectionDuration?: unknown } } }).opts;
  const ms = opts?.connectionStateRecovery?.maxDisconnectionDuration;
  return typeof ms === "number" ? ms : undefined;
}
