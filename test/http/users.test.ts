import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startServer, uniqueName, waitForDisconnect, type TestServer, type TestUser, expectError } from "../helpers/server.ts";
import { quietWindow } from "../helpers/wait.ts";
import { totpCode } from "../helpers/totp.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UNKNOWN_ID = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
const NOT_A_UUID = "not-a-uuid";

const ME_KEYS = [
  "avatar", "banner", "banner_offset", "bio", "created_at", "custom_status", "email", "id", "is_bot", "platform_admin", "premium", "status",
  "two_factor_enabled", "username",
];
const PUBLIC_KEYS = ["avatar", "banner", "banner_offset", "bio", "created_at", "custom_status", "id", "is_bot", "status", "username"];
const CONNECTION_KEYS = ["created_at", "id", "name", "type", "url", "verified", "visible"];
const MUTED_KEYS = ["avatar", "created_at", "is_bot", "user_id", "username"];
const NOTIFICATION_DEFAULTS = {
  message_notifications: "all",
  dm_notifications: true,
  friend_request_notifications: true,
  sounds: true,
  desktop: true,
};

const users = (path: string) => `/api/v1/users${path}`;
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Shorthands for the calls every test makes, always with a user's token. */
const as = (user: TestUser) => ({
  get: (path: string) => server.api("GET", users(path), { token: user.token }),
  post: (path: string, body?: unknown) => server.api("POST", users(path), { token: user.token, body }),
  put: (path: string, body?: unknown) => server.api("PUT", users(path), { token: user.token, body }),
  del: (path: string) => server.api("DELETE", users(path), { token: user.token }),
});


/** The exact me-user shape, with types. */
function expectMeUser(body: any, user?: TestUser) {
  expect(Object.keys(body).sort()).toEqual(ME_KEYS);
  expect(body.id).toMatch(UUID);
  expect(typeof body.username).toBe("string");
  expect(typeof body.email).toBe("string");
  expect(body.avatar === null || typeof body.avatar === "string").toBe(true);
  expect(body.banner === null || typeof body.banner === "string").toBe(true);
  expect(Number.isInteger(body.banner_offset)).toBe(true);
  expect(typeof body.bio).toBe("string");
  expect(["online", "idle", "dnd", "offline"]).toContain(body.status);
  expect([0, 1]).toContain(body.is_bot);
  expect(typeof body.two_factor_enabled).toBe("boolean");
  expect(Number.isInteger(body.created_at)).toBe(true);
  if (user) expect(body).toMatchObject({ id: user.id, username: user.username, email: user.email });
}

function expectPublicUser(body: any) {
  expect(Object.keys(body).sort()).toEqual(PUBLIC_KEYS);
  expect(body.id).toMatch(UUID);
  expect(typeof body.username).toBe("string");
  expect(body.avatar === null || typeof body.avatar === "string").toBe(true);
  expect(body.banner === null || typeof body.banner === "string").toBe(true);
  expect(Number.isInteger(body.banner_offset)).toBe(true);
  expect(typeof body.bio).toBe("string");
  expect(["online", "idle", "dnd", "offline"]).toContain(body.status);
  expect([0, 1]).toContain(body.is_bot);
  expect(Number.isInteger(body.created_at)).toBe(true);
}

function expectConnection(body: any) {
  expect(Object.keys(body).sort()).toEqual(CONNECTION_KEYS);
  expect(body.id).toMatch(UUID);
  expect(body.verified).toBe(false);
  expect(typeof body.visible).toBe("boolean");
  expect(Number.isInteger(body.created_at)).toBe(true);
}

/** Every secret-looking key that must never appear in a user object. */
function expectNoSecrets(body: any) {
  const text = JSON.stringify(body);
  for (const key of ["password", "password_hash", "totp", "totp_secret", "totp_pending_secret", "token_version", "preferred_status", "updated_at"]) {
    expect(body).not.toHaveProperty(key);
  }
  expect(text).not.toContain("argon2");
}

const addConnection = (user: TestUser, body: Record<string, unknown>) => as(user).post("/me/connections", body);

