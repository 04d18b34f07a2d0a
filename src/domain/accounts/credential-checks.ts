import type { Config } from "../../config.ts";
import type { SharedRateLimiter, SharedState } from "../shared/shared-state.ts";
import { tooManyRequests } from "../shared/errors.ts";

/** What a spent budget answers outside of login (which keeps its own wording). */
const TOO_MANY_FAILED_CHECKS = "Too many failed attempts for this account, try again later";

/** One check taken from the budgets: it stays a failure unless the caller says otherwise. */
interface CredentialCheck {
  /** Gives the check back: the credential was right but the attempt stopped short (a missing 2FA code). */
  notAFailure(): Promise<void>;
  /** Gives the check back and forgets this address's failures for the account. */
  succeeded(): Promise<void>;
}

/**
 * The budgets of credential checks per account: every password and every two-factor code
 * (TOTP or recovery code) checked anywhere — login, password change, 2FA enable and disable,
 * recovery-code regeneration, the X-2FA-Code header — takes one check from the account's budget
 * for the caller's address and one from its budget for all addresses, before it is checked
 * (docs/auth.md, "Rate limits"). One budget for both kinds: a stolen token guessing codes and a
 * guesser trying passwords spend the same allowance, so neither goes faster than a login could.
 * Shared by every node in cluster mode (SharedState).
 */
export class CredentialChecks {
  private readonly fromAddress: SharedRateLimiter;
  private readonly ofAccount: SharedRateLimiter;

  constructor(
    shared: SharedState,
    config: Pick<Config, "loginFailuresPerAccountPerMinute" | "loginFailuresPerAccountTotalPerMinute" | "loginFailuresWindowSeconds">,
  ) {
    const windowMs = config.loginFailuresWindowSeconds * 1000;
    this.fromAddress = shared.rateLimiter("login-checks-address", config.loginFailuresPerAccountPerMinute, windowMs);
    this.ofAccount = shared.rateLimiter("login-checks-account", config.loginFailuresPerAccountTotalPerMinute, windowMs);
  }

  /**
   * Takes one check for `accountKey` from `clientAddress`, or throws 429 (with Retry-After)
   * when either budget is spent: the credential is then not even looked at, so a right code
   * or password is refused too until the window ends. Reserving before checking means
   * concurrent guesses are each counted and cannot all pass.
   */
  async reserve(accountKey: string, clientAddress: string, refusal = TOO_MANY_FAILED_CHECKS): Promise<CredentialCheck> {
    const fromAddress = `${accountKey} ${clientAddress}`;
    const here = await this.fromAddress.reserve(fromAddress);
    if (!here.allowed) throw tooManyRequests(here.retryAfter, refusal);
    const everywhere = await this.ofAccount.reserve(accountKey);
    if (!everywhere.allowed) {
      await this.fromAddress.refund(fromAddress);
      throw tooManyRequests(everywhere.retryAfter, refusal);
    }
    const notAFailure = async () => {
      await this.fromAddress.refund(fromAddress);
      await this.ofAccount.refund(accountKey);
    };
    return {
      notAFailure,
      succeeded: async () => {
        await notAFailure();
        await this.fromAddress.reset(fromAddress);
      },
    };
  }
}

/** The budget key of an account (its username and email share it). */
export const accountKey = (userId: string) => `account:${userId}`;
