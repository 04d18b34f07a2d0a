import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { letTimePass } from "../helpers/wait.ts";
import { totpCode, wrongCode } from "../helpers/totp.ts";
import { enableTwoFactor } from "../helpers/two-factor.ts";

// A small budget in a short window, so a test can spend it and see it come back.
const BUDGET = 5;
const WINDOW_SECONDS = 2;

let server: TestServer;
beforeAll(async () => {
  server = await startServer({
    loginFailuresPerAccountPerMinute: BUDGET,
    loginFailuresPerAccountTotalPerMinute: 1_000_000,
    loginFailuresWindowSeconds: WINDOW_SECONDS,
  });
});
afterAll(() => server.stop());

const disable = (user: TestUser, code: string, password = user.password) =>
  server.api("POST", "/api/v1/auth/2fa/disable", { token: user.token, body: { code, password } });

async function createServer(owner: TestUser): Promise<string> {
  const res = await server.api("POST", "/api/v1/servers", { token: owner.token, body: { name: "budget" } });
  expect(res.status).toBe(201);
  return res.body.id;
}

/** Waits out the window a 429 names (Retry-After, whole seconds) and a little more. */
const waitOut = (res: { headers: Headers }) => letTimePass(Number(res.headers.get("retry-after")) * 1000 + 250, "the budget's window ends");

function expectSpent(res: { status: number; body: { error?: string }; headers: Headers }) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ error: "Too many failed attempts for this account, try again later" });
  const retryAfter = Number(res.headers.get("retry-after"));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);
}

describe("the two-factor code budget", () => {
  test("20 concurrent wrong codes on 2fa/disable: the budget's worth are checked, the rest are 429; the right code is refused until the window ends", async () => {
    const user = await server.register();
    const { secret } = await enableTwoFactor(server, user);
    const answers = await Promise.all(Array.from({ length: 20 }, () => disable(user, wrongCode(secret))));
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((status) => status === 400)).toHaveLength(BUDGET);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20 - BUDGET);
    for (const res of answers) if (res.status === 429) expectSpent(res);

    const right = await disable(user, totpCode(secret));
    expectSpent(right);
    expect((await server.api("GET", "/api/v1/users/me/info", { token: user.token })).body.two_factor_enabled).toBe(true);

    await waitOut(right);
    const after = await disable(user, totpCode(secret));
    expect(after.status).toBe(200);
    expect(after.body).toEqual({ two_factor_enabled: false });
  });

  test("20 concurrent wrong X-2FA-Code server deletes: the same budget, and the right code is refused until the window ends", async () => {
    const owner = await server.register();
    const { secret } = await enableTwoFactor(server, owner);
    const serverId = await createServer(owner);
    const remove = (code: string) => server.api("DELETE", `/api/v1/servers/${serverId}`, { token: owner.token, headers: { "x-2fa-code": code } });
    const answers = await Promise.all(Array.from({ length: 20 }, () => remove(wrongCode(secret))));
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((status) => status === 403)).toHaveLength(BUDGET);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20 - BUDGET);
    for (const res of answers) if (res.status === 403) expect(res.body).toEqual({ error: "Invalid two-factor code" });

    const right = await remove(totpCode(secret));
    expectSpent(right);
    expect((await server.api("GET", `/api/v1/servers/${serverId}`, { token: owner.token })).status).toBe(200);

    await waitOut(right);
    expect((await remove(totpCode(secret))).status).toBe(200);
  });

  test("the vanity URL's X-2FA-Code spends the same budget", async () => {
    const owner = await server.register();
    const { secret } = await enableTwoFactor(server, owner);
    const serverId = await createServer(owner);
    const vanity = (code: string) =>
      server.api("POST", `/api/v1/servers/${serverId}/vanity`, { token: owner.token, body: { code: `v-${serverId.slice(-8)}` }, headers: { "x-2fa-code": code } });
    for (let i = 0; i < BUDGET; i++) expect((await vanity(wrongCode(secret))).status).toBe(403);
    expectSpent(await vanity(totpCode(secret)));
  });

  test("failed logins and wrong codes share one budget", async () => {
    const user = await server.register();
    const { secret } = await enableTwoFactor(server, user);
    const serverId = await createServer(user);
    // Three wrong passwords at login, then two wrong codes elsewhere: five failures in all.
    for (let i = 0; i < 3; i++) {
      const res = await server.api("POST", "/api/v1/auth/login", { body: { login: user.username, password: "not the password" } });
      expect(res.status).toBe(401);
    }
    expect((await disable(user, wrongCode(secret))).status).toBe(400);
    const del = await server.api("DELETE", `/api/v1/servers/${serverId}`, { token: user.token, headers: { "x-2fa-code": wrongCode(secret) } });
    expect(del.status).toBe(403);
    // Spent: every route refuses, the right credentials included.
    expectSpent(await disable(user, totpCode(secret)));
    const login = await server.api("POST", "/api/v1/auth/login", { body: { login: user.username, password: user.password, code: totpCode(secret) } });
    expect(login.status).toBe(429);
    expect(login.body).toEqual({ error: "Too many failed logins for this account, try again later" });
    await waitOut(login);
    const again = await server.api("POST", "/api/v1/auth/login", { body: { login: user.username, password: user.password, code: totpCode(secret) } });
    expect(again.status).toBe(200);
  });

  test("a wrong code at login counts, and so does a wrong password on 2fa/disable", async () => {
    const user = await server.register();
    const { secret } = await enableTwoFactor(server, user);
    for (let i = 0; i < 2; i++) {
      const res = await server.api("POST", "/api/v1/auth/login", { body: { login: user.username, password: user.password, code: wrongCode(secret) } });
      expect(res.status).toBe(401);
    }
    for (let i = 0; i < 3; i++) {
      const res = await disable(user, totpCode(secret), "not the password");
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: "Invalid password" });
    }
    expectSpent(await disable(user, totpCode(secret)));
  });

  test("a right code gives its check back: the owner's own use never spends the budget", async () => {
    const owner = await server.register();
    const { secret } = await enableTwoFactor(server, owner);
    for (let i = 0; i < BUDGET + 2; i++) {
      const serverId = await createServer(owner);
      const res = await server.api("DELETE", `/api/v1/servers/${serverId}`, { token: owner.token, headers: { "x-2fa-code": totpCode(secret) } });
      expect(res.status).toBe(200);
    }
  });

  test("an account without 2FA ignores the header and spends nothing", async () => {
    const owner = await server.register();
    for (let i = 0; i < BUDGET + 1; i++) {
      const serverId = await createServer(owner);
      const res = await server.api("DELETE", `/api/v1/servers/${serverId}`, { token: owner.token, headers: { "x-2fa-code": "000000" } });
      expect(res.status).toBe(200);
    }
  });
});