describe("authentication on every /users route", () => {
  // Each with a body the route would accept, so only the token is missing.
  const routes: [string, string, unknown][] = [
    ["GET", "/me/info", undefined],
    ["PUT", "/me/profile", { bio: "hi" }],
    ["POST", "/me/avatar", undefined],
    ["DELETE", "/me/avatar", undefined],
    ["POST", "/me/banner", undefined],
    ["DELETE", "/me/banner", undefined],
    ["PUT", "/me/password", { currentPassword: "whatever123", newPassword: "whatever456" }],
    ["GET", "/me/notifications", undefined],
    ["POST", "/me/notifications", { sounds: false }],
    ["GET", "/me/connections", undefined],
    ["POST", "/me/connections", { type: "github", name: "octo" }],
    ["DELETE", `/me/connections/${UNKNOWN_ID}`, undefined],
    ["GET", "/me/muted-users", undefined],
    ["POST", `/me/muted-users/${UNKNOWN_ID}`, undefined],
    ["DELETE", `/me/muted-users/${UNKNOWN_ID}`, undefined],
    ["GET", `/${UNKNOWN_ID}`, undefined],
    ["GET", `/${UNKNOWN_ID}/profile`, undefined],
  ];

  test.each(routes)("%s %s without a token is 401", async (method, path, body) => {
    expectError(await server.api(method, users(path), { body }), 401, "Unauthorized");
  });

  test.each(routes)("%s %s with a garbage token is 401", async (method, path, body) => {
    expectError(await server.api(method, users(path), { token: "not.a.jwt", body }), 401, "Unauthorized");
  });

  // Authentication comes before body validation: an anonymous caller gets 401, not the body rules.
  test.each([
    ["PUT", "/me/profile", { bio: 5 }],
    ["PUT", "/me/password", {}],
    ["POST", "/me/notifications", { sounds: "loud" }],
    ["POST", "/me/connections", { type: "myspace" }],
  ])("%s %s without a token and with an invalid body is 401", async (method, path, body) => {
    expectError(await server.api(method, users(path), { body }), 401, "Unauthorized");
  });

  test("without a token, malformed JSON is 401", async () => {
    const res = await server.api("PUT", users("/me/profile"), { raw: "{not json", headers: { "content-type": "application/json" } });
    expectError(res, 401, "Unauthorized");
  });
});

describe("GET /api/v1/users/me/info", () => {
  test("answers the exact me-user shape, without secrets", async () => {
    const user = await server.register();
    const res = await as(user).get("/me/info");
    expect(res.status).toBe(200);
    expectMeUser(res.body, user);
    expect(res.body).toMatchObject({
      avatar: null,
      banner: null,
      banner_offset: 0,
      bio: "",
      status: "offline",
      is_bot: 0,
      two_factor_enabled: false,
    });
    expect(Math.abs(res.body.created_at - nowSeconds())).toBeLessThan(10);
    expectNoSecrets(res.body);
    expect(res.body).toEqual(user.user);
  });

  test("two_factor_enabled follows 2FA, and no TOTP secret leaks", async () => {
    const user = await server.register();
    const setup = await server.api("POST", "/api/v1/auth/2fa/setup", { token: user.token });
    const pending = await as(user).get("/me/info");
    expect(pending.body.two_factor_enabled).toBe(false);
    expect(JSON.stringify(pending.body)).not.toContain(setup.body.secret);
    await server.api("POST", "/api/v1/auth/2fa/enable", { token: user.token, body: { code: totpCode(setup.body.secret), password: user.password } });
    const res = await as(user).get("/me/info");
    expectMeUser(res.body, user);
    expect(res.body.two_factor_enabled).toBe(true);
    expectNoSecrets(res.body);
    expect(JSON.stringify(res.body)).not.toContain(setup.body.secret);
  });

  test("a query and a trailing slash are ignored, HEAD answers, and a password change refuses the old token at once", async () => {
    const user = await server.register();
    const get = (path: string, token: string | null, method = "GET") => fetch(server.url + users(path), { method, headers: token === null ? {} : { authorization: `Bearer ${token}` } });
    for (const path of ["/me/info?ignored=1", "/me/info/"]) expect((await (await get(path, user.token)).json()) as unknown).toEqual(user.user);
    const head = await get("/me/info", user.token, "HEAD");
    expect(head.status).toBe(200);
    expect(head.headers.get("x-ratelimit-bucket")).toBe("reads");
    // Refused before the count: no bucket is named.
    for (const token of [null, "not-a-token"]) {
      const refused = await get("/me/info", token);
      expect(refused.status).toBe(401);
      expect(refused.headers.get("x-ratelimit-bucket")).toBeNull();
    }
    const changed = await server.api("PUT", users("/me/password"), { token: user.token, body: { currentPassword: user.password, newPassword: "another-password-1" } });
    expect(changed.status).toBe(200);
    expect((await get("/me/info", user.token)).status).toBe(401);
    expect((await get("/me/info", changed.body.token)).status).toBe(200);
  });
});

