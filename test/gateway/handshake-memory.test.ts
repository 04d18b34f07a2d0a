import { afterAll, beforeAll, expect, test } from "bun:test";
import { heapStats } from "bun:jsc";
import { startServer, until, type ClientSocket, type TestServer } from "../helpers/server.ts";

/** src/gateway/handshake-memory.ts: an open connection does not keep its handshake's Request. */

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
