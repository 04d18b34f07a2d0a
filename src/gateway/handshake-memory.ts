import type { Server as Engine } from "@socket.io/bun-engine";
import { engineCloseListener, engineSessions, replaceRequestRecord } from "./bun-engine-internals.ts";

/**
 * Lets an idle connection's handshake `Request` go (docs/gateway.md, "Memory per connection").
 *
 * @socket.io/bun-engine (0.1.2) registers, per new session, `socket.once("close", ...)` inside
 * its async `handshake(req, server, url, responseHeaders)`: that arrow function keeps the
 * whole async frame alive, so every open connection retained its upgrade `Request`, the
 * parsed `URL` and its `URLSearchParams`, the request's and the response's `Headers` (the
 * heap snapshot's retainer path: Request <- `req` of a lexical environment <- that
 * listener). The listener only removes the session from the engine's `clients` map on close;
 * here it is swapped, as the session opens, for one function shared by every socket that
 * does the same. What Socket.IO keeps for `socket.handshake` (a plain copy of the headers,
 * the URL string and the query) goes once the socket is connected: `trimHandshake` below.
 */
interface EngineSocketLike {
  id: string;
  off(event: "close", listener: (...args: unknown[]) => void): unknown;
  on(event: "close", listener: (this: EngineSocketLike) => void): unknown;
}

export function releaseHandshakeRequests(engine: Engine): void {
  const clients = engineSessions(engine);
  if (!clients) return;
  // Removes itself, as the engine's `once` wrapper did (without a wrapper closure per socket).
  function dropClient(this: EngineSocketLike) {
    this.off("close", dropClient);
    clients!.delete(this.id);
  }
  engine.on("connection", (engineSocket: unknown) => {
    const socket = engineSocket as EngineSocketLike;
    if (clients.get(socket.id) !== socket) return;
    // Registered just before "connection" is emitted.
    const first = engineCloseListener(socket);
    if (!first) return;
    socket.off("close", first);
    socket.on("close", dropClient);
  });
}

/** One frozen empty object shared by every trimmed handshake's `headers`, `query` (and `auth`). */
const NOTHING: Readonly<Record<string, never>> = Object.freeze({});

/** `time` as Socket.IO builds it (`new Date() + ""`), from `issued`. */
function handshakeTime(this: { issued: number }): string {
  return new Date(this.issued).toString();
}

/**
 * What `socket.handshake` keeps once the socket is connected: the fields Socket.IO documents,
 * with the request's header copy, query copy and (unless kept) `auth` replaced by one shared
 * empty object. `time` is built from `issued` when read (an own enumerable getter, so a copy
 * of the object, as the cluster adapter makes for `fetchSockets`, has it too).
 */
class TrimmedHandshake {
  readonly headers = NOTHING;
  readonly query = NOTHING;
  declare readonly time: string;
  constructor(
    readonly address: string,
    readonly xdomain: boolean,
    readonly secure: boolean,
    readonly issued: number,
    readonly url: string,
    readonly auth: Readonly<Record<string, unknown>>,
  ) {
    Object.defineProperty(this, "time", { get: handshakeTime, enumerable: true });
  }
}

interface TrimmableSocket {
  handshake: { address: string; xdomain: boolean; secure: boolean; issued: number; url: string; auth: Record<string, unknown> };
  conn: unknown;
}

/**
 * Lets a connected socket's copy of its handshake request go (docs/gateway.md, "Memory per
 * connection"): the gateway reads the token and the resume flag in its handshake middleware and
 * keeps what it needs in `socket.data`, so the header copy (a browser sends a kilobyte or more),
 * the query copy and the engine's request record are dropped, and `auth` too unless `keepAuth`
 * (cluster mode: the voice relay opens links with the client's token, src/gateway/voice-proxy.ts).
 */
export function trimHandshake(socket: TrimmableSocket, keepAuth: boolean): void {
  const h = socket.handshake;
  socket.handshake = new TrimmedHandshake(h.address, h.xdomain, h.secure, h.issued, h.url, keepAuth ? h.auth : NOTHING);
  replaceRequestRecord(socket.conn, (request) => ({ url: request.url, headers: NOTHING, _query: NOTHING, connection: request.connection }));
}