describe("GET /api/v1/users/:id", () => {
  test("answers the exact public shape to another user, without email", async () => {
    const [viewer, target] = [await server.register(), await server.register()];
    await as(target).put("/me/profile", { bio: "hello there", banner_offset: 42 });
    const res = await as(viewer).get(`/${target.id}`);
    expect(res.status).toBe(200);
    expectPublicUser(res.body);
    expect(res.body).toEqual({
      id: target.id,
      username: target.username,
      avatar: null,
      banner: null,
      banner_offset: 42,
      bio: "hello there",
      status: "offline",
      custom_status: null,
      is_bot: 0,
      created_at: target.user.created_at,
    });
    expect(JSON.stringify(res.body)).not.toContain(target.email);
    expectNoSecrets(res.body);
  });

  test("a user can fetch themselves; still no email", async () => {
    const user = await server.register();
    const res = await as(user).get(`/${user.id}`);
    expect(res.status).toBe(200);
    expectPublicUser(res.body);
    expect(res.body).not.toHaveProperty("email");
  });

  test.each([
    ["an unknown UUID", UNKNOWN_ID],
    ["a non-UUID", NOT_A_UUID],
    ["an uppercase-mangled id", "ZZZZZZZZ-ZZZZ-ZZZZ-ZZZZ-ZZZZZZZZZZZZ"],
  ])("%s is 404", async (_name, id) => {
    const user = await server.register();
    expectError(await as(user).get(`/${id}`), 404, "User not found");
  });
});

