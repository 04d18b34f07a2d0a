import * as OTPAuth from "otpauth";
import type { UserRow } from "../../store/users-repo.ts";
import type { Store } from "../../store/store.ts";
import { badRequest, forbidden } from "../shared/errors.ts";

const ISSUER = "Hearth";

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
export function isValidTotp(secret: string, code: string): boolean {
  return totpFor(secret, "check").validate({ token: code, window: 1 }) !== null;
}

export const hasTwoFactor = (user: UserRow) => user.totp_secret !== null;

/** TOTP two-factor authentication: setup, enable, disable, and the check for "(2FA)" routes. */
export class TwoFactor {
  constructor(private readonly store: Store) {}

  /** A new pending secret; it takes effect only once `enable` sees a valid code for it. */
  async setup(user: UserRow): Promise<{ secret: string; otpauth_url: string }> {
    if (hasTwoFactor(user)) throw badRequest("Two-factor authentication is already enabled");
    const secret = new OTPAuth.Secret({ size: 20 }).base32;
    await this.store.users.setPendingTotpSecret(user.id, secret);
    return { secret, otpauth_url: totpFor(secret, user.username).toString() };
  }

  async enable(user: UserRow, code: string): Promise<{ two_factor_enabled: true }> {
    if (hasTwoFactor(user)) throw badRequest("Two-factor authentication is already enabled");
    const { pending } = this.store.users.totpSecrets(user);
    if (!pending) throw badRequest("Start two-factor setup first (POST /api/v1/auth/2fa/setup)");
    if (!isValidTotp(pending, code)) throw badRequest("Invalid two-factor code");
    if (!(await this.store.users.enableTotp(user.id))) throw badRequest("Start two-factor setup first (POST /api/v1/auth/2fa/setup)");
    return { two_factor_enabled: true };
  }

  async disable(user: UserRow, code: string): Promise<{ two_factor_enabled: false }> {
    const { active } = this.store.users.totpSecrets(user);
    if (!active) throw badRequest("Two-factor authentication is not enabled");
    if (!isValidTotp(active, code)) throw badRequest("Invalid two-factor code");
    await this.store.users.disableTotp(user.id);
    return { two_factor_enabled: false };
  }

  /**
   * For routes the spec marks "(2FA)": the `X-2FA-Code` header must hold a current code when
   * the account has two-factor authentication on (CONTRACT.md).
   */
  requireCode(user: UserRow, code: string | null | undefined): void {
    const { active } = this.store.users.totpSecrets(user);
    if (!active) return;
    if (!code) throw forbidden("This action needs your two-factor code in the X-2FA-Code header");
    if (!isValidTotp(active, code.trim())) throw forbidden("Invalid two-factor code");
  }
}
