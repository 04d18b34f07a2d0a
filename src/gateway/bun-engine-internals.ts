import type { Server as Engine } from "@socket.io/bun-engine";
import type { ServerWebSocket } from "bun";
// Imported, not read at run time, so that the compiled binary (which has no node_modules) carries it.
import bunEnginePackage from "@socket.io/bun-engine/package.json" with { type: "json" };

/**
 * Every use Hearth makes of @socket.io/bun-engine's non-public members, and only here
 * (docs/architecture.md, "Dependency internals"). The package is pinned exactly; each member
 * below has a contract test (test/gateway/bun-engine-internals.test.ts) that names it and the
 * installed version when an upgrade changes it.
 *
 * - `WS.socket` (private): the Bun websocket behind an engine socket's websocket transport.
 *   The native fan-out and the audio relay publish and send on it directly, and the
 *   slow-consumer guard reads its buffered amount.
 * - `Server.clients` (private): the engine's open sessions by id, and the `once("close")`
 *   listener the engine's `handshake` registers on each new session to remove it from there.
 *   That listener is a closure inside an async function, so it keeps the handshake's Request,
 *   URL and Headers alive for the connection's life; `releaseHandshakeRequests`
 *   (src/gateway/handshake-memory.ts) swaps it for one shared function doing the same.
 * - `Socket.request` (readonly in the types): replaced by a record without headers and query
 *   once Socket.IO has read them.
 */

/** The installed version, for the contract tests' messages. */
export const BUN_ENGINE_VERSION = bunEnginePackage.version;

type Ws = ServerWebSocket<unknown>;
type Listener = (...args: unknown[]) => void;

/** What is read of an engine socket (Socket.IO's `socket.conn`). */
interface EngineConnection {
  transport?: { name?: string; socket?: Ws };
}

/** The open Bun websocket of an engine connection on the websocket transport; null otherwise (polling, upgrading, closed). */
export function bunWebsocketOf(conn: unknown): Ws | null {
  const transport = (conn as EngineConnection | undefined)?.transport;
  if (!transport || transport.name !== "websocket") return null;
  const ws = transport.socket;
  return ws && ws.readyState === 1 ? ws : null;
}

/** The engine's open sessions by id (`Server.clients`), or null if it keeps none there. */
export function engineSessions(engine: Engine): Map<string, unknown> | null {
  const clients = (engine as unknown as { clients?: unknown }).clients;
  return clients instanceof Map ? (clients as Map<string, unknown>) : null;
}

interface EngineSession {
  id: string;
  listeners(event: "close"): Listener[];
  off(event: "close", listener: Listener): unknown;
}

/**
 * The engine's own "close" listener of a session that was just opened: the first one, a `once`
 * wrapper (it carries the wrapped function as `fn`); null when the first is anything else.
 */
export function engineCloseListener(session: unknown): Listener | null {
  const [first] = (session as EngineSession).listeners("close");
  return first && typeof (first as { fn?: unknown }).fn === "function" ? first : null;
}

/** An engine socket's handshake request record. */
interface RequestRecord {
  url?: string;
  headers?: unknown;
  _query?: unknown;
  connection?: unknown;
}

/** Replaces an engine socket's request record (`Socket.request`, readonly in the types). */
export function replaceRequestRecord(conn: unknown, record: (old: RequestRecord) => RequestRecord): void {
  const socket = conn as { request?: RequestRecord };
  if (socket.request) socket.request = record(socket.request);
}