describe("GET /api/v1/users/:id/profile", () => {
  test("answers the public fields plus only the visible connections", async () => {
    const [viewer, target] = [await server.register(), await server.register()];
    const shown = await addConnection(target, { type: "github", name: "octo", url: "https://github.com/octo" });
    const hidden = await addConnection(target, { type: "steam", name: "secret-gamer", visible: false });
    const shownToo = await addConnection(target, { type: "website", name: "my site", url: "http://example.test", visible: true });
    expect([shown.status, hidden.status, shownToo.status]).toEqual([201, 201, 201]);

    const res = await as(viewer).get(`/${target.id}/profile`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([...PUBLIC_KEYS, "connections", "mutual_friends", "mutual_servers"].sort());
    expect(res.body.mutual_servers).toEqual([]);
    expect(res.body.mutual_friends).toEqual([]);
    const { connections, mutual_servers: _mutual, mutual_friends: _friends, ...publicPart } = res.body;
    expectPublicUser(publicPart);
    expect(publicPart).toEqual((await as(viewer).get(`/${target.id}`)).body);
    expect(connections).toHaveLength(2);
    connections.forEach(expectConnection);
    expect(connections.map((c: any) => c.id).sort()).toEqual([shown.body.id, shownToo.body.id].sort());
    expect(connections.find((c: any) => c.id === shown.body.id)).toEqual(shown.body);
    expect(JSON.stringify(res.body)).not.toContain("secret-gamer");
    expect(JSON.stringify(res.body)).not.toContain(target.email);
    expectNoSecrets(res.body);
  });

  test("lists the servers the viewer shares with the user, and only those", async () => {
    const [viewer, target, stranger] = [await server.register(), await server.register(), await server.register()];
    const shared = await server.api("POST", "/api/v1/servers", { token: viewer.token, body: { name: "Shared" } });
    await server.api("POST", "/api/v1/servers", { token: target.token, body: { name: "Theirs only" } });
    await server.app.store.members.add(shared.body.id, target.id);
    const res = await as(viewer).get(`/${target.id}/profile`);
    expect(res.body.mutual_servers).toEqual([{ id: shared.body.id, name: "Shared", icon: null }]);
    expect((await as(stranger).get(`/${target.id}/profile`)).body.mutual_servers).toEqual([]);
  });

  test("a user without connections has an empty list", async () => {
    const [viewer, target] = [await server.register(), await server.register()];
    const res = await as(viewer).get(`/${target.id}/profile`);
    expect(res.status).toBe(200);
    expect(res.body.connections).toEqual([]);
  });

  test.each([UNKNOWN_ID, NOT_A_UUID])("%s is 404", async (id) => {
    const user = await server.register();
    expectError(await as(user).get(`/${id}/profile`), 404, "User not found");
  });
});

describe("PUT /api/v1/users/me/profile", () => {
  test("changes username, bio and banner_offset and answers the me-user", async () => {
    const user = await server.register();
    const username = uniqueName("Renamed");
    const res = await as(user).put("/me/profile", { username, bio: "about me", banner_offset: 100 });
    expect(res.status).toBe(200);
    expectMeUser(res.body);
    expect(res.body).toMatchObject({ id: user.id, email: user.email, username, bio: "about me", banner_offset: 100 });
    expect((await as(user).get("/me/info")).body).toEqual(res.body);
    // The new name logs in; the old one no longer names anybody.
    const login = await server.api("POST", "/api/v1/auth/login", { body: { login: username, password: user.password } });
    expect(login.status).toBe(200);
    const old = await server.api("POST", "/api/v1/auth/login", { body: { login: user.username, password: user.password } });
    expect(old.status).toBe(401);
  });

  test("fields left out are unchanged; an empty body changes nothing", async () => {
    const user = await server.register();
    await as(user).put("/me/profile", { bio: "keep me", banner_offset: 7 });
    const onlyOffset = await as(user).put("/me/profile", { banner_offset: 0 });
    expect(onlyOffset.status).toBe(200);
    expect(onlyOffset.body).toMatchObject({ username: user.username, bio: "keep me", banner_offset: 0 });
    const empty = await as(user).put("/me/profile", {});
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ username: user.username, bio: "keep me", banner_offset: 0 });
  });

  test("bio can be cleared to an empty string", async () => {
    const user = await server.register();
    await as(user).put("/me/profile", { bio: "something" });
    const res = await as(user).put("/me/profile", { bio: "" });
    expect(res.status).toBe(200);
    expect(res.body.bio).toBe("");
  });

  test("a username taken by another user, in any case, is 409", async () => {
    const [user, other] = [await server.register(), await server.register()];
    for (const name of [other.username, other.username.toUpperCase(), other.username.toLowerCase()]) {
      expectError(await as(user).put("/me/profile", { username: name }), 409, "Username is already taken");
    }
    expect((await as(user).get("/me/info")).body.username).toBe(user.username);
  });

  test("changing only the case of your own name is allowed", async () => {
    const user = await server.register(uniqueName("casey"));
    const upper = user.username.toUpperCase();
    const res = await as(user).put("/me/profile", { username: upper });
    expect(res.status).toBe(200);
    expect(res.body.username).toBe(upper);
    // Setting the very same name again is fine too.
    expect((await as(user).put("/me/profile", { username: upper })).status).toBe(200);
  });

  test("bio of exactly 500 characters is accepted, 501 is 400", async () => {
    const user = await server.register();
    const ok = await as(user).put("/me/profile", { bio: "b".repeat(500) });
    expect(ok.status).toBe(200);
    expect(ok.body.bio).toBe("b".repeat(500));
    expectError(await as(user).put("/me/profile", { bio: "b".repeat(501) }), 400, "bio: must be at most 500 characters");
    expect((await as(user).get("/me/info")).body.bio).toBe("b".repeat(500));
  });

  test.each([0, 1, 50, 99, 100])("banner_offset %p is accepted", async (banner_offset) => {
    const user = await server.register();
    const res = await as(user).put("/me/profile", { banner_offset });
    expect(res.status).toBe(200);
    expect(res.body.banner_offset).toBe(banner_offset);
  });

  test.each([
    [{ banner_offset: -1 }, "banner_offset: must be between 0 and 100"],
    [{ banner_offset: 101 }, "banner_offset: must be between 0 and 100"],
    [{ banner_offset: 50.5 }, "banner_offset: must be an integer"],
    [{ banner_offset: "50" }, "banner_offset: must be a number"],
    [{ banner_offset: null }, /^banner_offset: /],
    [{ bio: 123 }, "bio: must be a string"],
    [{ username: "a" }, "username: must be 2-32 characters"],
    [{ username: "x".repeat(33) }, "username: must be 2-32 characters"],
    [{ username: "has space" }, "username: may contain only letters, digits, _, . and -"],
    [{ username: 42 }, "username: must be a string"],
  ])("%j is 400 naming the field", async (body, error) => {
    const user = await server.register();
    expectError(await as(user).put("/me/profile", body), 400, error);
    const me = await as(user).get("/me/info");
    expect(me.body).toMatchObject({ username: user.username, bio: "", banner_offset: 0 });
  });

  test("a body that is not a JSON object is 400", async () => {
    const user = await server.register();
    for (const body of [[], "text", 5, null]) {
      expectError(await as(user).put("/me/profile", body), 400, "body: must be a JSON object");
    }
    const malformed = await server.api("PUT", users("/me/profile"), {
      token: user.token,
      raw: "{not json",
      headers: { "content-type": "application/json" },
    });
    expectError(malformed, 400);
  });
});

