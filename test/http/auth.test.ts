import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startServer, uniqueName, type TestServer } from "../helpers/server.ts";
import { totpCode, wrongCode } from "../helpers/totp.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const ME_KEYS = [
  "avatar", "banner", "banner_offset", "bio", "created_at", "custom_status", "email", "id", "is_bot", "platform_admin", "premium", "status",
  "two_factor_enabled", "username",
];

describe("POST /api/v1/auth/register", () => {
  test("creates the account and answers 201 {token, user}", async () => {
    const username = uniqueName("Reg");
    const res = await server.api("POST", "/api/v1/auth/register", {
      body: { username, email: `${username}@example.test`, password: "long enough pw" },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(["token", "user"]);
    expect(typeof res.body.token).toBe("string");
    expect(Object.keys(res.body.user).sort()).toEqual(ME_KEYS);
    expect(res.body.user).toMatchObject({
      username,
      email: `${username}@example.test`,
      avatar: null,
      banner: null,
      banner_offset: 0,
      bio: "",
      status: "offline",
      is_bot: 0,
      two_factor_enabled: false,
    });
    expect(res.body.user.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(Math.abs(res.body.user.created_at - Date.now() / 1000)).toBeLessThan(5);
    const me = await server.api("GET", "/api/v1/users/me/info", { token: res.body.token });
    expect(me.status).toBe(200);
    expect(me.body).toEqual(res.body.user);
  });

  test("username is unique regardless of case (409)", async () => {
    const taken = await server.register();
    const res = await server.api("POST", "/api/v1/auth/register", {
      body: { username: taken.username.toUpperCase(), email: `${uniqueName()}@example.test`, password: "long enough pw" },
    });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: "Username is already taken" });
  });

  test("email is unique regardless of case (409)", async () => {
    const taken = await server.register();
    const res = await server.api("POST", "/api/v1/auth/register", {
      body: { username: uniqueName(), email: taken.email.toUpperCase(), password: "long enough pw" },
    });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: "Email is already registered" });
  });

  test.each([
    [{ email: "a@b.test", password: "long enough pw" }, "username: is required"],
    [{ username: "a", email: "a@b.test", password: "long enough pw" }, "username: must be 2-32 characters"],
    [{ username: "x".repeat(33), email: "a@b.test", password: "long enough pw" }, "username: must be 2-32 characters"],
    [{ username: "has space", email: "a@b.test", password: "long enough pw" }, "username: may contain only letters, digits, _, . and -"],
    [{ username: "ok_name", email: "not-an-email", password: "long enough pw" }, "email: must be a valid email address"],
    [{ username: "ok_name", email: "a@b.test", password: "short" }, "password: must be at least 8 characters"],
    [{ username: "ok_name", email: "a@b.test", password: 12345678 }, "password: must be a string"],
  ])("refuses %j with 400 naming the field", async (body, error) => {
    const res = await server.api("POST", "/api/v1/auth/register", { body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error });
  });

  test("accepts the allowed username characters", async () => {
    const username = `a.b-c_${uniqueName("d")}`.slice(0, 32);
    const res = await server.api("POST", "/api/v1/auth/register", {
      body: { username, email: `${username}@example.test`, password: "long enough pw" },
    });
    expect(res.status).toBe(201);
  });
});

describe("POST /api/v1/auth/login", () => {
  test("logs in by username or email, case-insensitively", async () => {
    const user = await server.register();
    for (const login of [user.username, user.email, user.email.toUpperCase(), user.username.toUpperCase()]) {
      const res = await server.api("POST", "/api/v1/auth/login", { body: { login, password: user.password } });
      expect(res.status).toBe(200);
      expect(res.body.user.id).toBe(user.id);
      const me = await server.api("GET", "/api/v1/users/me/info", { token: res.body.token });
      expect(me.body.id).toBe(user.id);
    }
  });

  test("a wrong password or unknown login is 401", async () => {
    const user = await server.register();
    const wrong = await server.api("POST", "/api/v1/auth/login", { body: { login: user.username, password: "not the password" } });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ error: "Invalid login or password" });
    const unknown = await server.api("POST", "/api/v1/auth/login", { body: { login: "nobody-here", password: "whatever123" } });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual({ error: "Invalid login or password" });
  });

  test("missing fields are 400", async () => {
    const res = await server.api("POST", "/api/v1/auth/login", { body: { login: "x" } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "password: is required" });
  });
});

