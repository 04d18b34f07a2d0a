import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { totpCode, wrongCode } from "../helpers/totp.ts";
import { enableTwoFactor } from "../helpers/two-factor.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const login = (user: TestUser, code?: string) =>
  server.api("POST", "/api/v1/auth/login", { body: { login: user.username, password: user.password, ...(code === undefined ? {} : { code }) } });
const regenerate = (user: TestUser, body: Record<string, unknown>) => server.api("POST", "/api/v1/auth/2fa/recovery-codes", { token: user.token, body });

describe("recovery codes", () => {
  test("enabling answers ten distinct codes, shown this once", async () => {
    const user = await server.register();
    const { recoveryCodes } = await enableTwoFactor(server, user);
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    for (const code of recoveryCodes) expect(code).toMatch(/^[0-9a-hjkmnp-tv-z]{4}(-[0-9a-hjkmnp-tv-z]{4}){3}$/);
    // Nowhere to read them again.
    const me = await server.api("GET", "/api/v1/users/me/info", { token: user.token });
    expect(JSON.stringify(me.body)).not.toContain(recoveryCodes[0]!);
  });

  test("a recovery code logs in in place of the TOTP code, once", async () => {
    const user = await server.register();
    const { recoveryCodes } = await enableTwoFactor(server, user);
    const [first, second] = recoveryCodes as [string, string];
    expect((await login(user, first)).status).toBe(200);
    const reused = await login(user, first);
    expect(reused.status).toBe(401);
    expect(reused.body).toEqual({ error: "Invalid two-factor code" });
    // Any case, without the dashes, surrounding spaces: the same code.
    expect((await login(user, ` ${second.replaceAll("-", "").toUpperCase()} `)).status).toBe(200);
    expect((await login(user, second)).status).toBe(401);
    // A code of the right shape that was never issued.
    expect((await login(user, "0000-0000-0000-0000")).status).toBe(401);
    // Malformed: 400 naming the field, before any check.
    const malformed = await login(user, "not-a-code");
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ error: "code: must be a 6-digit code or a recovery code" });
  });

  test("a wrong password with a recovery code does not use the code up", async () => {
    const user = await server.register();
    const { recoveryCodes } = await enableTwoFactor(server, user);
    const bad = await server.api("POST", "/api/v1/auth/login", { body: { login: user.username, password: "not the password", code: recoveryCodes[0] } });
    expect(bad.status).toBe(401);
    expect((await login(user, recoveryCodes[0])).status).toBe(200);
  });

  test("a recovery code works in X-2FA-Code, once", async () => {
    const owner = await server.register();
    const { recoveryCodes } = await enableTwoFactor(server, owner);
    const created = await server.api("POST", "/api/v1/servers", { token: owner.token, body: { name: "recovery" } });
    const serverId: string = created.body.id;
    const vanity = (code: string) =>
      server.api("POST", `/api/v1/servers/${serverId}/vanity`, { token: owner.token, body: { code: `r-${serverId.slice(-8)}` }, headers: { "x-2fa-code": code } });
    expect((await vanity(recoveryCodes[0]!)).status).toBe(200);
    const again = await vanity(recoveryCodes[0]!);
    expect(again.status).toBe(403);
    expect(again.body).toEqual({ error: "Invalid two-factor code" });
    expect((await server.api("DELETE", `/api/v1/servers/${serverId}`, { token: owner.token, headers: { "x-2fa-code": recoveryCodes[1]! } })).status).toBe(200);
  });

  test("regenerating needs the password and a code, answers a new set, and the old set stops working", async () => {
    const user = await server.register();
    const { secret, recoveryCodes: old } = await enableTwoFactor(server, user);
    const noPassword = await regenerate(user, { code: totpCode(secret) });
    expect(noPassword.status).toBe(400);
    expect(noPassword.body).toEqual({ error: "password: is required" });
    const wrongPassword = await regenerate(user, { code: totpCode(secret), password: "not the password" });
    expect(wrongPassword.status).toBe(403);
    expect(wrongPassword.body).toEqual({ error: "Invalid password" });
    const badCode = await regenerate(user, { code: wrongCode(secret), password: user.password });
    expect(badCode.status).toBe(400);
    expect(badCode.body).toEqual({ error: "Invalid two-factor code" });

    const fresh = await regenerate(user, { code: totpCode(secret), password: user.password });
    expect(fresh.status).toBe(200);
    expect(Object.keys(fresh.body)).toEqual(["recovery_codes"]);
    const codes: string[] = fresh.body.recovery_codes;
    expect(codes).toHaveLength(10);
    expect(codes.some((code) => old.includes(code))).toBe(false);
    expect((await login(user, old[1])).status).toBe(401);
    expect((await login(user, codes[0])).status).toBe(200);
    // A recovery code may stand in for the TOTP code here too.
    const byRecovery = await regenerate(user, { code: codes[1], password: user.password });
    expect(byRecovery.status).toBe(200);
    expect((await login(user, codes[2])).status).toBe(401);
  });

  test("regenerating without 2FA is 400", async () => {
    const user = await server.register();
    const res = await regenerate(user, { code: "123456", password: user.password });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "Two-factor authentication is not enabled" });
  });

  test("disabling with a recovery code works; disabling deletes the codes (they do not come back with 2FA)", async () => {
    const user = await server.register();
    const { recoveryCodes: first } = await enableTwoFactor(server, user);
    const disabled = await server.api("POST", "/api/v1/auth/2fa/disable", { token: user.token, body: { code: first[0], password: user.password } });
    expect(disabled.status).toBe(200);
    const { recoveryCodes: second } = await enableTwoFactor(server, user);
    expect((await login(user, first[1])).status).toBe(401);
    expect((await login(user, second[0])).status).toBe(200);
  });
});
