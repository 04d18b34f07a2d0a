import { Elysia } from "elysia";
import * as v from "valibot";
import type { Domain } from "../../domain/domain.ts";
import { password, totpCode, username } from "../../domain/shared/validation.ts";
import { bearerToken, type AuthPlugin } from "../auth.ts";
import { limitedClientAddress } from "../client-address.ts";
import { body } from "../schemas.ts";
import { LIMITS } from "../../domain/shared/limits.ts";
import { doc } from "../operation-doc.ts";
import { LoggedOut, RecoveryCodes, Session, TwoFactorEnabled, TwoFactorSetup, TwoFactorState } from "../responses/accounts.ts";
import { twoFactorCode } from "../../domain/accounts/recovery-codes.ts";

const RegisterBody = body({
  username,
  email: v.pipe(v.string("must be a string"), v.trim(), v.maxLength(LIMITS.account.emailLength, `must be at most ${LIMITS.account.emailLength} characters`), v.email("must be a valid email address")),
  password,
});

/** A password to check (not to set: the length rules of `password` are for new ones). */
const currentPassword = v.pipe(v.string("must be a string"), v.maxLength(LIMITS.account.passwordMax, `must be at most ${LIMITS.account.passwordMax} characters`));

const LoginBody = body({
  login: v.pipe(
    v.string("must be a string"),
    v.trim(),
    v.minLength(1, "must not be empty"),
    v.maxLength(LIMITS.account.loginLength, `must be at most ${LIMITS.account.loginLength} characters`),
  ),
  password: currentPassword,
  code: v.optional(twoFactorCode),
});

/** Enabling confirms a code of the pending secret (there are no recovery codes yet). */
const EnableBody = body({ code: totpCode, password: currentPassword });
/** Disabling and regenerating take a code of the active secret or a recovery code. */
const CredentialsBody = body({ code: twoFactorCode, password: currentPassword });

/** /api/v1/auth: accounts and two-factor authentication (CONTRACT.md "Accounts"). */
export const authRoutes = (domain: Domain, auth: AuthPlugin) =>
  new Elysia({ prefix: "/api/v1/auth", tags: ["Auth"] })
    .use(auth)
    .post(
      "/register",
      async ({ body, request, server, set }) => {
        const session = await domain.accounts.register(body, limitedClientAddress(request, server));
        set.status = 201;
        return session;
      },
      { body: RegisterBody, detail: doc("register", { 201: Session }, { errors: [403, 409, 429] }) },
    )
    .post("/login", ({ body, request, server }) => domain.accounts.login(body, limitedClientAddress(request, server)), {
      body: LoginBody,
      detail: doc("login", Session, { errors: [401, 403, 429] }),
    })
    .post("/logout", ({ user, request }) => domain.accounts.logout(user, bearerToken(request.headers.get("authorization"))!), {
      auth: true,
      detail: doc("logout", LoggedOut),
    })
    .post("/logout/all", ({ user }) => domain.accounts.logoutEverywhere(user), { auth: true, detail: doc("logoutEverywhere", LoggedOut) })
    .post("/2fa/setup", ({ user }) => domain.twoFactor.setup(user), { auth: true, detail: doc("setupTwoFactor", TwoFactorSetup) })
    .post("/2fa/enable", ({ user, body, request, server }) => domain.twoFactor.enable(user, body, limitedClientAddress(request, server)), {
      auth: true,
      body: EnableBody,
      detail: doc("enableTwoFactor", TwoFactorEnabled, { errors: [429] }),
    })
    .post("/2fa/disable", ({ user, body, request, server }) => domain.twoFactor.disable(user, body, limitedClientAddress(request, server)), {
      auth: true,
      body: CredentialsBody,
      detail: doc("disableTwoFactor", TwoFactorState, { errors: [429] }),
    })
    .post(
      "/2fa/recovery-codes",
      ({ user, body, request, server }) => domain.twoFactor.regenerateRecoveryCodes(user, body, limitedClientAddress(request, server)),
      { auth: true, body: CredentialsBody, detail: doc("regenerateRecoveryCodes", RecoveryCodes, { errors: [429] }) },
    );
