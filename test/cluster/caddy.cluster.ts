/**
 * The documented Caddy configuration (docs/operations.md, "Behind a reverse proxy") run for real
 * on loopback with Caddy's internal CA: HTTPS to REST, discovery's URLs on https://, the
 * client's address for the per-address limits, and a Socket.IO client over WSS.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { request } from "node:https";
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

/**
 * A JSON POST through Caddy over HTTPS from the local address `from` (all of 127/8 is loopback):
 * each test's clients have addresses of their own, as budgets per address are shared in Redis
 * with the rest of the suite.
 */
function post(from: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const url = new URL(path, caddy.url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname, method: "POST", localAddress: from, ca: caddy.ca, agent: false, headers: { "content-type": "application/json", ...headers } },
      (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

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
  const created = await post("127.0.0.9", "/api/v1/auth/register", account());
  expect(created.status).toBe(201);
  const { token } = JSON.parse(created.body) as { token: string };
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

test("Caddy's X-Forwarded-For is believed: each client has its own budget, and what it claims itself is not believed", async () => {
  // Caddy replaces a client's own X-Forwarded-For with the address it sees (it trusts no proxy in front).
  expect((await post("127.0.0.10", "/api/v1/auth/register", account(), { "x-forwarded-for": "198.51.100.1" })).status).toBe(201);
  expect((await post("127.0.0.10", "/api/v1/auth/register", account(), { "x-forwarded-for": "198.51.100.2" })).status).toBe(201);
  expect((await post("127.0.0.10", "/api/v1/auth/register", account(), { "x-forwarded-for": "198.51.100.3" })).status).toBe(429);
  expect((await post("127.0.0.11", "/api/v1/auth/register", account())).status).toBe(201);
});
