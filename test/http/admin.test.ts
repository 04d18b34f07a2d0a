import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createBot } from "../helpers/bots.ts";
import { createServer } from "../helpers/community.ts";
import { expectError, startServer, uniqueName, type TestServer, type TestUser } from "../helpers/server.ts";

// /api/v1/admin (docs/admin.md): settings, users, servers, the platform log, and who may call them.
let server: TestServer;
let admin: TestUser;
beforeAll(async () => {
  server = await startServer();
  admin = await server.register(); // the first human account is the administrator
});
afterAll(() => server.stop());

const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";
const ADMIN_USER_KEYS = [
  "avatar", "created_at", "disabled", "disabled_at", "email", "id", "is_bot", "platform_admin", "premium", "two_factor_enabled", "username",
];
const DETAIL_KEYS = [...ADMIN_USER_KEYS, "open_reports", "owned_server_count", "server_count"].sort();
const ADMIN_SERVER_KEYS = ["created_at", "description", "icon", "id", "member_count", "name", "owner", "verified"];
const LOG_KEYS = ["action", "actor", "changes", "created_at", "id", "target_id", "target_type"];

const call = (method: string, path: string, token: string | null, body?: unknown) =>
  server.api(method, `/api/v1/admin${path}`, { token, body });
const as = (user: { token: string } | null) => ({
  get: (path: string) => call("GET", path, user?.token ?? null),
  patch: (path: string, body: unknown) => call("PATCH", path, user?.token ?? null, body),
  post: (path: string, body: unknown) => call("POST", path, user?.token ?? null, body),
});
/** The newest platform log entries. */
const latestLog = async (limit = 1) => (await as(admin).get(`/log?limit=${limit}`)).body.entries as Record<string, any>[];

describe("who may call /api/v1/admin", () => {
  // Every row has three cells: bun:test reads a callback with more parameters than cells as taking `done`.
  const routes: [string, string, unknown][] = [
    ["GET", "/settings", undefined],
    ["PATCH", "/settings", { registration_open: false }],
    ["GET", "/users", undefined],
    ["POST", "/users", { username: "nobody_here", email: "n@example.test", password: "password123" }],
    ["GET", `/users/${UNKNOWN}`, undefined],
    ["PATCH", `/users/${UNKNOWN}`, { premium: true }],
    ["GET", "/servers", undefined],
    ["GET", `/servers/${UNKNOWN}`, undefined],
    ["PATCH", `/servers/${UNKNOWN}`, { verified: true }],
    ["GET", "/reports", undefined],
    ["GET", `/reports/${UNKNOWN}`, undefined],
    ["POST", `/reports/${UNKNOWN}/resolve`, {}],
    ["GET", "/log", undefined],
  ];

  test.each(routes)("%s %s: 401 without a token, 403 for a user and for a bot, even with a bad body", async (method, path, body) => {
    expectError(await call(method, path, null, body), 401, "Unauthorized");
    expectError(await call(method, path, "not-a-token", body), 401, "Unauthorized");
    const user = await server.register();
    expectError(await call(method, path, user.token, body), 403, "Platform administrators only (MANAGE_SETTINGS)");
    // A non-administrator learns 403 before the body is looked at.
    if (method !== "GET") expectError(await call(method, path, user.token, { registration_open: "nope", premium: 7 }), 403);
    // A bot, even one an administrator owns, is never an administrator.
    const bot = await createBot(server, admin);
    expectError(await call(method, path, bot.token, body), 403, "Platform administrators only (MANAGE_SETTINGS)");
  });

  test("nothing is logged for refused calls", async () => {
    const before = (await latestLog(1))[0]?.id;
    const user = await server.register();
    await call("PATCH", "/settings", user.token, { registration_open: false });
    expect((await latestLog(1))[0]?.id).toBe(before);
    expect((await as(admin).get("/settings")).body.registration_open).toBe(true);
  });
});

