import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startServer, type TestServer, type TestUser } from "../helpers/server.ts";

// CORS for browser clients on other origins (docs/operations.md#cors): off by default.
const APP = "https://chat.example.com";

let plain: TestServer;
let withCors: TestServer;
let any: TestServer;
let user: TestUser;
beforeAll(async () => {
  [plain, withCors, any] = await Promise.all([startServer(), startServer({ corsOrigins: [APP, "http://localhost:5173"] }), startServer({ corsOrigins: ["*"] })]);
  user = await withCors.register();
});
afterAll(async () => {
  await Promise.all([plain.stop(), withCors.stop(), any.stop()]);
});

const preflight = (target: TestServer, path: string, origin: string, method = "POST") =>
  fetch(target.url + path, {
    method: "OPTIONS",
    headers: { origin, "access-control-request-method": method, "access-control-request-headers": "authorization, content-type" },
  });
const get = (target: TestServer, path: string, origin: string, token?: string) =>
  fetch(target.url + path, { headers: { origin, ...(token ? { authorization: `Bearer ${token}` } : {}) } });

describe("CORS", () => {
  test("off by default: no CORS header on a preflight or an answer", async () => {
    const user = await plain.register();
    const pre = await preflight(plain, "/api/v1/users/me/info", APP);
    expect(pre.headers.get("access-control-allow-origin")).toBeNull();
    const res = await get(plain, "/api/v1/users/me/info", APP, user.token);
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });

  test("a configured origin: preflight 204 with the methods, headers and max age; answers carry the origin", async () => {
    const pre = await preflight(withCors, "/api/v1/messages/01a20805-7d72-77cc-b541-8c28e661b52b", APP);
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe(APP);
    expect(pre.headers.get("access-control-allow-methods")).toBe("GET, POST, PUT, PATCH, DELETE");
    expect(pre.headers.get("access-control-allow-headers")).toBe("authorization, content-type, x-2fa-code, prefer");
    expect(pre.headers.get("access-control-max-age")).toBe("600");
    expect(pre.headers.get("access-control-allow-credentials")).toBeNull();
    expect(pre.headers.get("vary")).toBe("Origin");

    const res = await get(withCors, "/api/v1/users/me/info", APP, user.token);
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe(APP);
    expect(res.headers.get("access-control-expose-headers")).toBe("retry-after, x-stream-id, preference-applied");
    expect(((await res.json()) as { id: string }).id).toBe(user.id);
    const other = await get(withCors, "/api/v1", "http://localhost:5173");
    expect(other.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
  });

  test("errors carry it too, so a browser can read them", async () => {
    const unauthorized = await get(withCors, "/api/v1/users/me/info", APP);
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get("access-control-allow-origin")).toBe(APP);
    expect(await unauthorized.json()).toEqual({ error: "Unauthorized" });
    const missing = await get(withCors, "/api/v1/nothing-here", APP);
    expect(missing.status).toBe(404);
    expect(missing.headers.get("access-control-allow-origin")).toBe(APP);
    const bad = await fetch(withCors.url + "/api/v1/auth/login", { method: "POST", headers: { origin: APP, "content-type": "application/json" }, body: "{bad" });
    expect(bad.status).toBe(400);
    expect(bad.headers.get("access-control-allow-origin")).toBe(APP);
  });

  test("another origin gets no allow-origin (the browser refuses), and the API still works for non-browser clients", async () => {
    const pre = await preflight(withCors, "/api/v1/users/me/info", "https://evil.example");
    expect(pre.headers.get("access-control-allow-origin")).toBeNull();
    const res = await get(withCors, "/api/v1/users/me/info", "https://evil.example", user.token);
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    expect((await fetch(withCors.url + "/api/v1/users/me/info", { headers: { authorization: `Bearer ${user.token}` } })).status).toBe(200);
  });

  test("the gateway's long-polling handshake answers a configured origin", async () => {
    const res = await get(withCors, "/socket.io/?EIO=4&transport=polling", APP);
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe(APP);
    expect(await res.text()).toStartWith("0{");
    const pre = await preflight(withCors, "/socket.io/?EIO=4&transport=polling", APP);
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe(APP);
  });

  test("* allows any origin", async () => {
    const res = await get(any, "/api/v1", "https://anywhere.example");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const pre = await preflight(any, "/api/v1/auth/login", "https://anywhere.example");
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("*");
  });
});
