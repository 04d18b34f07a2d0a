/**
 * The documented Caddy configuration (docs/operations.md, "Behind a reverse proxy") run for real
 * on loopback with Caddy's internal CA: HTTPS to REST, discovery's URLs on https://, the
 * client's address for the per-address limits, and a Socket.IO client over WSS.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { io as connectClient } from "socket.io-client";
import { CADDY, startCaddy, type Caddy } from "./caddy.ts";
import { startNodes, uniqueName, type Nodes } from "./nodes.ts";

let cluster: Nodes;
let caddy: Caddy;

beforeAll(async () => {
  cluster = await startNodes(1, { TRUST_PROXY: "loopback", AUTH_RATE_LIMIT_PER_MINUTE: "2" });
  caddy = await startCaddy(cluster.nodes[0]!.port);
}, 30_000);
afterAll(async () => {
  await caddy?.stop();
  await cluster.stop();
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${caddy.url}${path}`, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json", ...headers }, tls: { ca: caddy.ca } });

const account = () => {
  const username = uniqueName("cd");
  return { username, email: `${username}@example.test`, password: "long enough pw" };
};

test("caddy is installed where the docs say", () => {
  expect(Bun.file(CADDY).size).toBeGreaterThan(0);
});

test("through Caddy over HTTPS, discovery's URLs are the https:// address clients reached", async () => {
  const res = await fetch(`${caddy.url}/api/v1`, { tls: { ca: caddy.ca } });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { gateway: { url: string }; links: Record<string, string> };
  expect(body.gateway.url).toBe(caddy.url);
  for (const url of Object.values(body.links)) expect(url).toStartWith(`${caddy.url}/`);
});

test("a Socket.IO client connects over WSS through Caddy and its events are answered", async () => {
  const created = await post("/api/v1/auth/register", account());
  expect(created.status).toBe(201);
  const { token } = (await created.json()) as { token: string };
  const socket = connectClient(caddy.url, { auth: { token }, transports: ["websocket"], reconnection: false, forceNew: true, ca: caddy.ca });
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", resolve);
      socket.once("connect_error", reject);
    });
    expect(socket.io.engine.transport.name).toBe("websocket");
    expect(await socket.timeout(5_000).emitWithAck("status:set", { status: "dnd" })).toEqual({ ok: true, status: "dnd" });
  } finally {
    socket.close();
  }
});

test("Caddy's X-Forwarded-For is believed: a client's own header does not buy it a new budget", async () => {
  // Every request comes from 127.0.0.1 here, so Caddy names 127.0.0.1 whatever the client claims:
  // with the registration of the test before, the second one here is the third of its budget of 2.
  expect((await post("/api/v1/auth/register", account(), { "x-forwarded-for": "198.51.100.1" })).status).toBe(201);
  expect((await post("/api/v1/auth/register", account(), { "x-forwarded-for": "198.51.100.2" })).status).toBe(429);
});
