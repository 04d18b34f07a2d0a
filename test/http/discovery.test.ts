import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DEFAULT_EVENT_LIMITS } from "../../src/gateway/event-limits.ts";
import { DEFAULT_REST_RATE_LIMITS } from "../../src/http/rate-limit-families.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { SPEC_LIMITS } from "../../src/domain/shared/limits.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

describe("public routes", () => {
  test("GET /api/v1 answers discovery without a token", async () => {
    const res = await server.api("GET", "/api/v1");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: "Hearth",
      api_version: "v1",
      gateway: { url: server.url, path: "/socket.io/", protocol: "socket.io", protocol_version: 4 },
    });
    expect(typeof res.body.version).toBe("string");
    expect(res.body.links.platform_config).toBe(`${server.url}/api/v1/platform/config`);
    // The reference's documents and page, which answer.
    expect(res.body.links.openapi).toBe(`${server.url}/api/v1/openapi.json`);
    expect(res.body.links.asyncapi).toBe(`${server.url}/api/v1/asyncapi.json`);
    expect(res.body.links.docs).toBe(`${server.url}/docs`);
    for (const url of [res.body.links.openapi, res.body.links.asyncapi, res.body.links.docs]) expect((await fetch(url)).status).toBe(200);
    expect((await server.api("GET", "/api/v1/")).body).toEqual(res.body);
  });

  test("GET /api/v1/platform/config publishes the spec's limits and flags", async () => {
    const res = await server.api("GET", "/api/v1/platform/config");
    expect(res.status).toBe(200);
    expect(res.body.limits).toEqual(JSON.parse(JSON.stringify(SPEC_LIMITS)));
    expect(res.body.limits.userAvatarBytes).toBe(2 * 1024 * 1024);
    expect(res.body.features).toEqual({ registration_open: true, two_factor: true, two_factor_required_for_applications: false });
    expect(res.body.permissions.ADMINISTRATOR).toBe(512);
    expect(res.body.default_permissions).toEqual({ everyone: 16235520, bot: 8895488 });
    expect(res.body.presence_statuses).toEqual(["online", "idle", "dnd", "offline"]);
    // The large-server size, for clients that page the member list and subscribe to presence past it.
    expect(res.body.large_server_members).toBe(250);
    // The gateway's event limits, by which the SDK paces itself.
    expect(res.body.gateway_limits).toEqual({
      kinds: Object.fromEntries(Object.entries(DEFAULT_EVENT_LIMITS).map(([kind, limit]) => [kind, { per_second: limit.perSecond, burst: limit.burst }])),
      user_factor: 3,
    });
    expect(res.body.gateway_limits.kinds.messages).toEqual({ per_second: 20, burst: 50 });
  });

  test("gateway_limits follow the GATEWAY_RATE_* settings", async () => {
    const fast = await startServer({ gatewayEventLimits: { ...DEFAULT_EVENT_LIMITS, messages: { perSecond: 100, burst: 20 } }, gatewayUserRateFactor: 5 });
    try {
      const limits = (await fast.api("GET", "/api/v1/platform/config")).body.gateway_limits;
      expect(limits.kinds.messages).toEqual({ per_second: 100, burst: 20 });
      expect(limits.user_factor).toBe(5);
    } finally {
      await fast.stop();
    }
  });

  test("rest_limits publish the REST rate limits' buckets by name, following the REST_RATE_* settings", async () => {
    const defaults = (await server.api("GET", "/api/v1/platform/config")).body.rest_limits;
    expect(defaults["messages.send"]).toEqual({ requests: 100, window_seconds: 10, per: "caller_and_channel", counted_in: "messages.send.all" });
    expect(defaults["messages.send.all"]).toEqual({ requests: 500, window_seconds: 10, per: "caller", counted_in: null });
    expect(Object.keys(defaults).sort()).toEqual(["messages.send", "messages.send.all", "messages.write", "reactions", "reads", "writes"]);
    expect(defaults.reads).toEqual({ requests: 500, window_seconds: 10, per: "caller", counted_in: null });
    const fast = await startServer({ restRateLimits: { ...DEFAULT_REST_RATE_LIMITS, sends: { requests: 7, windowSeconds: 2 } } });
    try {
      expect((await fast.api("GET", "/api/v1/platform/config")).body.rest_limits["messages.send"]).toEqual({ requests: 7, window_seconds: 2, per: "caller_and_channel", counted_in: "messages.send.all" });
    } finally {
      await fast.stop();
    }
  });

  test("large_server_members follows LARGE_SERVER_MEMBERS", async () => {
    const small = await startServer({ largeServerMembers: 3 });
    try {
      expect((await small.api("GET", "/api/v1/platform/config")).body.large_server_members).toBe(3);
    } finally {
      await small.stop();
    }
  });

  test("GET /api/v1/stats counts users as integers without a token", async () => {
    const before = await server.api("GET", "/api/v1/stats");
    expect(before.status).toBe(200);
    expect(Object.keys(before.body).sort()).toEqual(["bots", "messages", "servers", "users"]);
    for (const value of Object.values(before.body)) expect(Number.isInteger(value)).toBe(true);
    await server.register();
    await server.register();
    const after = await server.api("GET", "/api/v1/stats");
    expect(after.body).toEqual({ ...before.body, users: before.body.users + 2 });
  });

  test("an unknown route is 404 {error}", async () => {
    for (const [method, path] of [["GET", "/api/v1/nope"], ["POST", "/api/v1/users/me/nothing"], ["DELETE", "/x"]] as const) {
      const res = await server.api(method, path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "Not found" });
    }
  });

  test("a JSON body over 1 MB is 413 before it is read", async () => {
    const res = await server.api("POST", "/api/v1/auth/login", { raw: "x".repeat(1024 * 1024 + 10), headers: { "content-type": "application/json" } });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: "Request body too large: the limit is 1 MB" });
  });
});
