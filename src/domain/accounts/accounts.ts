import * as v from "valibot";
import type { Config } from "../../config.ts";
import type { Store } from "../../store/store.ts";
import type { UserRow, Taken } from "../../store/users-repo.ts";
import type { EventBus } from "../shared/events.ts";
import { rooms } from "../shared/events.ts";
import { MeUser } from "../shared/shapes.ts";
import type { TokenClaims, TokenService, VerifiedClaims } from "./tokens.ts";
import type { SharedRateLimiter, SharedState } from "../shared/shared-state.ts";
import { hasTwoFactor, type TwoFactor } from "./two-factor.ts";
import { accountKey, type CredentialChecks } from "./credential-checks.ts";
import type { TokenRevocations } from "./token-revocations.ts";
import { defineSetting, type PlatformSettings } from "../admin/platform-settings.ts";
import { ApiError, badRequest, conflict, forbidden, tooManyRequests, unauthorized } from "../shared/errors.ts";
import { toMeUser } from "./users.ts";

export interface NewAccount {
  username: string;
  email: string;
  password: string;
}

/** `{token, user}`: a new token and the account (register, login, password change). */
export const Session = v.object({ token: v.string(), user: MeUser });
export type Session = v.InferOutput<typeof Session>;

/** Platform setting: anyone may register (docs/admin.md). When closed, administrators create accounts. */
export const REGISTRATION_OPEN = defineSetting("registration_open", v.boolean(), true);

const REGISTRATION_CLOSED = "Registration is closed on this server: ask an administrator for an account";
const ACCOUNT_DISABLED = "This account has been disabled by an administrator";
const TOO_MANY_FAILED_LOGINS = "Too many failed logins for this account, try again later";
const BOT_LOGOUT = "Bot tokens cannot log out: regenerate the bot's token instead (POST /api/v1/oauth2/applications/:appId/token)";

/** A token's account as found: a bumped token version revokes every older token; disabled is 403. */
function checkAccount(user: UserRow | null, claims: Readonly<TokenClaims>): UserRow {
  if (!user || user.token_version !== claims.version) throw unauthorized();
  if (user.disabled_at !== null) throw forbidden(ACCOUNT_DISABLED);
  return user;
}

const TAKEN_MESSAGES: Record<Taken, string> = {
  username: "Username is already taken",
  email: "Email is already registered",
};

/** Registration, login, password changes and bearer-token authentication. */
export class Accounts {
  /** Shared by every node in cluster mode (src/domain/shared/shared-state.ts). */
  private readonly perAddress: SharedRateLimiter;
  /** Verified against when the login names no account, so both answers take as long. */
  private dummyHash: Promise<string> | null = null;

  constructor(
    private readonly store: Store,
    private readonly tokens: TokenService,
    private readonly bus: EventBus,
    private readonly config: Pick<Config, "authRateLimitPerMinute" | "passwordHashing">,
    private readonly settings: PlatformSettings,
    shared: SharedState,
    /** Password and code checks per account (shared with the two-factor routes). */
    private readonly checks: CredentialChecks,
    private readonly twoFactor: TwoFactor,
    private readonly revocations: TokenRevocations,
  ) {
    this.perAddress = shared.rateLimiter("auth", config.authRateLimitPerMinute, 60_000);
  }

  async register(input: NewAccount, clientAddress: string): Promise<Session> {
    await this.limitAddress("register", clientAddress);
    if (!(await this.settings.get(REGISTRATION_OPEN))) throw forbidden(REGISTRATION_CLOSED);
    return this.session(await this.createAccount(input));
  }

  /** A new human account (registration, or an administrator while registration is closed). */
  async createAccount(input: NewAccount): Promise<UserRow> {
    const passwordHash = await this.hash(input.password);
    const result = await this.store.users.create({
      username: input.username,
      email: input.email,
      passwordHash,
      isBot: false,
    });
    if (!result.ok) throw conflict(TAKEN_MESSAGES[result.taken]);
    return result.user;
  }

  async login(input: { login: string; password: string; code?: string }, clientAddress: string): Promise<Session> {
    await this.limitAddress("login", clientAddress);
    const user = await this.store.users.findByLogin(input.login);
    // By account when there is one, so its username and email share one budget.
    const key = user ? accountKey(user.id) : `login:${input.login.toLowerCase()}`;
    const check = await this.checks.reserve(key, clientAddress, TOO_MANY_FAILED_LOGINS);
    const passwordOk = user?.password_hash
      ? await Bun.password.verify(input.password, user.password_hash)
      : (await Bun.password.verify(input.password, await this.dummy()), false);
    // A wrong password keeps the reserved attempt: it was a failure.
    if (!user || !passwordOk) throw unauthorized("Invalid login or password");
    // Only someone who knows the password learns that the account is disabled.
    if (user.disabled_at !== null) {
      await check.notAFailure();
      throw forbidden(ACCOUNT_DISABLED);
    }
    if (hasTwoFactor(user)) {
      if (!input.code) {
        await check.notAFailure();
        throw unauthorized("Two-factor code required");
      }
      // A recovery code is used up here, once the password was right.
      if (!(await this.twoFactor.matches(user, input.code))) throw unauthorized("Invalid two-factor code");
    }
    await check.succeeded();
    return this.session(user);
  }

