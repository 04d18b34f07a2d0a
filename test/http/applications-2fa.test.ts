import { afterAll, beforeAll, expect, test } from "bun:test";
import { startServer, type TestServer } from "../helpers/server.ts";
import { totpCode, wrongCode } from "../helpers/totp.ts";

// The platform setting REQUIRE_2FA_FOR_APPLICATIONS (docs/applications.md).
let server: TestServer;
beforeAll(async () => {
  server = await startServer({ requireTwoFactorForApplications: true });
});
afterAll(() => server.stop());

const create = (token: string, headers: Record<string, string> = {}) =>
  server.api("POST", "/api/v1/oauth2/applications", { token, body: { name: "Guarded", description: "needs 2FA" }, headers });

test("creating an application needs two-factor authentication and the current code", async () => {
  const user = await server.register();
  const without = await create(user.token);
  expect(without.status).toBe(403);
  expect(without.body).toEqual({ error: "Enable two-factor authentication to create applications" });

  const { body } = await server.api("POST", "/api/v1/auth/2fa/setup", { token: user.token });
  await server.api("POST", "/api/v1/auth/2fa/enable", { token: user.token, body: { code: totpCode(body.secret), password: user.password } });
  expect((await create(user.token)).status).toBe(403);
  expect((await create(user.token, { "x-2fa-code": wrongCode(body.secret) })).status).toBe(403);
  const created = await create(user.token, { "x-2fa-code": totpCode(body.secret) });
  expect(created.status).toBe(201);
  expect(Object.keys(created.body).sort()).toEqual(["application", "bot_token"]);
  expect((await server.api("GET", "/api/v1/platform/config")).body.features.two_factor_required_for_applications).toBe(true);
});