describe("platform settings", () => {
  test("GET answers exactly the general settings with their defaults", async () => {
    const res = await as(admin).get("/settings");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ registration_open: true, require_2fa_for_applications: false });
  });

  test("closing registration: register answers 403, platform config follows, admins still create accounts", async () => {
    const res = await as(admin).patch("/settings", { registration_open: false });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ registration_open: false, require_2fa_for_applications: false });
    const [entry] = await latestLog();
    expect(Object.keys(entry!).sort()).toEqual(LOG_KEYS);
    expect(entry).toMatchObject({
      action: "SETTINGS_UPDATE",
      actor: { id: admin.id, username: admin.username },
      target_type: null,
      target_id: null,
      changes: { registration_open: { old: true, new: false } },
    });
    expect((await server.api("GET", "/api/v1/platform/config")).body.features.registration_open).toBe(false);

    const name = uniqueName();
    const refused = await server.api("POST", "/api/v1/auth/register", {
      body: { username: name, email: `${name}@example.test`, password: "password123" },
    });
    expectError(refused, 403, "Registration is closed on this server: ask an administrator for an account");
    // Existing accounts still log in.
    const login = await server.api("POST", "/api/v1/auth/login", { body: { login: admin.username, password: admin.password } });
    expect(login.status).toBe(200);

    // An administrator creates the account instead; its owner can log in.
    const created = await as(admin).post("/users", { username: name, email: `${name}@example.test`, password: "password123" });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(DETAIL_KEYS);
    expect(created.body).toMatchObject({ username: name, email: `${name}@example.test`, is_bot: 0, premium: false, platform_admin: false, disabled: false, server_count: 0 });
    expect((await latestLog())[0]).toMatchObject({ action: "USER_CREATE", target_type: "user", target_id: created.body.id, changes: { username: name } });
    const theirs = await server.api("POST", "/api/v1/auth/login", { body: { login: name, password: "password123" } });
    expect(theirs.status).toBe(200);

    await as(admin).patch("/settings", { registration_open: true });
    expect((await server.api("GET", "/api/v1/platform/config")).body.features.registration_open).toBe(true);
    expect((await server.register()).token).toBeString();
  });

  test("admin-created accounts follow the register rules: 409 when taken, 400 naming the field", async () => {
    const other = await server.register();
    expectError(await as(admin).post("/users", { username: other.username, email: "fresh@example.test", password: "password123" }), 409, "Username is already taken");
    expectError(await as(admin).post("/users", { username: "fresh_one", email: other.email, password: "password123" }), 409, "Email is already registered");
    expectError(await as(admin).post("/users", { username: "fresh_one", email: "nope", password: "password123" }), 400, "email: must be a valid email address");
    expectError(await as(admin).post("/users", { username: "fresh_one", email: "f@example.test" }), 400, "password: is required");
  });

  test("two-factor for applications is a live setting, shown in platform config", async () => {
    const user = await server.register();
    const createApp = () =>
      server.api("POST", "/api/v1/oauth2/applications", { token: user.token, body: { name: "Gated", description: "x" } });
    expect((await createApp()).status).toBe(201);
    const res = await as(admin).patch("/settings", { require_2fa_for_applications: true });
    expect(res.body).toEqual({ registration_open: true, require_2fa_for_applications: true });
    expect((await latestLog())[0]).toMatchObject({
      action: "SETTINGS_UPDATE",
      changes: { require_2fa_for_applications: { old: false, new: true } },
    });
    expect((await server.api("GET", "/api/v1/platform/config")).body.features.two_factor_required_for_applications).toBe(true);
    expectError(await createApp(), 403, "Enable two-factor authentication to create applications");
    await as(admin).patch("/settings", { require_2fa_for_applications: false });
    expect((await createApp()).status).toBe(201);
    expect((await server.api("GET", "/api/v1/platform/config")).body.features.two_factor_required_for_applications).toBe(false);
  });

  test("an unchanged value writes no log entry; an empty body changes nothing", async () => {
    const before = (await latestLog())[0]!.id;
    expect((await as(admin).patch("/settings", { registration_open: true })).status).toBe(200);
    expect((await as(admin).patch("/settings", {})).body).toEqual({ registration_open: true, require_2fa_for_applications: false });
    expect((await latestLog())[0]!.id).toBe(before);
  });

  test("bad bodies are 400 naming the field", async () => {
    expectError(await as(admin).patch("/settings", { registration_open: "yes" }), 400, "registration_open: must be a boolean");
    expectError(await as(admin).patch("/settings", { require_2fa_for_applications: 1 }), 400, "require_2fa_for_applications: must be a boolean");
    expectError(await as(admin).patch("/settings", [true]), 400, "body: must be a JSON object");
    const malformed = await server.api("PATCH", "/api/v1/admin/settings", {
      token: admin.token,
      raw: "{nope",
      headers: { "content-type": "application/json" },
    });
    expectError(malformed, 400);
  });

  test("the configuration's REQUIRE_2FA_FOR_APPLICATIONS is the setting's default", async () => {
    const other = await startServer({ requireTwoFactorForApplications: true });
    try {
      const first = await other.register();
      const res = await other.api("GET", "/api/v1/admin/settings", { token: first.token });
      expect(res.body).toEqual({ registration_open: true, require_2fa_for_applications: true });
      await other.api("PATCH", "/api/v1/admin/settings", { token: first.token, body: { require_2fa_for_applications: false } });
      const app = await other.api("POST", "/api/v1/oauth2/applications", { token: first.token, body: { name: "Now", description: "ok" } });
      expect(app.status).toBe(201);
    } finally {
      await other.stop();
    }
  });
});