describe("GET/POST /api/v1/users/me/notifications", () => {
  test("defaults for a new account", async () => {
    const user = await server.register();
    const res = await as(user).get("/me/notifications");
    expect(res.status).toBe(200);
    expect(res.body).toEqual(NOTIFICATION_DEFAULTS);
  });

  test("a partial update merges, answers the whole settings, and persists", async () => {
    const user = await server.register();
    const first = await as(user).post("/me/notifications", { message_notifications: "mentions", sounds: false });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ ...NOTIFICATION_DEFAULTS, message_notifications: "mentions", sounds: false });
    const second = await as(user).post("/me/notifications", { desktop: false });
    expect(second.body).toEqual({ ...NOTIFICATION_DEFAULTS, message_notifications: "mentions", sounds: false, desktop: false });
    const third = await as(user).post("/me/notifications", { sounds: true, dm_notifications: false, friend_request_notifications: false });
    const expected = {
      message_notifications: "mentions",
      dm_notifications: false,
      friend_request_notifications: false,
      sounds: true,
      desktop: false,
    };
    expect(third.body).toEqual(expected);
    expect((await as(user).get("/me/notifications")).body).toEqual(expected);
    // Settings are per account.
    const other = await server.register();
    expect((await as(other).get("/me/notifications")).body).toEqual(NOTIFICATION_DEFAULTS);
  });

  test.each(["all", "mentions", "none"])("message_notifications %p is accepted", async (level) => {
    const user = await server.register();
    const res = await as(user).post("/me/notifications", { message_notifications: level });
    expect(res.status).toBe(200);
    expect(res.body.message_notifications).toBe(level);
  });

  test("an empty body changes nothing", async () => {
    const user = await server.register();
    const res = await as(user).post("/me/notifications", {});
    expect(res.status).toBe(200);
    expect(res.body).toEqual(NOTIFICATION_DEFAULTS);
  });

  test.each([
    [{ message_notifications: "everything" }, "message_notifications: must be one of all, mentions, none"],
    [{ message_notifications: 1 }, "message_notifications: must be one of all, mentions, none"],
    [{ sounds: "false" }, "sounds: must be a boolean"],
    [{ desktop: 0 }, "desktop: must be a boolean"],
    [{ dm_notifications: null }, /^dm_notifications: /],
    [{ friend_request_notifications: "yes" }, "friend_request_notifications: must be a boolean"],
  ])("%j is 400 and changes nothing", async (body, error) => {
    const user = await server.register();
    expectError(await as(user).post("/me/notifications", body), 400, error);
    expect((await as(user).get("/me/notifications")).body).toEqual(NOTIFICATION_DEFAULTS);
  });

  test("a body that is not a JSON object is 400", async () => {
    const user = await server.register();
    expectError(await as(user).post("/me/notifications", ["all"]), 400, "body: must be a JSON object");
  });
});