describe("two-factor authentication", () => {
  test("setup, enable, login with code, disable", async () => {
    const user = await server.register();
    const setup = await server.api("POST", "/api/v1/auth/2fa/setup", { token: user.token });
    expect(setup.status).toBe(200);
    expect(Object.keys(setup.body).sort()).toEqual(["otpauth_url", "secret"]);
    expect(setup.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    const url = new URL(setup.body.otpauth_url);
    expect(url.protocol).toBe("otpauth:");
    expect(url.host).toBe("totp");
    expect(url.searchParams.get("secret")).toBe(setup.body.secret);
    expect(url.searchParams.get("digits")).toBe("6");
    expect(url.searchParams.get("period")).toBe("30");
    const secret: string = setup.body.secret;

    // Not active until enabled: login still needs no code.
    const before = await server.api("POST", "/api/v1/auth/login", { body: { login: user.username, password: user.password } });
    expect(before.status).toBe(200);

    const bad = await server.api("POST", "/api/v1/auth/2fa/enable", { token: user.token, body: { code: wrongCode(secret), password: user.password } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: "Invalid two-factor code" });

    const enabled = await server.api("POST", "/api/v1/auth/2fa/enable", { token: user.token, body: { code: totpCode(secret), password: user.password } });
    expect(enabled.status).toBe(200);
    expect(enabled.body.two_factor_enabled).toBe(true);
    expect(enabled.body.recovery_codes).toHaveLength(10);
    const me = await server.api("GET", "/api/v1/users/me/info", { token: user.token });
    expect(me.body.two_factor_enabled).toBe(true);

    const again = await server.api("POST", "/api/v1/auth/2fa/setup", { token: user.token });
    expect(again.status).toBe(400);

    const noCode = await server.api("POST", "/api/v1/auth/login", { body: { login: user.username, password: user.password } });
    expect(noCode.status).toBe(401);
    expect(noCode.body).toEqual({ error: "Two-factor code required" });
    const wrong = await server.api("POST", "/api/v1/auth/login", {
      body: { login: user.username, password: user.password, code: wrongCode(secret) },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ error: "Invalid two-factor code" });
    const withCode = await server.api("POST", "/api/v1/auth/login", {
      body: { login: user.username, password: user.password, code: totpCode(secret) },
    });
    expect(withCode.status).toBe(200);
    // A wrong password with a right code is still refused.
    const wrongPassword = await server.api("POST", "/api/v1/auth/login", {
      body: { login: user.username, password: "nope nope nope", code: totpCode(secret) },
    });
    expect(wrongPassword.status).toBe(401);

    const badDisable = await server.api("POST", "/api/v1/auth/2fa/disable", { token: user.token, body: { code: wrongCode(secret), password: user.password } });
    expect(badDisable.status).toBe(400);
    const disabled = await server.api("POST", "/api/v1/auth/2fa/disable", { token: user.token, body: { code: totpCode(secret), password: user.password } });
    expect(disabled.status).toBe(200);
    expect(disabled.body).toEqual({ two_factor_enabled: false });
    const plain = await server.api("POST", "/api/v1/auth/login", { body: { login: user.username, password: user.password } });
    expect(plain.status).toBe(200);
  });

  test("enable before setup, and disable when off, are 400", async () => {
    const user = await server.register();
    const enable = await server.api("POST", "/api/v1/auth/2fa/enable", { token: user.token, body: { code: "123456", password: user.password } });
    expect(enable.status).toBe(400);
    expect(enable.body.error).toContain("setup");
    const disable = await server.api("POST", "/api/v1/auth/2fa/disable", { token: user.token, body: { code: "123456", password: user.password } });
    expect(disable.status).toBe(400);
    expect(disable.body).toEqual({ error: "Two-factor authentication is not enabled" });
  });

  test("a code as a number is accepted; malformed codes are 400", async () => {
    const user = await server.register();
    const { body } = await server.api("POST", "/api/v1/auth/2fa/setup", { token: user.token });
    for (const code of ["12345", "abcdef", "", null, true]) {
      const res = await server.api("POST", "/api/v1/auth/2fa/enable", { token: user.token, body: { code, password: user.password } });
      expect(res.status).toBe(400);
      expect(res.body.error).toStartWith("code: ");
    }
    const code = totpCode(body.secret);
    if (!code.startsWith("0")) {
      const res = await server.api("POST", "/api/v1/auth/2fa/enable", { token: user.token, body: { code: Number(code), password: user.password } });
      expect(res.status).toBe(200);
    }
  });

  test.each(["/2fa/setup", "/2fa/enable", "/2fa/disable", "/2fa/recovery-codes", "/logout", "/logout/all"])("%s needs a token (401)", async (path) => {
    const res = await server.api("POST", `/api/v1/auth${path}`, { body: { code: "123456", password: "whatever" } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "Unauthorized" });
  });
});

describe("rate limits", () => {
  test("login and registration are limited per client address (429 with Retry-After)", async () => {
    const limited = await startServer({ authRateLimitPerMinute: 3 });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await limited.api("POST", "/api/v1/auth/login", { body: { login: "someone", password: "whatever123" } });
        statuses.push(res.status);
        if (res.status === 429) {
          expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
          expect(typeof res.body.error).toBe("string");
        }
      }
      expect(statuses).toEqual([401, 401, 401, 429]);
      const registers: number[] = [];
      for (let i = 0; i < 4; i++) {
        const name = uniqueName();
        const res = await limited.api("POST", "/api/v1/auth/register", {
          body: { username: name, email: `${name}@example.test`, password: "long enough pw" },
        });
        registers.push(res.status);
      }
      expect(registers).toEqual([201, 201, 201, 429]);
    } finally {
      await limited.stop();
    }
  });

  test("failed logins are limited per account; the right password is refused while blocked", async () => {
    const limited = await startServer({ loginFailuresPerAccountPerMinute: 2 });
    try {
      const user = await limited.register();
      for (let i = 0; i < 2; i++) {
        const res = await limited.api("POST", "/api/v1/auth/login", { body: { login: user.username, password: "wrong password" } });
        expect(res.status).toBe(401);
      }
      const blocked = await limited.api("POST", "/api/v1/auth/login", { body: { login: user.email, password: user.password } });
      expect(blocked.status).toBe(429);
      expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
      // Another account from the same address is unaffected.
      const other = await limited.register();
      const ok = await limited.api("POST", "/api/v1/auth/login", { body: { login: other.username, password: other.password } });
      expect(ok.status).toBe(200);
    } finally {
      await limited.stop();
    }
  });
});

describe("tokens", () => {
  test.each([
    ["no header", undefined],
    ["not bearer", "Basic abc"],
    ["garbage", "Bearer not.a.jwt"],
    ["empty bearer", "Bearer "],
  ])("%s is 401", async (_name, header) => {
    const res = await server.api("GET", "/api/v1/users/me/info", { headers: header ? { authorization: header } : {} });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "Unauthorized" });
  });

  test("a token of another server's secret is 401", async () => {
    const other = await startServer({ jwtSecret: "another-secret-another-secret-another-secret" });
    try {
      const user = await other.register();
      const res = await server.api("GET", "/api/v1/users/me/info", { token: user.token });
      expect(res.status).toBe(401);
    } finally {
      await other.stop();
    }
  });

  test("a token for an HS512 signature with the same secret is refused (algorithm pinned)", async () => {
    const { SignJWT } = await import("jose");
    const user = await server.register();
    const forged = await new SignJWT({ ver: 0 })
      .setProtectedHeader({ alg: "HS512" })
      .setSubject(user.id)
      .sign(new TextEncoder().encode(server.config.jwtSecret!));
    const res = await server.api("GET", "/api/v1/users/me/info", { token: forged });
    expect(res.status).toBe(401);
  });
});
