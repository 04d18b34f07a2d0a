import type { Database, Transaction } from "./database.ts";
import { nowSeconds } from "./time.ts";

/**
 * A send's idempotency key (docs/messages.md, "Idempotent sends"): who sent where (`scope`,
 * built by the domain: the sender and the channel or DM) and the client's nonce, kept for
 * `ttlSeconds`.
 */
export interface NonceKey {
  scope: string;
  nonce: string;
  ttlSeconds: number;
}

/** Expired keys are deleted at most this often per process: one indexed range delete. */
const PURGE_EVERY_SECONDS = 60;

/**
 * The `message_nonces` table, used inside a send's transaction by the channel and DM message
 * repos. `find` takes the key's lock first (PostgreSQL: an advisory transaction lock; SQLite
 * has one writer), so two sends of one key on two nodes run one after the other and the second
 * sees the first's committed row; the primary key on (scope, nonce) backs that up.
 */
export class MessageNonces {
  private readonly findStmt;
  private readonly upsertStmt;
  private readonly purgeStmt;
  private lastPurge = 0;

  constructor(db: Database) {
    this.findStmt = db.prepare<{ message_id: string }, [string, string, number]>(
      "SELECT message_id FROM message_nonces WHERE scope = ? AND nonce = ? AND created_at > ?",
    );
    // An expired key of the same scope and nonce (not purged yet) is taken over.
    this.upsertStmt = db.prepare(
      `INSERT INTO message_nonces (scope, nonce, message_id, created_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (scope, nonce) DO UPDATE SET message_id = excluded.message_id, created_at = excluded.created_at`,
    );
    this.purgeStmt = db.prepare("DELETE FROM message_nonces WHERE created_at <= ?");
  }

  /** The id of the message this key already made (within its time to live), or null. Locks the key for the transaction. */
  async find(tx: Transaction, key: NonceKey): Promise<string | null> {
    await tx.lock(`nonce:${key.scope}:${key.nonce}`);
    const row = await tx.get(this.findStmt, key.scope, key.nonce, nowSeconds() - key.ttlSeconds);
    return row?.message_id ?? null;
  }

  /** Records that `key` made `messageId`, and now and then purges the expired keys. */
  async record(tx: Transaction, key: NonceKey, messageId: string): Promise<void> {
    const now = nowSeconds();
    await tx.run(this.upsertStmt, key.scope, key.nonce, messageId, now);
    if (now - this.lastPurge >= PURGE_EVERY_SECONDS) {
      this.lastPurge = now;
      await tx.run(this.purgeStmt, now - key.ttlSeconds);
    }
  }
}
