import type { Server as Engine } from "@socket.io/bun-engine";
import type { Server as BunServer } from "bun";
import { ApiError } from "../domain/shared/errors.ts";
import { readBodyCapped } from "../http/body.ts";
import type { PendingSessions } from "./pending-sessions.ts";

/**
 * The gateway's HTTP entry, in front of the engine (docs/gateway.md, "Limits").
 *
 * The engine's long-polling transport reads a POST body whole (`req.text()`) before its own
 * size check, so a client without a token could make the server hold any body Bun accepts
 * (hundreds of MB) per request. Here a POST is refused with 413 from its `Content-Length`
 * before anything is read when that is over the gateway's packet limit, and a body without
 * one (chunked) is read up to the limit and cut off past it, as the REST routes do
 * (src/http/body.ts). One POST at a time per session, as engine.io itself requires: a second
 * one while the first is being read is refused with 400. A handshake (a GET without `sid`)
 * is refused with 429 while its address has too many sessions waiting for their Socket.IO
 * connect (`pending`, src/gateway/pending-sessions.ts).
 */
export function guardedGatewayHandler(engine: Engine, maxBytes: number, pending?: PendingSessions) {
  const tooLarge = () =>
    Response.json({ error: `Gateway payload too large: the limit is ${maxBytes} bytes` }, { status: 413, headers: { connection: "close" } });
  /** Sessions with a POST being read. */
  const posting = new Set<string>();

  return async function handleGatewayRequest(request: Request, server: BunServer<unknown>): Promise<Response> {
    if (request.method !== "POST") {
      // The engine's own test for a handshake: no `sid`, or an empty one.
      if (!pending || request.method !== "GET" || new URL(request.url).searchParams.get("sid")) return engine.handleRequest(request, server);
      const refused = pending.admit(request, server);
      if (refused) return refused;
      try {
        return await engine.handleRequest(request, server);
      } finally {
        pending.answered(request);
      }
    }
    const length = request.headers.get("content-length");
    if (length !== null && Number(length) > maxBytes) return tooLarge();
    const sid = new URL(request.url).searchParams.get("sid");
    // No session: the engine refuses it (a handshake is a GET) without reading the body.
    if (!sid) return engine.handleRequest(request, server);
    if (posting.has(sid)) return Response.json({ error: "Another POST of this session is in progress" }, { status: 400 });
    posting.add(sid);
    try {
      // With a Content-Length within the limit, the body cannot be longer.
      if (length !== null) return await engine.handleRequest(request, server);
      let body: Uint8Array;
      try {
        body = await readBodyCapped(request, maxBytes, undefined, 0);
      } catch (error) {
        // Past the limit; anything else is a client that went away mid-body.
        if (error instanceof ApiError) return tooLarge();
        return Response.json({ error: "The request body could not be read" }, { status: 400 });
      }
      const buffered = new Request(request.url, { method: "POST", headers: request.headers, body, signal: request.signal });
      return await engine.handleRequest(buffered, server);
    } finally {
      posting.delete(sid);
    }
  };
}
