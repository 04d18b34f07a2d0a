import { afterAll, beforeAll, expect, test } from "bun:test";
import { heapStats } from "bun:jsc";
import { startServer, type ClientSocket, type TestServer } from "../helpers/server.ts";
import { until } from "../helpers/wait.ts";

/**
 * src/gateway/handshake-memory.ts: an open connection keeps neither its handshake's Request nor
 * a copy of its headers.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const engineClients = () => (server.app.io.engine as unknown as { clients: Map<string, unknown> }).clients;
const requestsOnHeap = () => {
  Bun.gc(true);
  return heapStats().objectTypeCounts.Request ?? 0;
};

test("open websocket connections hold no handshake Request, and each leaves the engine's sessions when it closes", async () => {
  const user = await server.register();
  const sessions0 = engineClients().size;
  const before = requestsOnHeap();
  const sockets: ClientSocket[] = [];
  for (let i = 0; i < 20; i++) sockets.push(await server.connect(user.token));
  expect(engineClients().size).toBe(sessions0 + 20);
  // Before the change every connection kept one (20 more); a few may be in flight elsewhere.
  expect(requestsOnHeap() - before).toBeLessThan(5);
  for (const s of sockets) s.close();
  await until(() => engineClients().size === sessions0, "the sessions to end");
});

test("the same for long-polling connections, and a refused handshake leaves no session behind", async () => {
  const user = await server.register();
  const sessions0 = engineClients().size;
  const pollers: ClientSocket[] = [];
  for (let i = 0; i < 5; i++) pollers.push(await server.connect(user.token, { transports: ["polling"] }));
  expect(engineClients().size).toBe(sessions0 + 5);
  await expect(server.connect("not-a-token")).rejects.toThrow("Unauthorized");
  for (const s of pollers) s.close();
  await until(() => engineClients().size === sessions0, "the sessions to end");
});

const serverSocketOf = (client: ClientSocket) => server.app.io.of("/").sockets.get(client.id!)!;

for (const transports of [["websocket"], ["polling"]] as const) {
  test(`over ${transports[0]}: once connected, the socket keeps no copy of the handshake's headers, query or auth (the token), and works as before`, async () => {
    const user = await server.register();
    const client = await server.connect(user.token, { transports: [...transports] });
    const socket = serverSocketOf(client);
    const { handshake } = socket;
    expect(handshake.headers).toEqual({});
    expect(handshake.query).toEqual({});
    expect(handshake.auth).toEqual({});
    expect(JSON.stringify(handshake)).not.toContain(user.token);
    expect(handshake.url).toContain("/socket.io/?EIO=4");
    expect(handshake.time).toBe(new Date(handshake.issued).toString());
    // A copy (the cluster adapter's fetchSockets answer) has every field Socket.IO documents.
    expect(Object.keys({ ...handshake }).sort()).toEqual(["address", "auth", "headers", "issued", "query", "secure", "time", "url", "xdomain"]);
    expect(Math.abs(handshake.issued - Date.now())).toBeLessThan(60_000);
    expect(socket.request.headers).toEqual({});
    expect(socket.data.userId).toBe(user.id);
    // An event is still answered.
    const ack = (await client.timeout(3000).emitWithAck("channel:join", "not-a-channel")) as { ok: boolean; error?: string };
    expect(ack.ok).toBe(false);
    expect(ack.error).toBeString();
    client.close();
  });
}
