import type { Store } from "../../store/store.ts";
import type { UserRow } from "../../store/users-repo.ts";
import type { VerifiedClaims } from "./tokens.ts";

/** Stands for "revoked" in `checked`: a revoked token stays revoked, so it is not looked up again. */
const REVOKED = -1;

/**
 * Whether a token was revoked by itself (logout; `store.revokedTokens`). Every authenticated
 * request reads the account, and with it `token_revocations`, the number of its tokens revoked so
 * far: while that number is the one a token was last checked under, nothing of that account was
 * revoked since, and the token needs no look-up. An account that never logged out costs nothing;
 * after a logout on any node, each other token of the account is looked up once per node. This
 * is how a logout on one node holds on every node without a signal between them.
 */
export class TokenRevocations {
  /** Token id -> the account's `token_revocations` when the token was found not revoked (or REVOKED). */
  private readonly checked = new Map<string, number>();
  private static readonly SIZE = 10_000;

  constructor(private readonly store: Store) {}

  /** True when the token still stands; the store is asked only after a logout of the account. */
  async stands(user: UserRow, claims: Readonly<VerifiedClaims>): Promise<boolean> {
    const { tokenId } = claims;
    // A token without an id predates logout and can only be revoked with all the others.
    if (!tokenId || user.token_revocations === 0) return true;
    const seen = this.checked.get(tokenId);
    if (seen === REVOKED) return false;
    if (seen === user.token_revocations) return true;
    const revoked = await this.store.revokedTokens.isRevoked(tokenId);
    this.remember(tokenId, revoked ? REVOKED : user.token_revocations);
    return !revoked;
  }

  /** Revokes one token until its expiry (seconds), on every node. */
  async revoke(userId: string, tokenId: string, expiresAtSeconds: number): Promise<void> {
    await this.store.revokedTokens.revoke(tokenId, userId, expiresAtSeconds);
    this.remember(tokenId, REVOKED);
  }

  private remember(tokenId: string, value: number) {
    this.checked.delete(tokenId);
    // Map keeps insertion order: past the size, the entry checked longest ago goes.
    if (this.checked.size >= TokenRevocations.SIZE) this.checked.delete(this.checked.keys().next().value!);
    this.checked.set(tokenId, value);
  }
}
