import type { Server as Engine } from "@socket.io/bun-engine";

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
 * the URL string and the query) is untouched.
 */
interface EngineSocketLike {
  id: string;
  listeners(event: "close"): ((...args: unknown[]) => void)[];
  off(event: "close", listener: (...args: unknown[]) => void): unknown;
  once(event: "close", listener: (this: EngineSocketLike) => void): unknown;
}

export function releaseHandshakeRequests(engine: Engine): void {
  const clients = (engine as unknown as { clients?: Map<string, unknown> }).clients;
  if (!(clients instanceof Map)) return;
  function dropClient(this: EngineSocketLike) {
    clients!.delete(this.id);
  }
  engine.on("connection", (engineSocket: unknown) => {
    const socket = engineSocket as EngineSocketLike;
    if (clients.get(socket.id) !== socket) return;
    // The engine's own listener is the first "close" listener, a `once` wrapper (with `fn`),
    // registered just before "connection" is emitted.
    const [first] = socket.listeners("close");
    if (!first || typeof (first as { fn?: unknown }).fn !== "function") return;
    socket.off("close", first);
    socket.once("close", dropClient);
  });
}