describe("/api/v1/users/me/connections", () => {
  test("POST answers 201 with the connection; GET lists it", async () => {
    const user = await server.register();
    const res = await addConnection(user, { type: "github", name: "  octo  ", url: "https://github.com/octo" });
    expect(res.status).toBe(201);
    expectConnection(res.body);
    expect(res.body).toMatchObject({ type: "github", name: "octo", url: "https://github.com/octo", visible: true, verified: false });
    expect(Math.abs(res.body.created_at - nowSeconds())).toBeLessThan(10);
    const list = await as(user).get("/me/connections");
    expect(list.status).toBe(200);
    expect(list.body).toEqual([res.body]);
  });

  test("url is optional (null) and visible defaults to true; hidden ones are listed to their owner", async () => {
    const user = await server.register();
    const plain = await addConnection(user, { type: "steam", name: "gamer" });
    expect(plain.status).toBe(201);
    expect(plain.body).toMatchObject({ url: null, visible: true });
    const hidden = await addConnection(user, { type: "twitch", name: "streamer", visible: false });
    expect(hidden.body.visible).toBe(false);
    const list = await as(user).get("/me/connections");
    expect(list.body.map((c: any) => c.id).sort()).toEqual([plain.body.id, hidden.body.id].sort());
  });

  test("a new account has no connections", async () => {
    const user = await server.register();
    const res = await as(user).get("/me/connections");
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  test.each([
    [{ name: "x" }, "type: is required"],
    [{ type: "myspace", name: "x" }, /^type: must be one of /],
    [{ type: "github" }, "name: is required"],
    [{ type: "github", name: "   " }, "name: must not be empty"],
    [{ type: "github", name: "n".repeat(101) }, "name: must be at most 100 characters"],
    [{ type: "website", name: "x", url: "javascript:alert(1)" }, "url: must be an http(s) URL"],
    [{ type: "website", name: "x", url: "ftp://example.test/file" }, "url: must be an http(s) URL"],
    [{ type: "website", name: "x", url: "example.test" }, "url: must be an http(s) URL"],
    [{ type: "website", name: "x", url: "https://exa mple.test" }, "url: must be an http(s) URL"],
    [{ type: "website", name: "x", url: `https://example.test/${"a".repeat(600)}` }, "url: must be at most 512 characters"],
    [{ type: "website", name: "x", visible: "yes" }, "visible: must be a boolean"],
  ])("POST %j is 400 naming the field", async (body, error) => {
    const user = await server.register();
    expectError(await addConnection(user, body), 400, error);
    expect((await as(user).get("/me/connections")).body).toEqual([]);
  });

  test("20 connections are allowed; the 21st is 400", async () => {
    const user = await server.register();
    for (let i = 0; i < 20; i++) {
      const res = await addConnection(user, { type: "website", name: `site ${i}`, url: `https://site${i}.example.test` });
      expect(res.status).toBe(201);
    }
    expectError(await addConnection(user, { type: "github", name: "one too many" }), 400, /20/);
    expect((await as(user).get("/me/connections")).body).toHaveLength(20);
    // Deleting one makes room again.
    const [first] = (await as(user).get("/me/connections")).body;
    expect((await as(user).del(`/me/connections/${first.id}`)).status).toBe(200);
    expect((await addConnection(user, { type: "github", name: "fits now" })).status).toBe(201);
  });

  test("DELETE removes it; a second DELETE is 404", async () => {
    const user = await server.register();
    const keep = await addConnection(user, { type: "github", name: "keep" });
    const drop = await addConnection(user, { type: "gitlab", name: "drop" });
    const res = await as(user).del(`/me/connections/${drop.body.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect((await as(user).get("/me/connections")).body).toEqual([keep.body]);
    expectError(await as(user).del(`/me/connections/${drop.body.id}`), 404, "Connection not found");
  });

  test("deleting another user's connection is 404 and leaves it in place", async () => {
    const [owner, intruder] = [await server.register(), await server.register()];
    const conn = await addConnection(owner, { type: "github", name: "mine" });
    expectError(await as(intruder).del(`/me/connections/${conn.body.id}`), 404, "Connection not found");
    expect((await as(owner).get("/me/connections")).body).toEqual([conn.body]);
  });

  test.each([UNKNOWN_ID, NOT_A_UUID])("DELETE of %s is 404", async (id) => {
    const user = await server.register();
    expectError(await as(user).del(`/me/connections/${id}`), 404, "Connection not found");
  });
});

describe("/api/v1/users/me/muted-users", () => {
  test("POST mutes (201), again answers 200; GET lists the exact shape", async () => {
    const [user, target] = [await server.register(), await server.register()];
    const first = await as(user).post(`/me/muted-users/${target.id}`);
    expect(first.status).toBe(201);
    expect(Object.keys(first.body).sort()).toEqual(MUTED_KEYS);
    expect(first.body).toMatchObject({ user_id: target.id, username: target.username, avatar: null, is_bot: 0 });
    expect(Math.abs(first.body.created_at - nowSeconds())).toBeLessThan(10);

    const again = await as(user).post(`/me/muted-users/${target.id}`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);

    const list = await as(user).get("/me/muted-users");
    expect(list.status).toBe(200);
    expect(list.body).toEqual([first.body]);
    // Muting is one-way and per account.
    expect((await as(target).get("/me/muted-users")).body).toEqual([]);
  });

  test("a new account has no muted users", async () => {
    const user = await server.register();
    const res = await as(user).get("/me/muted-users");
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  test("several muted users are all listed", async () => {
    const [user, a, b] = [await server.register(), await server.register(), await server.register()];
    await as(user).post(`/me/muted-users/${a.id}`);
    await as(user).post(`/me/muted-users/${b.id}`);
    const list = await as(user).get("/me/muted-users");
    expect(list.body.map((m: any) => m.user_id).sort()).toEqual([a.id, b.id].sort());
    list.body.forEach((m: any) => expect(Object.keys(m).sort()).toEqual(MUTED_KEYS));
  });

  test("DELETE unmutes; a second DELETE is 404", async () => {
    const [user, target] = [await server.register(), await server.register()];
    await as(user).post(`/me/muted-users/${target.id}`);
    const res = await as(user).del(`/me/muted-users/${target.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect((await as(user).get("/me/muted-users")).body).toEqual([]);
    expectError(await as(user).del(`/me/muted-users/${target.id}`), 404);
  });

  test("DELETE of a user who was never muted is 404", async () => {
    const [user, target] = [await server.register(), await server.register()];
    expectError(await as(user).del(`/me/muted-users/${target.id}`), 404, "Muted user not found");
  });

  test("muting yourself is 400", async () => {
    const user = await server.register();
    expectError(await as(user).post(`/me/muted-users/${user.id}`), 400, "You cannot mute yourself");
    expect((await as(user).get("/me/muted-users")).body).toEqual([]);
  });

  test.each([UNKNOWN_ID, NOT_A_UUID])("POST and DELETE for target %s are 404", async (id) => {
    const user = await server.register();
    expectError(await as(user).post(`/me/muted-users/${id}`), 404, "User not found");
    expectError(await as(user).del(`/me/muted-users/${id}`), 404, "User not found");
  });
});

describe("PUT /api/v1/users/me/password", () => {
  const changePassword = (token: string, body: unknown) => server.api("PUT", users("/me/password"), { token, body });

  test("answers a new {token, user}; the old token is revoked, the new one works", async () => {
    const user = await server.register();
    const res = await changePassword(user.token, { currentPassword: user.password, newPassword: "brand new password" });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["token", "user"]);
    expect(typeof res.body.token).toBe("string");
    expect(res.body.token).not.toBe(user.token);
    expectMeUser(res.body.user, user);
    expectNoSecrets(res.body.user);

    expectError(await server.api("GET", users("/me/info"), { token: user.token }), 401, "Unauthorized");
    expectError(await server.api("GET", users(`/${user.id}`), { token: user.token }), 401, "Unauthorized");
    const me = await server.api("GET", users("/me/info"), { token: res.body.token });
    expect(me.status).toBe(200);
    expect(me.body).toEqual(res.body.user);
  });

  test("login works with the new password and fails (401) with the old one", async () => {
    const user = await server.register();
    const newPassword = "another new password";
    expect((await changePassword(user.token, { currentPassword: user.password, newPassword })).status).toBe(200);
    const good = await server.api("POST", "/api/v1/auth/login", { body: { login: user.username, password: newPassword } });
    expect(good.status).toBe(200);
    expect(good.body.user.id).toBe(user.id);
    const bad = await server.api("POST", "/api/v1/auth/login", { body: { login: user.username, password: user.password } });
    expectError(bad, 401, "Invalid login or password");
  });

  test("every token issued before the change is revoked, not only the one that made it", async () => {
    const user = await server.register();
    const second = await server.api("POST", "/api/v1/auth/login", { body: { login: user.email, password: user.password } });
    const changed = await changePassword(user.token, { currentPassword: user.password, newPassword: "third password!" });
    expect(changed.status).toBe(200);
    expectError(await server.api("GET", users("/me/info"), { token: second.body.token }), 401);
    // The old token cannot change the password again either.
    expectError(await changePassword(user.token, { currentPassword: "third password!", newPassword: "fourth password" }), 401);
  });

  test("a gateway socket connected with the old token is disconnected; the old token cannot reconnect", async () => {
    const user = await server.register();
    const socket = await server.connect(user.token);
    const disconnected = waitForDisconnect(socket);
    const res = await changePassword(user.token, { currentPassword: user.password, newPassword: "socket killer pw" });
    expect(res.status).toBe(200);
    expect(await disconnected).toBe("io server disconnect");
    await expect(server.connect(user.token)).rejects.toThrow("Unauthorized");
    const fresh = await server.connect(res.body.token);
    expect(fresh.connected).toBe(true);
    fresh.close();
  });

  test("another user's socket stays connected", async () => {
    const [user, bystander] = [await server.register(), await server.register()];
    const socket = await server.connect(bystander.token);
    expect((await changePassword(user.token, { currentPassword: user.password, newPassword: "only mine please" })).status).toBe(200);
    await quietWindow();
    expect(socket.connected).toBe(true);
    socket.close();
  });

  test("a wrong currentPassword is 400 and changes nothing", async () => {
    const user = await server.register();
    const res = await changePassword(user.token, { currentPassword: "definitely wrong", newPassword: "brand new password" });
    expectError(res, 400, /^currentPassword: /);
    expect((await server.api("GET", users("/me/info"), { token: user.token })).status).toBe(200);
    const login = await server.api("POST", "/api/v1/auth/login", { body: { login: user.username, password: user.password } });
    expect(login.status).toBe(200);
  });

  test.each([
    [{ currentPassword: "x" }, "newPassword: is required"],
    [{ newPassword: "long enough pw" }, "currentPassword: is required"],
    [{ currentPassword: "x", newPassword: "short" }, "newPassword: must be at least 8 characters"],
    [{ currentPassword: "x", newPassword: "n".repeat(257) }, "newPassword: must be at most 256 characters"],
    [{ currentPassword: "x", newPassword: 12345678 }, "newPassword: must be a string"],
    [{ currentPassword: 5, newPassword: "long enough pw" }, "currentPassword: must be a string"],
  ])("%j is 400 naming the field", async (body, error) => {
    const user = await server.register();
    expectError(await changePassword(user.token, body), 400, error);
    expect((await server.api("GET", users("/me/info"), { token: user.token })).status).toBe(200);
  });

  test("a short newPassword with the right currentPassword is 400 and keeps the old password", async () => {
    const user = await server.register();
    expectError(await changePassword(user.token, { currentPassword: user.password, newPassword: "1234567" }), 400, "newPassword: must be at least 8 characters");
    const login = await server.api("POST", "/api/v1/auth/login", { body: { login: user.username, password: user.password } });
    expect(login.status).toBe(200);
  });

  test("a body that is not a JSON object is 400", async () => {
    const user = await server.register();
    expectError(await changePassword(user.token, "password"), 400, "body: must be a JSON object");
  });
});
