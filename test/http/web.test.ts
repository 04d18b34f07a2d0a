/**
 * Hearth serves the web app on its own origin: the page for every GET that is not an API,
 * upload or gateway path (the app's router takes it from there), hashed assets, and JSON 404s
 * for unknown API paths as before.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

async function page(path: string) {
  const response = await fetch(server.url + path);
  return { status: response.status, headers: response.headers, text: await response.text() };
}

test("the app's pages are its HTML entry, built by Bun, with a strict content security policy", async () => {
  for (const path of ["/", "/login", "/register", "/channels/@me", "/channels/a/b", "/invite/AbC123", "/no/such/page"]) {
    const res = await page(path);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(res.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(res.text).toContain('<div id="app"></div>');
    // Bundled assets only, from this origin: no CDN.
    expect(res.text).toMatch(/<script type="module" crossorigin src="\/assets\/[\w-]+\.js"><\/script>/);
    expect(res.text).not.toMatch(/src="https?:/);
  }
});

test("connect-src is the page's origin only; with Janus configured, its instances too and nothing else", async () => {
  expect((await page("/")).headers.get("content-security-policy")).toContain("connect-src 'self';");
  const urls = ["wss://j1.example.org/janus", "ws://10.0.0.8:8188"];
  // Nothing here reaches these instances: the policy is the server's configuration, read at start.
  const withJanus = await startServer({ janus: { urls, adminUrls: ["http://127.0.0.1:9/admin", "http://127.0.0.1:9/admin"], secret: "janus-admin-secret-0123456789" } });
  try {
    const res = await fetch(withJanus.url + "/channels/@me");
    expect(res.headers.get("content-security-policy")).toContain(`connect-src 'self' ${urls.join(" ")};`);
    await res.text();
  } finally {
    await withJanus.stop();
  }
});

test("assets are served by hashed name, gzipped when accepted, cached for good; an unknown one is a JSON 404", async () => {
  const html = (await page("/")).text;
  const script = /src="(\/assets\/[\w-]+\.js)"/.exec(html)![1]!;
  const style = /href="(\/assets\/[\w-]+\.css)"/.exec(html)![1]!;

  const plain = await fetch(server.url + script, { headers: { "accept-encoding": "identity" } });
  expect(plain.status).toBe(200);
  expect(plain.headers.get("content-type")).toContain("javascript");
  expect(plain.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
  expect(plain.headers.get("content-encoding")).toBeNull();
  const body = await plain.text();
  expect(body.length).toBeGreaterThan(1000);

  const zipped = await fetch(server.url + script, { headers: { "accept-encoding": "gzip" }, decompress: false });
  expect(zipped.headers.get("content-encoding")).toBe("gzip");
  const raw = new Uint8Array(await zipped.arrayBuffer());
  expect(raw.length).toBeLessThan(body.length);
  expect(new TextDecoder().decode(Bun.gunzipSync(raw))).toBe(body);

  const css = await fetch(server.url + style);
  expect(css.headers.get("content-type")).toContain("text/css");

  const missing = await server.api("GET", "/assets/nope-123.js");
  expect(missing.status).toBe(404);
  expect(missing.body).toEqual({ error: "Not found" });
});

test("unknown API, upload and gateway paths, and file names, keep their JSON 404", async () => {
  for (const path of ["/api/v1/nope", "/api/v1/users/me/nothing", "/api/webhooks", "/api", "/uploads/nope", "/socket.io/x", "/sdk", "/sdk/", "/sdk/nope/x", "/favicon.ico", "/secret.txt", "/a/b.json", "/%zz"]) {
    const res = await server.api("GET", path);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "Not found" });
  }
  // Routes that exist answer as before, never the page.
  const discovery = await server.api("GET", "/api/v1");
  expect(discovery.status).toBe(200);
  expect(discovery.headers.get("content-type")).toContain("application/json");
  const unauthorized = await server.api("GET", "/api/v1/users/me/info");
  expect(unauthorized.status).toBe(401);
});
