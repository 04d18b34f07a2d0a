/**
 * TRUST_PROXY behind the documented HAProxy configuration (docs/operations.md, "Load balancer"
 * and "Behind a reverse proxy"): HAProxy's `option forwardfor` names each client, so clients
 * on different addresses have their own registration budget, and a client's own
 * X-Forwarded-For is not believed. Client addresses are loopback ones (all of 127/8).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startHaproxy, type Haproxy } from "./haproxy.ts";
import { startNodes, uniqueName, type Nodes } from "./nodes.ts";
import { apiFrom } from "../helpers/from-address.ts";

let cluster: Nodes;
let proxy: Haproxy;

beforeAll(async () => {
  // HAProxy connects to the node from 127.0.0.1; the clients come from 127.0.0.2 and up.
  cluster = await startNodes(1, { TRUST_PROXY: "127.0.0.1", AUTH_RATE_LIMIT_PER_MINUTE: "2" });
  proxy = await startHaproxy(cluster.nodes);
});
afterAll(async () => {
  await proxy?.stop();
  await cluster.stop();
});

function registerFrom(from: string, headers: Record<string, string> = {}) {
  const username = uniqueName("tp");
  return apiFrom(proxy.url, from, "POST", "/api/v1/auth/register", { body: { username, email: `${username}@example.test`, password: "long enough pw" }, headers });
}

test("through HAProxy each client address has its own budget, whatever it claims to be", async () => {
  expect((await registerFrom("127.0.0.2")).status).toBe(201);
  expect((await registerFrom("127.0.0.2", { "x-forwarded-for": "198.51.100.1" })).status).toBe(201);
  const refused = await registerFrom("127.0.0.2", { "x-forwarded-for": "198.51.100.2" });
  expect(refused.status).toBe(429);
  expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
  expect((await registerFrom("127.0.0.3")).status).toBe(201);
});

test("discovery through HAProxy names the address clients reached, not the node's", async () => {
  const res = await apiFrom(proxy.url, "127.0.0.4", "GET", "/api/v1");
  expect(res.status).toBe(200);
  expect(res.body.gateway.url).toBe(proxy.url);
  expect(res.body.links.self).toBe(`${proxy.url}/api/v1`);
});