describe("enabling and disabling need the password", () => {
  test("without a password: 400 naming the field; with a wrong one: 403, and 2FA stays as it was", async () => {
    const user = await server.register();
    const setup = await server.api("POST", "/api/v1/auth/2fa/setup", { token: user.token });
    const secret: string = setup.body.secret;
    const enableWith = (body: Record<string, unknown>) => server.api("POST", "/api/v1/auth/2fa/enable", { token: user.token, body });

    const missing = await enableWith({ code: totpCode(secret) });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: "password: is required" });
    const wrong = await enableWith({ code: totpCode(secret), password: "not the password" });
    expect(wrong.status).toBe(403);
    expect(wrong.body).toEqual({ error: "Invalid password" });
    expect((await server.api("GET", "/api/v1/users/me/info", { token: user.token })).body.two_factor_enabled).toBe(false);
    // The token was fine all along: a wrong password is no 401 (clients end the session on one).
    expect((await server.api("GET", "/api/v1/users/me/info", { token: user.token })).status).toBe(200);

    const enabled = await enableWith({ code: totpCode(secret), password: user.password });
    expect(enabled.status).toBe(200);

    const noPassword = await server.api("POST", "/api/v1/auth/2fa/disable", { token: user.token, body: { code: totpCode(secret) } });
    expect(noPassword.status).toBe(400);
    expect(noPassword.body).toEqual({ error: "password: is required" });
    const badPassword = await disable(user, totpCode(secret), "not the password");
    expect(badPassword.status).toBe(403);
    expect((await server.api("GET", "/api/v1/users/me/info", { token: user.token })).body.two_factor_enabled).toBe(true);
    const noCode = await server.api("POST", "/api/v1/auth/2fa/disable", { token: user.token, body: { password: user.password } });
    expect(noCode.status).toBe(400);
    expect(noCode.body).toEqual({ error: "code: is required" });
  });
});
