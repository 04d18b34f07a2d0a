import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createBot } from "../helpers/bots.ts";
import { expectError, startServer, waitForDisconnect, type TestServer, type TestUser } from "../helpers/server.ts";

// Disabling an account (docs/admin.md#disabling-an-account): tokens, sockets and login stop at once.
let server: TestServer;
let admin: TestUser;
beforeAll(async () => {
  server = await startServer();
  admin = await server.register();
});
afterAll(() => server.stop());

const DISABLED = "This account has been disabled by an administrator";
const setFlags = (id: string, body: unknown, by: TestUser = admin) =>
  server.api("PATCH", `/api/v1/admin/users/${id}`, { token: by.token, body });
const me = (token: string) => server.api("GET", "/api/v1/users/me/info", { token });
const latestLog = async () => (await server.api("GET", "/api/v1/admin/log?limit=1", { token: admin.token })).body.entries[0];

describe("disabling an account", () => {
  test("its tokens get 403 at once, its sockets are disconnected, new sockets refused, login refused", async () => {
    const user = await server.register();
    const socket = await server.connect(user.token);
    const gone = waitForDisconnect(socket);
    const res = await setFlags(user.id, { disabled: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: user.id, disabled: true, disabled_at: expect.any(Number) });
    expect(await gone).toBe("io server disconnect");
    expectError(await me(user.token), 403, DISABLED);
    await expect(server.connect(user.token)).rejects.toThrow("Unauthorized");
    const login = await server.api("POST", "/api/v1/auth/login", { body: { login: user.username, password: user.password } });
    expectError(login, 403, DISABLED);
    // A wrong password still learns nothing about the account.
    const wrong = await server.api("POST", "/api/v1/auth/login", { body: { login: user.username, password: "wrong-password" } });
    expectError(wrong, 401, "Invalid login or password");
    expect(await latestLog()).toMatchObject({
      action: "USER_DISABLE",
      actor: { id: admin.id, username: admin.username },
      target_type: "user",
      target_id: user.id,
      changes: { disabled: true },
    });
    expect((await server.api("GET", `/api/v1/admin/users?disabled=true&q=${user.username}`, { token: admin.token })).body.map((u: any) => u.id)).toEqual([user.id]);
  });

  test("re-enabling: the same tokens, sockets and login work again; logged", async () => {
    const user = await server.register();
    await setFlags(user.id, { disabled: true });
    const res = await setFlags(user.id, { disabled: false });
    expect(res.body).toMatchObject({ disabled: false, disabled_at: null });
    expect(await latestLog()).toMatchObject({ action: "USER_ENABLE", target_id: user.id, changes: { disabled: false } });
    expect((await me(user.token)).status).toBe(200);
    const socket = await server.connect(user.token);
    expect(socket.connected).toBe(true);
    const login = await server.api("POST", "/api/v1/auth/login", { body: { login: user.email, password: user.password } });
    expect(login.status).toBe(200);
  });

  test("a bot user can be disabled: its token gets 403 and its socket is dropped", async () => {
    const owner = await server.register();
    const bot = await createBot(server, owner);
    const socket = await server.connect(bot.token);
    const gone = waitForDisconnect(socket);
    await setFlags(bot.botUserId, { disabled: true });
    await gone;
    expectError(await server.api("GET", `/api/v1/oauth2/bot/servers/${"01a20805-7d72-77cc-b541-8c28e661b52b"}`, { token: bot.token }), 403, DISABLED);
    await setFlags(bot.botUserId, { disabled: false });
    expect((await me(bot.token)).status).toBe(200);
  });

  test("nobody disables their own account or another administrator's; demoting in the same request works", async () => {
    const before = (await latestLog()).id;
    expectError(await setFlags(admin.id, { disabled: true }), 400, "You cannot disable your own account");
    const other = await server.register();
    await setFlags(other.id, { platform_admin: true });
    expectError(await setFlags(other.id, { disabled: true }), 400, "Demote this administrator before disabling the account");
    expect((await me(other.token)).status).toBe(200);
    // Refused changes are not half-applied: premium in the same request did not happen.
    expectError(await setFlags(admin.id, { premium: true, disabled: true }), 400);
    expect((await me(admin.token)).body.premium).toBe(false);
    expect((await latestLog()).action).toBe("USER_PROMOTE");
    expect((await latestLog()).id).not.toBe(before);

    const res = await setFlags(other.id, { platform_admin: false, disabled: true });
    expect(res.body).toMatchObject({ platform_admin: false, disabled: true });
    const entries = (await server.api("GET", "/api/v1/admin/log?limit=2", { token: admin.token })).body.entries;
    expect(entries.map((e: any) => e.action)).toEqual(["USER_DISABLE", "USER_DEMOTE"]);
    expectError(await me(other.token), 403, DISABLED);
  });

  test("a former administrator, demoted and disabled, is refused on admin routes with the disabled message", async () => {
    const other = await server.register();
    await setFlags(other.id, { platform_admin: true });
    expect((await server.api("GET", "/api/v1/admin/settings", { token: other.token })).status).toBe(200);
    await setFlags(other.id, { platform_admin: false, disabled: true });
    expectError(await server.api("GET", "/api/v1/admin/settings", { token: other.token }), 403, DISABLED);
  });
});