describe("users", () => {
  test("the list: newest first, exact shape, paged with before and limit", async () => {
    const a = await server.register();
    const b = await server.register();
    const res = await as(admin).get("/users?limit=2");
    expect(res.status).toBe(200);
    expect(res.body.map((u: any) => u.id)).toEqual([b.id, a.id]);
    for (const user of res.body) expect(Object.keys(user).sort()).toEqual(ADMIN_USER_KEYS);
    expect(res.body[0]).toEqual({
      id: b.id,
      username: b.username,
      email: b.email,
      avatar: null,
      is_bot: 0,
      premium: false,
      platform_admin: false,
      disabled: false,
      disabled_at: null,
      two_factor_enabled: false,
      created_at: expect.any(Number),
    });
    const next = await as(admin).get(`/users?limit=1&before=${a.id}`);
    expect(next.body).toHaveLength(1);
    expect(next.body[0].id < a.id).toBe(true);
    // The default page is 50; the administrator is the oldest account.
    const all = await as(admin).get("/users");
    expect(all.body.length).toBeLessThanOrEqual(50);
  });

  test("search by part of the username or email, case-insensitively; filters by flag", async () => {
    const tag = `Zq${Date.now().toString(36)}`;
    const found = await server.register(`${tag}_one`);
    await server.register(`${tag.toLowerCase()}_two`);
    const byName = await as(admin).get(`/users?q=${tag.toUpperCase()}`);
    expect(byName.body.map((u: any) => u.username).sort()).toEqual([`${tag.toLowerCase()}_two`, `${tag}_one`].sort());
    const byEmail = await as(admin).get(`/users?q=${encodeURIComponent(`${tag}_one@example`)}`);
    expect(byEmail.body.map((u: any) => u.id)).toEqual([found.id]);
    // LIKE wildcards are literal.
    expect((await as(admin).get("/users?q=%25")).body).toEqual([]);
    expect((await as(admin).get(`/users?q=${tag}&premium=true`)).body).toEqual([]);
    await as(admin).patch(`/users/${found.id}`, { premium: true });
    expect((await as(admin).get(`/users?q=${tag}&premium=true`)).body.map((u: any) => u.id)).toEqual([found.id]);
    const admins = await as(admin).get("/users?admin=true");
    expect(admins.body.map((u: any) => u.id)).toContain(admin.id);
    expect(admins.body.every((u: any) => u.platform_admin)).toBe(true);
    const bot = await createBot(server, admin);
    const bots = await as(admin).get("/users?bot=true&limit=100");
    expect(bots.body.map((u: any) => u.id)).toContain(bot.botUserId);
    expect(bots.body.every((u: any) => u.is_bot === 1)).toBe(true);
  });

  test("bad list queries are 400 naming the parameter", async () => {
    expectError(await as(admin).get("/users?limit=0"), 400, "limit: must be a whole number between 1 and 100");
    expectError(await as(admin).get("/users?limit=101"), 400, "limit: must be a whole number between 1 and 100");
    expectError(await as(admin).get("/users?before=xyz"), 400, "before: must be an id from a previous page");
    expectError(await as(admin).get("/users?premium=yes"), 400, "premium: must be true or false");
    expectError(await as(admin).get(`/users?q=${"x".repeat(101)}`), 400, "q: must be at most 100 characters");
  });

  test("one user: the detail shape; 404 for an unknown or malformed id", async () => {
    const user = await server.register();
    await createServer(server, user);
    const res = await as(admin).get(`/users/${user.id}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(DETAIL_KEYS);
    expect(res.body).toMatchObject({ id: user.id, server_count: 1, owned_server_count: 1, open_reports: 0 });
    expectError(await as(admin).get(`/users/${UNKNOWN}`), 404, "User not found");
    expectError(await as(admin).get("/users/not-an-id"), 404, "User not found");
    expectError(await as(admin).patch(`/users/${UNKNOWN}`, { premium: true }), 404, "User not found");
  });

  test("premium: set and cleared, logged, visible to its owner on /users/me/info", async () => {
    const user = await server.register();
    expect(user.user.premium).toBe(false);
    const res = await as(admin).patch(`/users/${user.id}`, { premium: true });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(DETAIL_KEYS);
    expect(res.body.premium).toBe(true);
    expect((await latestLog())[0]).toMatchObject({
      action: "USER_PREMIUM_GRANT",
      actor: { id: admin.id },
      target_type: "user",
      target_id: user.id,
      changes: { premium: true },
    });
    expect((await server.api("GET", "/api/v1/users/me/info", { token: user.token })).body).toMatchObject({ premium: true, platform_admin: false });
    await as(admin).patch(`/users/${user.id}`, { premium: false });
    expect((await latestLog())[0]).toMatchObject({ action: "USER_PREMIUM_REVOKE", target_id: user.id, changes: { premium: false } });
    expect((await server.api("GET", "/api/v1/users/me/info", { token: user.token })).body.premium).toBe(false);
    // The same value again changes and logs nothing.
    const before = (await latestLog())[0]!.id;
    await as(admin).patch(`/users/${user.id}`, { premium: false });
    expect((await latestLog())[0]!.id).toBe(before);
  });

  test("promote and demote: the new administrator can use admin routes; logged both ways", async () => {
    const user = await server.register();
    expectError(await as(user).get("/settings"), 403);
    const promoted = await as(admin).patch(`/users/${user.id}`, { platform_admin: true });
    expect(promoted.body.platform_admin).toBe(true);
    expect((await latestLog())[0]).toMatchObject({ action: "USER_PROMOTE", target_id: user.id, changes: { platform_admin: true } });
    expect((await as(user).get("/settings")).status).toBe(200);
    expect((await server.api("GET", "/api/v1/users/me/info", { token: user.token })).body.platform_admin).toBe(true);
    // An administrator may step down while another remains.
    const demoted = await as(user).patch(`/users/${user.id}`, { platform_admin: false });
    expect(demoted.body.platform_admin).toBe(false);
    expect((await latestLog())[0]).toMatchObject({ action: "USER_DEMOTE", actor: { id: user.id }, target_id: user.id });
    expectError(await as(user).get("/settings"), 403, "Platform administrators only (MANAGE_SETTINGS)");
  });

  test("the last administrator cannot demote themselves; a bot cannot be promoted or premium", async () => {
    const before = (await latestLog())[0]!.id;
    expectError(
      await as(admin).patch(`/users/${admin.id}`, { platform_admin: false }),
      400,
      "The platform needs at least one administrator: promote someone else first",
    );
    const bot = await createBot(server, admin);
    expectError(await as(admin).patch(`/users/${bot.botUserId}`, { platform_admin: true }), 400, "platform_admin: a bot cannot be a platform administrator");
    expectError(await as(admin).patch(`/users/${bot.botUserId}`, { premium: true }), 400, "premium: a bot cannot be premium");
    expect((await latestLog())[0]!.id).toBe(before);
    expect((await as(admin).get("/settings")).status).toBe(200);
  });

  test("bad flag bodies are 400 naming the field", async () => {
    const user = await server.register();
    expectError(await as(admin).patch(`/users/${user.id}`, { premium: "yes" }), 400, "premium: must be a boolean");
    expectError(await as(admin).patch(`/users/${user.id}`, { platform_admin: null }), 400, "platform_admin: must be a boolean");
    expectError(await as(admin).patch(`/users/${user.id}`, { disabled: 1 }), 400, "disabled: must be a boolean");
  });
});

describe("servers", () => {
  test("the list: exact shape, newest first, search by name, verified filter, paging", async () => {
    const owner = await server.register();
    const tag = `Srv${Date.now().toString(36)}`;
    const first = await createServer(server, owner, `${tag} Alpha`);
    const second = await createServer(server, owner, `${tag} beta`);
    const res = await as(admin).get(`/servers?q=${tag.toLowerCase()}`);
    expect(res.status).toBe(200);
    expect(res.body.map((s: any) => s.id)).toEqual([second, first]);
    expect(Object.keys(res.body[0]).sort()).toEqual(ADMIN_SERVER_KEYS);
    expect(res.body[0]).toEqual({
      id: second,
      name: `${tag} beta`,
      description: "",
      icon: null,
      owner: { id: owner.id, username: owner.username },
      verified: false,
      member_count: 1,
      created_at: expect.any(Number),
    });
    const page = await as(admin).get(`/servers?q=${tag}&limit=1`);
    expect(page.body.map((s: any) => s.id)).toEqual([second]);
    expect((await as(admin).get(`/servers?q=${tag}&before=${second}`)).body.map((s: any) => s.id)).toEqual([first]);
    expect((await as(admin).get(`/servers?q=${tag}&verified=true`)).body).toEqual([]);
    expectError(await as(admin).get("/servers?limit=500"), 400, "limit: must be a whole number between 1 and 100");
    expectError(await as(admin).get("/servers?verified=1"), 400, "verified: must be true or false");
  });

  test("one server; 404 for unknown ids", async () => {
    const owner = await server.register();
    const id = await createServer(server, owner, "Lookup");
    const res = await as(admin).get(`/servers/${id}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(ADMIN_SERVER_KEYS);
    expect(res.body.name).toBe("Lookup");
    expectError(await as(admin).get(`/servers/${UNKNOWN}`), 404, "Server not found");
    expectError(await as(admin).get("/servers/zzz"), 404, "Server not found");
  });

  test("the verified flag: set, logged, shown on the server itself, cleared", async () => {
    const owner = await server.register();
    const id = await createServer(server, owner, "Verify me");
    const res = await as(admin).patch(`/servers/${id}`, { verified: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, verified: true });
    expect((await latestLog())[0]).toMatchObject({
      action: "SERVER_VERIFY",
      actor: { id: admin.id },
      target_type: "server",
      target_id: id,
      changes: { verified: true },
    });
    expect((await server.api("GET", `/api/v1/servers/${id}`, { token: owner.token })).body.verified).toBe(true);
    expect((await as(admin).get(`/servers?verified=true&limit=100`)).body.map((s: any) => s.id)).toContain(id);
    await as(admin).patch(`/servers/${id}`, { verified: false });
    expect((await latestLog())[0]).toMatchObject({ action: "SERVER_UNVERIFY", target_id: id, changes: { verified: false } });
    expectError(await as(admin).patch(`/servers/${id}`, { verified: "true" }), 400, "verified: must be a boolean");
    expectError(await as(admin).patch(`/servers/${UNKNOWN}`, { verified: true }), 404, "Server not found");
  });
});

describe("the platform log", () => {
  test("{entries, hasMore}, newest first, paged by entry id", async () => {
    const user = await server.register();
    await as(admin).patch(`/users/${user.id}`, { premium: true });
    await as(admin).patch(`/users/${user.id}`, { premium: false });
    const res = await as(admin).get("/log?limit=2");
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["entries", "hasMore"]);
    expect(res.body.hasMore).toBe(true);
    expect(res.body.entries.map((e: any) => e.action)).toEqual(["USER_PREMIUM_REVOKE", "USER_PREMIUM_GRANT"]);
    for (const entry of res.body.entries) expect(Object.keys(entry).sort()).toEqual(LOG_KEYS);
    const next = await as(admin).get(`/log?limit=1&before=${res.body.entries[1].id}`);
    expect(next.body.entries).toHaveLength(1);
    expect(next.body.entries[0].id < res.body.entries[1].id).toBe(true);
    expectError(await as(admin).get("/log?limit=0"), 400, "limit: must be a whole number between 1 and 100");
    expectError(await as(admin).get("/log?before=1"), 400, "before: must be an id from a previous page");
  });
});
