import { afterAll, beforeAll, expect, test } from "bun:test";
import { Server as Engine } from "@socket.io/bun-engine";
import { BUN_ENGINE_VERSION, bunWebsocketOf, engineCloseListener, engineSessions } from "../../src/gateway/bun-engine-internals.ts";
import { expectMember } from "../helpers/internals-contract.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

/** src/gateway/bun-engine-internals.ts: each private member of @socket.io/bun-engine it relies on. */
const member = (name: string, holds: boolean, expected: string) => expectMember("@socket.io/bun-engine", BUN_ENGINE_VERSION, name, holds, expected);

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const serverSocketOf = (id: string) => server.app.io.of("/").sockets.get(id)!;

test("WS.socket: a websocket transport holds its Bun websocket; a polling one has none", async () => {
  const user = await server.register();
  const ws = await server.connect(user.token, { transports: ["websocket"] });
  const polling = await server.connect(user.token, { transports: ["polling"] });
  try {
    const conn = serverSocketOf(ws.id!).conn as unknown as { transport: { name: string; socket?: { send?: unknown; subscribe?: unknown; getBufferedAmount?: unknown } } };
    member("WS.socket", typeof conn.transport.socket?.subscribe === "function", "the transport's `socket` field is the Bun ServerWebSocket");
    const found = bunWebsocketOf(conn);
    member("WS.socket", found !== null && typeof found.getBufferedAmount === "function" && typeof found.send === "function", "bunWebsocketOf finds an open Bun websocket");
    expect(bunWebsocketOf(serverSocketOf(polling.id!).conn)).toBeNull();
  } finally {
    ws.close();
    polling.close();
  }
});

test("Server.clients and the engine's own once('close') listener of a new session", async () => {
  // A bare engine: Hearth's own swap (src/gateway/handshake-memory.ts) is not installed on it.
  const engine = new Engine({ path: "/socket.io/" });
  const seen: { id: string; listener: ((...args: unknown[]) => void) | null; inMap: boolean }[] = [];
  engine.on("connection", (session) => {
    seen.push({ id: session.id, listener: engineCloseListener(session), inMap: engineSessions(engine)?.get(session.id) === session });
  });
  const bun = Bun.serve({ port: 0, hostname: "127.0.0.1", ...engine.handler() });
  try {
    member("Server.clients", engineSessions(engine) instanceof Map, "a Map of the open sessions by id");
    const handshake = await fetch(`http://127.0.0.1:${bun.port}/socket.io/?EIO=4&transport=polling`);
    expect(handshake.status).toBe(200);
    expect(seen).toHaveLength(1);
    const [session] = seen;
    member("Server.clients", session!.inMap, "holds a new session under its id when 'connection' is emitted");
    member("Socket 'close' listeners", session!.listener !== null, "the first 'close' listener of a new session is the engine's `once` wrapper, carrying `fn`");
    // What that listener does, and all it does: the session leaves the map.
    session!.listener!("transport close");
    member("the engine's once('close') listener", !engineSessions(engine)!.has(session!.id), "removes the session from Server.clients");
  } finally {
    engine.close();
    await bun.stop(true);
  }
});

test("Socket.request: the handshake's request record, writable, with url, headers, _query and connection", async () => {
  const user = await server.register();
  const client = await server.connect(user.token);
  try {
    const conn = serverSocketOf(client.id!).conn as unknown as object;
    const descriptor = Object.getOwnPropertyDescriptor(conn, "request");
    member("Socket.request", descriptor?.writable === true, "an own writable field");
    const record = (conn as { request: Record<string, unknown> }).request;
    member("Socket.request", ["url", "headers", "_query", "connection"].every((key) => key in record), "a record of url, headers, _query and connection");
  } finally {
    client.close();
  }
});
