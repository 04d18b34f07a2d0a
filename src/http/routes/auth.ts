import { Elysia } from "elysia";
import * as v from "valibot";
import type { Domain } from "../../domain/domain.ts";
import { password, totpCode, username } from "../../domain/shared/validation.ts";
import type { AuthPlugin } from "../auth.ts";
import { clientAddress } from "../client-address.ts";
import { body } from "../schemas.ts";
import { LIMITS } from "../../domain/shared/limits.ts";
import { doc } from "../operation-doc.ts";
import { Session, TwoFactorSetup, TwoFactorState } from "../responses/accounts.ts";

const RegisterBody = body({
  username,
  email: v.pipe(v.string("must be a string"), v.trim(), v.maxLength(LIMITS.account.emailLength, `must be at most ${LIMITS.account.emailLength} characters`), v.email("must be a valid email address")),
  password,
});

const LoginBody = body({
  login: v.pipe(
    v.string("must be a string"),
    v.trim(),
    v.minLength(1, "must not be empty"),
    v.maxLength(LIMITS.account.loginLength, `must be at most ${LIMITS.account.loginLength} characters`),
  ),
  password: v.pipe(v.string("must be a string"), v.maxLength(LIMITS.account.passwordMax, `must be at most ${LIMITS.account.passwordMax} characters`)),
  code: v.optional(totpCode),
});

const CodeBody = body({ code: totpCode });

/** /api/v1/auth: accounts and two-factor authentication (CONTRACT.md "Accounts"). */
export const authRoutes = (domain: Domain, auth: AuthPlugin) =>
  new Elysia({ prefix: "/api/v1/auth", tags: ["Auth"] })
    .use(auth)
    .post(
      "/register",
      async ({ body, request, server, set }) => {
        const session = await domain.accounts.register(body, clientAddress(request, server));
        set.status = 201;
        return session;
      },
      { body: RegisterBody, detail: doc("register", { 201: Session }, { errors: [403, 409, 429] }) },
    )
    .post("/login", ({ body, request, server }) => domain.accounts.login(body, clientAddress(request, server)), {
      body: LoginBody,
      detail: doc("login", Session, { errors: [401, 403, 429] }),
    })
    .post("/2fa/setup", ({ user }) => domain.twoFactor.setup(user), { auth: true, detail: doc("setupTwoFactor", TwoFactorSetup) })
    .post("/2fa/enable", ({ user, body }) => domain.twoFactor.enable(user, body.code), { auth: true, body: CodeBody, detail: doc("enableTwoFactor", TwoFactorState) })
    .post("/2fa/disable", ({ user, body }) => domain.twoFactor.disable(user, body.code), { auth: true, body: CodeBody, detail: doc("disableTwoFactor", TwoFactorState) });
