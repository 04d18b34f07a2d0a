import * as OTPAuth from "otpauth";
import type { UserRow } from "../../store/users-repo.ts";
import type { Store } from "../../store/store.ts";
import { badRequest, forbidden } from "../shared/errors.ts";
import { accountKey, type CredentialChecks } from "./credential-checks.ts";
import { generateRecoveryCodes, hashRecoveryCode, isTotpCode, normalizeRecoveryCode } from "./recovery-codes.ts";

const ISSUER = "Hearth";

const INVALID_PASSWORD = "Invalid password";
const INVALID_CODE = "Invalid two-factor code";
const NOT_ENABLED = "Two-factor authentication is not enabled";
const SETUP_FIRST = "Start two-factor setup first (POST /api/v1/auth/2fa/setup)";

function totpFor(secret: string, label: string) {
  return new OTPAuth.TOTP({
    issuer: ISSUER,
    label,
    algorithm: "SHA1",
    digits: 6,
    period: 30,
    secret: OTPAuth.Secret.fromBase32(secret),
  });
}

/** A code is accepted in the current 30 s step or the one on either side (clock drift). */
function isValidTotp(secret: string, code: string): boolean {
  return isTotpCode(code) && totpFor(secret, "check").validate({ token: code, window: 1 }) !== null;
}

export const hasTwoFactor = (user: UserRow) => user.totp_secret !== null;

/** What a "(2FA)" route was sent: the `X-2FA-Code` header and the caller's address (whose budget a wrong code spends). */
export interface TwoFactorProof {
  code: string | null;
  clientAddress: string;
}

/** The current password and a code, as enabling, disabling and regenerating recovery codes take them. */
interface Credentials {
  password: string;
  code: string;
}

/**
 * TOTP two-factor authentication: setup, enable, disable, recovery codes, and the check for
 * "(2FA)" routes. Every code and password checked here is counted against the account's budget
 * of credential checks (CredentialChecks) before it is checked.
 */
export class TwoFactor {
  constructor(
    private readonly store: Store,
    private readonly checks: CredentialChecks,
  ) {}

  /** A new pending secret; it takes effect only once `enable` sees a valid code for it. */
  async setup(user: UserRow): Promise<{ secret: string; otpauth_url: string }> {
    if (hasTwoFactor(user)) throw badRequest("Two-factor authentication is already enabled");
    const secret = new OTPAuth.Secret({ size: 20 }).base32;
    await this.store.users.setPendingTotpSecret(user.id, secret);
    return { secret, otpauth_url: totpFor(secret, user.username).toString() };
  }

  /** Activates the pending secret given the password and one of its codes; answers the recovery codes, shown this once. */
  async enable(user: UserRow, input: Credentials, clientAddress: string): Promise<{ two_factor_enabled: true; recovery_codes: string[] }> {
    if (hasTwoFactor(user)) throw badRequest("Two-factor authentication is already enabled");
    const { pending } = this.store.users.totpSecrets(user);
    if (!pending) throw badRequest(SETUP_FIRST);
    const check = await this.checks.reserve(accountKey(user.id), clientAddress);
    await this.requirePassword(user, input.password);
    if (!isValidTotp(pending, input.code)) throw badRequest(INVALID_CODE);
    const codes = generateRecoveryCodes();
    if (!(await this.store.users.enableTotp(user.id, codes.map((code) => this.hash(user, code))))) {
      await check.notAFailure();
      throw badRequest(SETUP_FIRST);
    }
    await check.succeeded();
    return { two_factor_enabled: true, recovery_codes: codes };
  }

  /** Turns 2FA off given the password and a code (or a recovery code); the recovery codes go too. */
  async disable(user: UserRow, input: Credentials, clientAddress: string): Promise<{ two_factor_enabled: false }> {
    if (!hasTwoFactor(user)) throw badRequest(NOT_ENABLED);
    const check = await this.checks.reserve(accountKey(user.id), clientAddress);
    await this.requirePassword(user, input.password);
    if (!(await this.matches(user, input.code))) throw badRequest(INVALID_CODE);
    await this.store.users.disableTotp(user.id);
    await check.succeeded();
    return { two_factor_enabled: false };
  }

  /** A new set of recovery codes given the password and a code; the earlier set stops working. */
  async regenerateRecoveryCodes(user: UserRow, input: Credentials, clientAddress: string): Promise<{ recovery_codes: string[] }> {
    if (!hasTwoFactor(user)) throw badRequest(NOT_ENABLED);
    const check = await this.checks.reserve(accountKey(user.id), clientAddress);
    await this.requirePassword(user, input.password);
    if (!(await this.matches(user, input.code))) throw badRequest(INVALID_CODE);
    const codes = generateRecoveryCodes();
    await this.store.users.replaceRecoveryCodes(user.id, codes.map((code) => this.hash(user, code)));
    await check.succeeded();
    return { recovery_codes: codes };
  }

  /**
   * For routes the spec marks "(2FA)": the `X-2FA-Code` header must hold a current code (or an
   * unused recovery code) when the account has two-factor authentication on (CONTRACT.md). A
   * wrong code is a counted failure; past the budget the answer is 429, right code or not.
   */
  async requireCode(user: UserRow, code: string | null | undefined, clientAddress: string): Promise<void> {
    if (!hasTwoFactor(user)) return;
    if (!code) throw forbidden("This action needs your two-factor code in the X-2FA-Code header");
    const check = await this.checks.reserve(accountKey(user.id), clientAddress);
    if (!(await this.matches(user, code.trim()))) throw forbidden(INVALID_CODE);
    await check.succeeded();
  }

  /**
   * Whether `code` is a current TOTP code of the active secret or one of the account's unused
   * recovery codes (which it uses up). The caller has reserved a credential check for it.
   */
  async matches(user: UserRow, code: string): Promise<boolean> {
    const { active } = this.store.users.totpSecrets(user);
    if (!active) return false;
    if (isTotpCode(code)) return isValidTotp(active, code);
    const recovery = normalizeRecoveryCode(code);
    return recovery !== null && this.store.users.useRecoveryCode(user.id, hashRecoveryCode(user.id, recovery));
  }

  /** 403, not 401: the token is fine, and a 401 tells clients their session ended (docs/auth.md). */
  private async requirePassword(user: UserRow, password: string): Promise<void> {
    const hash = await this.store.users.passwordHashOf(user.id);
    if (!hash || !(await Bun.password.verify(password, hash))) throw forbidden(INVALID_PASSWORD);
  }

  private hash(user: UserRow, code: string): string {
    return hashRecoveryCode(user.id, normalizeRecoveryCode(code)!);
  }
}