  /**
   * Sets a new password and revokes every token issued before (their version no longer
   * matches), disconnecting the account's gateway sockets. Answers a fresh session. The
   * current password is checked under the same budget as logins, so a stolen token cannot
   * guess it faster than a login could.
   */
  async changePassword(user: UserRow, currentPassword: string, newPassword: string, clientAddress: string): Promise<Session> {
    const check = await this.checks.reserve(accountKey(user.id), clientAddress, "Too many requests, try again later");
    const hash = await this.store.users.passwordHashOf(user.id);
    if (!hash || !(await Bun.password.verify(currentPassword, hash))) {
      throw badRequest("currentPassword: Current password is incorrect");
    }
    await check.succeeded();
    const updated = await this.store.users.setPassword(user.id, await this.hash(newPassword));
    if (!updated) throw unauthorized();
    this.bus.disconnect(rooms.user(user.id));
    return this.session(updated);
  }

  /**
   * The account behind a bearer token, or a 401; a disabled account is a 403. Every
   * authenticated request runs this: a token already verified costs one primary-key read.
   */
  async authenticate(token: string | null | undefined): Promise<UserRow> {
    const claims = token ? this.tokens.known(token) : null;
    return this.accountOf(claims === undefined ? await this.tokens.verify(token!) : claims);
  }

  /**
   * The account of a token's claims (null: no valid token), checked by `checkAccount`, and the
   * token not revoked by a logout (TokenRevocations: a look-up only after a logout of the account).
   */
  private async accountOf(claims: Readonly<VerifiedClaims> | null): Promise<UserRow> {
    if (!claims) throw unauthorized();
    const user = checkAccount(await this.store.users.findById(claims.userId), claims);
    if (!(await this.revocations.stands(user, claims))) throw unauthorized();
    return user;
  }

  /**
   * For the gateway handshake and a resumed session: the account behind a token and what its
   * socket keeps of the token (its id, for a logout, and its expiry, to disconnect then), or null
   * for any token `authenticate` refuses (a disabled account too).
   */
  async identify(token: string): Promise<{ user: UserRow; tokenId?: string; expiresAt?: number } | null> {
    try {
      const user = await this.authenticate(token);
      const claims = await this.tokens.verify(token);
      return claims && { user, tokenId: claims.tokenId, expiresAt: claims.expiresAt };
    } catch (error) {
      if (error instanceof ApiError && (error.status === 401 || error.status === 403)) return null;
      throw error;
    }
  }

  /**
   * Revokes the token of this request alone, on every node: it answers 401 from now on, and the
   * sockets it opened are disconnected. Bot tokens are refused (a bot's token is regenerated
   * instead), and so is a token issued before tokens carried an id (log out everywhere instead).
   */
  async logout(user: UserRow, token: string): Promise<{ logged_out: true }> {
    if (user.is_bot === 1) throw forbidden(BOT_LOGOUT);
    const claims = await this.tokens.verify(token);
    if (!claims) throw unauthorized();
    if (!claims.tokenId || claims.expiresAt === undefined) {
      throw badRequest("This token has no id and cannot be revoked alone: use POST /api/v1/auth/logout/all");
    }
    await this.revocations.revoke(user.id, claims.tokenId, Math.ceil(claims.expiresAt / 1000));
    this.bus.disconnectToken(user.id, claims.tokenId);
    return { logged_out: true };
  }

  /** Revokes every token of the account (the token version moves on) and disconnects all its sockets. */
  async logoutEverywhere(user: UserRow): Promise<{ logged_out: true }> {
    if (user.is_bot === 1) throw forbidden(BOT_LOGOUT);
    if (!(await this.store.users.revokeAllTokens(user.id))) throw unauthorized();
    this.bus.disconnect(rooms.user(user.id));
    return { logged_out: true };
  }

  private async session(user: UserRow): Promise<Session> {
    const token = await this.tokens.sign({ userId: user.id, version: user.token_version });
    return { token, user: toMeUser(user) };
  }

  private async limitAddress(action: string, clientAddress: string) {
    const decision = await this.perAddress.hit(`${action}:${clientAddress}`);
    if (!decision.allowed) throw tooManyRequests(decision.retryAfter);
  }

  private hash(password: string): Promise<string> {
    return Bun.password.hash(password, { algorithm: "argon2id", ...this.config.passwordHashing });
  }

  private dummy(): Promise<string> {
    this.dummyHash ??= this.hash(crypto.randomUUID());
    return this.dummyHash;
  }
}

