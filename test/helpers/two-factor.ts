import { expect } from "bun:test";
import type { TestServer, TestUser } from "./server.ts";
import { totpCode } from "./totp.ts";

/** Turns 2FA on for `user` (setup, then enable with the password); its secret and the recovery codes shown once. */
export async function enableTwoFactor(server: TestServer, user: TestUser): Promise<{ secret: string; recoveryCodes: string[] }> {
  const setup = await server.api("POST", "/api/v1/auth/2fa/setup", { token: user.token });
  expect(setup.status).toBe(200);
  const secret: string = setup.body.secret;
  const enabled = await server.api("POST", "/api/v1/auth/2fa/enable", { token: user.token, body: { code: totpCode(secret), password: user.password } });
  expect(enabled.status).toBe(200);
  return { secret, recoveryCodes: enabled.body.recovery_codes };
}

