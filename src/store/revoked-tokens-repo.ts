import type { Database } from "./database.ts";
import { nowSeconds } from "./time.ts";

/**
 * Tokens revoked one by one (logout), by their id (the JWT's `jti`), kept until they would have
 * expired anyway. Revoking also counts one more revocation on the account
 * (`users.token_revocations`), which every authenticated request reads with the account: a node
 * that verified the token earlier sees the count move and checks here again.
 */
export class RevokedTokensRepo {
  private readonly insert;
  private readonly bump;
  private readonly prune;
  private readonly find;

  constructor(private readonly db: Database) {
    this.insert = db.prepare<unknown, [string, string, number]>(
      "INSERT INTO revoked_tokens (token_id, user_id, expires_at) VALUES (?, ?, ?) ON CONFLICT (token_id) DO NOTHING",
    );
    this.bump = db.prepare<unknown, [string]>("UPDATE users SET token_revocations = token_revocations + 1 WHERE id = ?");
    this.prune = db.prepare<unknown, [number]>("DELETE FROM revoked_tokens WHERE expires_at <= ?");
    this.find = db.prepare<{ found: number }, [string]>("SELECT 1 AS found FROM revoked_tokens WHERE token_id = ?");
  }

  /** Revokes one token of `userId` until `expiresAt` (seconds); rows of tokens expired by now go. */
  async revoke(tokenId: string, userId: string, expiresAt: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.run(this.prune, nowSeconds());
      if ((await tx.run(this.insert, tokenId, userId, expiresAt)) > 0) await tx.run(this.bump, userId);
    });
  }

  async isRevoked(tokenId: string): Promise<boolean> {
    return (await this.db.get(this.find, tokenId)) !== null;
  }
}
