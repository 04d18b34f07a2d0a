import { afterAll, beforeAll, expect, test } from "bun:test";
import { rawHttp } from "../helpers/raw-http.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const raw = (request: string, port = server.app.port) => rawHttp(port, request);

test("an HTTP/1.0 request without a Host header is 400 {error}, never a 500, on any route", async () => {
  // Authenticated reads too: the Host check runs before the bearer check.
  for (const path of ["/api/v1", "/api/v1/no-such-route", "/api/v1/servers", "/api/v1/users/me/info", "/api/v1/messages/x?limit=2", "/", "/socket.io/?EIO=4&transport=polling", "/api/webhooks/x/y"]) {
    const answer = await raw(`GET ${path} HTTP/1.0\r\n\r\n`);
    expect({ path, status: answer.status }).toEqual({ path, status: 400 });
    expect(JSON.parse(answer.body)).toEqual({ error: "A Host header is required" });
  }
});

test("health checks are answered without a Host header (a load balancer's plain check sends none)", async () => {
  const health = await raw("GET /healthz HTTP/1.0\r\n\r\n");
  expect(health.status).toBe(200);
  expect(JSON.parse(health.body)).toEqual({ status: "ok" });
  const ready = await raw("GET /readyz HTTP/1.0\r\n\r\n");
  expect(ready.status).toBe(200);
  expect(JSON.parse(ready.body)).toMatchObject({ status: "ready" });
});

test("with a Host header the same request is served", async () => {
  const answer = await raw("GET /api/v1 HTTP/1.0\r\nHost: hearth.example\r\n\r\n");
  expect(answer.status).toBe(200);
});

test("a Host Bun cannot make an absolute URL of is refused, and one it can is served: the rule is Bun's own (URL.canParse(request.url))", async () => {
  // The oracle: what Bun gives a handler as its URL for the same bytes.
  const oracle = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => new Response(String(URL.canParse(request.url))) });
  try {
    const hosts = [
      "hearth.example", "localhost:3000", "127.0.0.1:1", "[::1]:80", "[1:2:3:4:5:6:7:8]", "A.COM", "a.com.", "a..b", "-a", "a_b", "a%41", "0x7f.1", "a:", "xn--nxasmq6b.com",
      "a,b", "a;b", "a'b", "a(b)", "a!b", "a$b", "a&b", "a+b", "a=b", "a*b", "a~b",
      "a b", "a\tb", "@", "a@b", "a:b@c", "a/b", "a?b", "a#b", "a\\b", "a\"b", "a{b", "a|b", "a^b", "a`b", "<x>", "\u00e9.com",
      "[::1", "[zz]", "[a", "a[b", "a]b", "a:99999", "a:x", ":80", "a:80:80", "%zz", "a%20b", "1.2.3.256", "",
    ];
    for (const host of hosts) {
      const head = `Host: ${host}\r\nConnection: close\r\n\r\n`;
      const usable = (await raw(`GET /api/v1 HTTP/1.1\r\n${head}`, oracle.port)).body === "true";
      // A public route and an authenticated one (401 without a token, once the Host is usable).
      expect({ host, status: (await raw(`GET /api/v1 HTTP/1.1\r\n${head}`)).status }).toEqual({ host, status: usable ? 200 : 400 });
      expect({ host, status: (await raw(`GET /api/v1/users/me/info HTTP/1.1\r\n${head}`)).status }).toEqual({ host, status: usable ? 401 : 400 });
    }
  } finally {
    await oracle.stop(true);
  }
});

test("a request with two Host headers is 400 (RFC 9112), on a public route, an authenticated one and a health check", async () => {
  for (const path of ["/api/v1", "/api/v1/users/me/info", "/healthz"]) {
    const answer = await raw(`GET ${path} HTTP/1.1\r\nHost: hearth.example\r\nHost: other.example\r\nConnection: close\r\n\r\n`);
    expect({ path, status: answer.status }).toEqual({ path, status: 400 });
    expect(JSON.parse(answer.body)).toEqual({ error: "A Host header is required" });
  }
});
