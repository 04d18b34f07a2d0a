/**
 * TRUST_PROXY (docs/operations.md, "Behind a reverse proxy"): through a trusted proxy each client
 * is known by the address the proxy names, for the per-address limits and for discovery's URLs;
 * headers from anyone else are ignored. The real proxy is test/cluster/trust-proxy.cluster.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { apiFrom } from "../helpers/from-address.ts";
import { startServer, uniqueName, type TestServer } from "../helpers/server.ts";

const PROXY = "127.0.0.1";
const STRANGER = "127.0.0.2";

const registration = () => {
  const username = uniqueName();
  return { username, email: `${username}@example.test`, password: "long enough pw" };
};

function registerAs(server: TestServer, from: string, headers: Record<string, string>) {
  return apiFrom(server.url, from, "POST", "/api/v1/auth/register", { body: registration(), headers });
}

describe("with TRUST_PROXY naming the proxy's address", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ trustProxy: [PROXY], authRateLimitPerMinute: 3 });
  });
  afterAll(() => server.stop());

  test("each forwarded client has its own registration budget", async () => {
    const first = { "x-forwarded-for": "203.0.113.1" };
    for (let i = 0; i < 3; i++) expect((await registerAs(server, PROXY, first)).status).toBe(201);
    const refused = await registerAs(server, PROXY, first);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: expect.any(String) });
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect((await registerAs(server, PROXY, { "x-forwarded-for": "203.0.113.2" })).status).toBe(201);
  });

  test("the attack: a client that prepends addresses is still counted as itself", async () => {
    const client = "203.0.113.3";
    for (let i = 0; i < 3; i++) expect((await registerAs(server, PROXY, { "x-forwarded-for": `198.51.100.${i}, ${client}` })).status).toBe(201);
    expect((await registerAs(server, PROXY, { "x-forwarded-for": `198.51.100.99, ${client}` })).status).toBe(429);
  });

  test("the standard Forwarded header names the client too", async () => {
    const forwarded = { forwarded: 'for="[2001:db8:5::1]:4000";proto=https' };
    for (let i = 0; i < 3; i++) expect((await registerAs(server, PROXY, forwarded)).status).toBe(201);
    // The same /64: the same budget.
    expect((await registerAs(server, PROXY, { forwarded: 'for="[2001:db8:5::2]"' })).status).toBe(429);
  });

  test("headers from an address that is not a trusted proxy are ignored", async () => {
    for (let i = 0; i < 3; i++) expect((await registerAs(server, STRANGER, { "x-forwarded-for": `192.0.2.${i}` })).status).toBe(201);
    expect((await registerAs(server, STRANGER, { "x-forwarded-for": "192.0.2.200" })).status).toBe(429);
  });

  test("discovery's URLs follow the scheme and host the proxy reports", async () => {
    const res = await apiFrom(server.url, PROXY, "GET", "/api/v1", { headers: { "x-forwarded-for": "203.0.113.8", "x-forwarded-proto": "https", "x-forwarded-host": "chat.example.org" } });
    expect(res.status).toBe(200);
    expect(res.body.gateway.url).toBe("https://chat.example.org");
    expect(res.body.links.self).toBe("https://chat.example.org/api/v1");
  });

  test("without a forwarded host, the Host the proxy passed on", async () => {
    const res = await apiFrom(server.url, PROXY, "GET", "/api/v1", { headers: { host: "chat.example.org:8443", "x-forwarded-for": "203.0.113.8", "x-forwarded-proto": "https" } });
    expect(res.body.gateway.url).toBe("https://chat.example.org:8443");
  });

  test("the attack: a stranger's forwarded scheme and host are not reflected", async () => {
    const res = await apiFrom(server.url, STRANGER, "GET", "/api/v1", { headers: { host: "evil.example", "x-forwarded-proto": "https", "x-forwarded-host": "evil.example" } });
    expect(res.body.gateway.url).toBe(server.url);
    expect(JSON.stringify(res.body)).not.toContain("evil.example");
  });

  test("/metrics: a forwarded remote client is not local", async () => {
    const res = await apiFrom(server.url, PROXY, "GET", "/metrics", { headers: { "x-forwarded-for": "203.0.113.8" } });
    expect(res.status).toBe(403);
  });
});

test("PUBLIC_URL wins over what a trusted proxy reports", async () => {
  const server = await startServer({ trustProxy: 1, publicUrl: "https://hearth.example.net" });
  try {
    const res = await apiFrom(server.url, PROXY, "GET", "/api/v1", { headers: { "x-forwarded-for": "203.0.113.8", "x-forwarded-proto": "http", "x-forwarded-host": "other.example" } });
    expect(res.body.gateway.url).toBe("https://hearth.example.net");
  } finally {
    await server.stop();
  }
});

test("without TRUST_PROXY forwarding headers are ignored: every client through one proxy shares its budget", async () => {
  const server = await startServer({ authRateLimitPerMinute: 2 });
  try {
    expect((await registerAs(server, PROXY, { "x-forwarded-for": "203.0.113.1" })).status).toBe(201);
    expect((await registerAs(server, PROXY, { "x-forwarded-for": "203.0.113.2" })).status).toBe(201);
    expect((await registerAs(server, PROXY, { "x-forwarded-for": "203.0.113.3" })).status).toBe(429);
    const discovery = await apiFrom(server.url, PROXY, "GET", "/api/v1", { headers: { "x-forwarded-proto": "https", "x-forwarded-host": "chat.example.org" } });
    expect(discovery.body.gateway.url).toBe(server.url);
  } finally {
    await server.stop();
  }
});
