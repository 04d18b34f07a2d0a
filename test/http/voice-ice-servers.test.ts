/**
 * GET /api/v1/voice/ice-servers (issue 47 point 1): STUN as configured, TURN with a credential
 * of the TURN REST API form coturn checks (`<expiry>:<user id>`, base64 HMAC-SHA1 with
 * TURN_SECRET), for authenticated callers only; none configured: an empty list. That coturn
 * accepts the credential is shown by test/web/browser/voice-turn.e2e.ts against a real coturn.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { expectError, startServer, type TestServer } from "../helpers/server.ts";

const SECRET = "the-coturn-static-auth-secret";
const TURN_URLS = ["turn:turn.example.org:3478?transport=udp", "turns:turn.example.org:443?transport=tcp"];

describe("with TURN and STUN configured", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ ice: { turnUrls: TURN_URLS, turnSecret: SECRET, stunUrls: ["stun:turn.example.org:3478"], ttlSeconds: 900, transportPolicy: "all" } });
  });
  afterAll(() => server.stop());

  test("STUN, then TURN with `<expiry>:<user id>` and base64 HMAC-SHA1 of it; expiry is now + ttl", async () => {
    const user = await server.register();
    const before = Math.floor(Date.now() / 1000);
    const res = await server.api("GET", "/api/v1/voice/ice-servers", { token: user.token });
    const after = Math.floor(Date.now() / 1000);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const [stun, turn, ...rest] = res.body.ice_servers;
    expect(rest).toEqual([]);
    expect(stun).toEqual({ urls: ["stun:turn.example.org:3478"] });
    expect(Object.keys(turn).sort()).toEqual(["credential", "urls", "username"]);
    expect(turn.urls).toEqual(TURN_URLS);
    const [expiry, userId] = turn.username.split(":");
    expect(userId).toBe(user.id);
    expect(Number(expiry)).toBeGreaterThanOrEqual(before + 900);
    expect(Number(expiry)).toBeLessThanOrEqual(after + 900);
    expect(turn.credential).toBe(createHmac("sha1", SECRET).update(turn.username).digest("base64"));
    expect(res.body.ttl).toBe(900);
    expect(res.body.ice_transport_policy).toBe("all");
    expect(Object.keys(res.body).sort()).toEqual(["ice_servers", "ice_transport_policy", "ttl"]);
  });

  test("each caller gets their own credential", async () => {
    const [a, b] = [await server.register(), await server.register()];
    const ra = await server.api("GET", "/api/v1/voice/ice-servers", { token: a.token });
    const rb = await server.api("GET", "/api/v1/voice/ice-servers", { token: b.token });
    expect(ra.body.ice_servers[1].username.endsWith(`:${a.id}`)).toBe(true);
    expect(rb.body.ice_servers[1].username.endsWith(`:${b.id}`)).toBe(true);
    expect(ra.body.ice_servers[1].credential).not.toBe(rb.body.ice_servers[1].credential);
  });

  test("401 without a token or with a bad one", async () => {
    expectError(await server.api("GET", "/api/v1/voice/ice-servers"), 401);
    expectError(await server.api("GET", "/api/v1/voice/ice-servers", { token: "not-a-token" }), 401);
  });
});

describe("with none configured", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.stop());

  test("an empty list (host candidates only, as before), the default ttl and policy", async () => {
    const user = await server.register();
    const res = await server.api("GET", "/api/v1/voice/ice-servers", { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ice_servers: [], ttl: 86_400, ice_transport_policy: "all" });
  });
});

describe("STUN only", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ ice: { turnUrls: [], turnSecret: undefined, stunUrls: ["stun:a.example.org:3478", "stun:b.example.org:19302"], ttlSeconds: 60, transportPolicy: "all" } });
  });
  afterAll(() => server.stop());

  test("the STUN servers without credentials, no TURN entry", async () => {
    const user = await server.register();
    const res = await server.api("GET", "/api/v1/voice/ice-servers", { token: user.token });
    expect(res.body).toEqual({ ice_servers: [{ urls: ["stun:a.example.org:3478", "stun:b.example.org:19302"] }], ttl: 60, ice_transport_policy: "all" });
  });
});
