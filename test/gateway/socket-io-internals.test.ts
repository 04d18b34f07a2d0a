import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Namespace, Server, Socket } from "socket.io";
import { clientReaderOf, privateSessionIdOf, RESUMABLE_REASONS, resumeWindowMsOf, SOCKET_IO_VERSION } from "../../src/gateway/socket-io-internals.ts";
import { expectMember } from "../helpers/internals-contract.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

/** src/gateway/socket-io-internals.ts: each private member of socket.io (and of its parser's decoder) it relies on. */
const member = (name: string, holds: boolean, expected: string) => expectMember("socket.io", SOCKET_IO_VERSION, name, holds, expected);

const require = createRequire(import.meta.url);
const socketIoDist = dirname(require.resolve("socket.io"));
/** socket.io-parser as socket.io resolves it. */
const parser = createRequire(join(socketIoDist, "index.js"))("socket.io-parser") as { Decoder: new () => { add(data: unknown): void; on(event: string, fn: (packet: unknown) => void): void; reconstructor?: unknown } };

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const serverSocketOf = (id: string) => server.app.io.of("/").sockets.get(id)!;
const hasMethod = (proto: object, name: string) => typeof (proto as Record<string, unknown>)[name] === "function";

test("Client.ondata: bound to its client and registered on the engine connection's 'data'", async () => {
  const user = await server.register();
  const client = await server.connect(user.token);
  try {
    const socket = serverSocketOf(client.id!);
    const io = (socket as unknown as { client: Record<string, unknown> }).client;
    member("Client.ondata", Object.hasOwn(io, "ondata") && typeof io.ondata === "function", "an own bound function (set up in Client.setup)");
    const reader = clientReaderOf(socket);
    member("Client.decoder", reader !== null, "the client has `ondata` and a `decoder`");
    const listeners = (socket.conn as unknown as { listeners(event: string): unknown[] }).listeners("data");
    member("Client.ondata", listeners.includes(reader!.ondata), "the listener of the engine connection's 'data' event");
    expect(reader!.awaitingAttachments()).toBe(false);
  } finally {
    client.close();
  }
});

test("Decoder.reconstructor: set while a binary packet waits for its attachments", () => {
  const decoder = new parser.Decoder();
  const decoded: unknown[] = [];
  decoder.on("decoded", (packet) => decoded.push(packet));
  decoder.add('51-["bot:audio-data",{"pcm":{"_placeholder":true,"num":0}}]');
  member("Decoder.reconstructor", decoder.reconstructor != null, "set after a binary packet's header");
  decoder.add(new Uint8Array([1, 2]));
  member("Decoder.reconstructor", decoder.reconstructor == null && decoded.length === 1, "cleared once the packet is whole");
});

test("Namespace._createSocket: the namespace builds each connect's socket through it", () => {
  member("Namespace._createSocket", hasMethod(Namespace.prototype, "_createSocket"), "a method");
  const add = String((Namespace.prototype as unknown as { _add?: unknown })._add);
  member("Namespace._createSocket", add.includes("await this._createSocket(client, auth)"), "awaited by Namespace._add with (client, auth)");
});

test("Socket._cleanup and Socket.packet: methods, as Socket.IO uses them itself", () => {
  member("Socket._cleanup", hasMethod(Socket.prototype, "_cleanup"), "a method");
  member("Socket.packet", hasMethod(Socket.prototype, "packet"), "a method");
  const constructor = Socket.toString();
  member("Socket.packet", constructor.includes("this.packet(packet"), "how the constructor sends a restored session's missed packets");
});

test("Socket.pid: a resumable session's private id", async () => {
  const user = await server.register();
  const client = await server.connect(user.token);
  try {
    const pid = privateSessionIdOf(serverSocketOf(client.id!));
    member("Socket.pid", typeof pid === "string" && pid.length > 0, "a string when connection state recovery is on");
  } finally {
    client.close();
  }
});

test("RECOVERABLE_DISCONNECT_REASONS: the reasons after which a session is kept", () => {
  const source = readFileSync(join(socketIoDist, "socket.js"), "utf8");
  const listed = /const RECOVERABLE_DISCONNECT_REASONS = new Set\(\[([^\]]*)\]\)/.exec(source)?.[1];
  member("RECOVERABLE_DISCONNECT_REASONS", listed !== undefined, "a Set literal in dist/socket.js");
  const reasons = [...listed!.matchAll(/"([^"]+)"/g)].map((m) => m[1]);
  member("RECOVERABLE_DISCONNECT_REASONS", JSON.stringify(reasons.sort()) === JSON.stringify([...RESUMABLE_REASONS].sort()), `the reasons ${[...RESUMABLE_REASONS].join(", ")}`);
});

test("Server.opts: connectionStateRecovery.maxDisconnectionDuration as configured", () => {
  const io = new Server({ connectionStateRecovery: { maxDisconnectionDuration: 1234 } });
  member("Server.opts", resumeWindowMsOf(io.of("/")) === 1234, "holds connectionStateRecovery.maxDisconnectionDuration");
  expect(resumeWindowMsOf(new Server().of("/"))).toBeUndefined();
});
