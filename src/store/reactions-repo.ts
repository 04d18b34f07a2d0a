import type { Database, Transaction } from "./database.ts";

/** One reaction with the reacting user's public fields, in reaction order. */
interface ReactionUserRow {
  emoji: string;
  user_id: string;
  username: string;
  avatar: string | null;
}

type ToggleOutcome =
  | { action: "added" | "removed"; count: number }
  /** The emoji is new on the message and the caller may not start a new emoji type. */
  | { action: "refused" }
  /** The emoji is new on the message, which already carries the most distinct emojis allowed. */
  | { action: "full" };

/**
 * Channel-message reactions. `reactions.created_at` holds milliseconds, not the usual seconds:
 * it is never shown, and only orders emoji types by first use (and users by reaction time),
 * which second resolution would leave to chance. Each stamp is strictly greater than the
 * message's latest one, read under the message's lock, so even same-millisecond reactions keep
 * their order, whichever process wrote them.
 */
export class ReactionsRepo {
  private readonly exists;
  private readonly typeExists;
  private readonly insertStmt;
  private readonly deleteStmt;
  private readonly countStmt;
  private readonly listStmt;
  private readonly lastStampStmt;
  private readonly typeCountStmt;

  constructor(private readonly db: Database) {
    this.exists = db.prepare<{ one: number }, [string, string, string]>(
      "SELECT 1 AS one FROM reactions WHERE message_id = ? AND emoji = ? AND user_id = ?",
    );
    this.typeExists = db.prepare<{ one: number }, [string, string]>("SELECT 1 AS one FROM reactions WHERE message_id = ? AND emoji = ? LIMIT 1");
    this.insertStmt = db.prepare("INSERT INTO reactions (message_id, emoji, user_id, created_at) VALUES (?, ?, ?, ?)");
    this.deleteStmt = db.prepare("DELETE FROM reactions WHERE message_id = ? AND emoji = ? AND user_id = ?");
    this.lastStampStmt = db.prepare<{ last: number | null }, [string]>("SELECT max(created_at) AS last FROM reactions WHERE message_id = ?");
    this.typeCountStmt = db.prepare<{ n: number }, [string]>("SELECT count(DISTINCT emoji) AS n FROM reactions WHERE message_id = ?");
    this.countStmt = db.prepare<{ n: number }, [string, string]>("SELECT count(*) AS n FROM reactions WHERE message_id = ? AND emoji = ?");
    // The primary key (message_id, emoji, user_id) serves every lookup here.
    this.listStmt = db.prepare<ReactionUserRow, [string]>(
      `SELECT r.emoji, r.user_id, u.username, u.avatar FROM reactions r JOIN users u ON u.id = r.user_id
       WHERE r.message_id = ? ORDER BY r.created_at, r.emoji, r.user_id`,
    );
  }

  /**
   * Adds the user's reaction, or removes it when present, in one transaction. Adding a new
   * emoji type to the message needs `mayStartType` and room under `maxTypes`; adding to an
   * existing type needs neither.
   */
  async toggle(messageId: string, emoji: string, userId: string, mayStartType: boolean, maxTypes: number): Promise<ToggleOutcome> {
    return this.db.transaction(async (tx): Promise<ToggleOutcome> => {
      await tx.lock(`reactions:${messageId}`);
      if (await tx.get(this.exists, messageId, emoji, userId)) {
        await tx.run(this.deleteStmt, messageId, emoji, userId);
        return { action: "removed", count: await this.count(tx, messageId, emoji) };
      }
      if (!await tx.get(this.typeExists, messageId, emoji)) {
        if (!mayStartType) return { action: "refused" };
        if (((await tx.get(this.typeCountStmt, messageId))?.n ?? 0) >= maxTypes) return { action: "full" };
      }
      const last = (await tx.get(this.lastStampStmt, messageId))?.last ?? 0;
      await tx.run(this.insertStmt, messageId, emoji, userId, Math.max(Date.now(), last + 1));
      return { action: "added", count: await this.count(tx, messageId, emoji) };
    });
  }

  /** Removes the user's reaction; null when there was none, else the emoji's remaining count. */
  async remove(messageId: string, emoji: string, userId: string): Promise<number | null> {
    return this.db.transaction(async (tx) => {
      if ((await tx.run(this.deleteStmt, messageId, emoji, userId)) === 0) return null;
      return this.count(tx, messageId, emoji);
    });
  }

  /** Every reaction on the message, oldest first. */
  async list(messageId: string): Promise<ReactionUserRow[]> {
    return this.db.all(this.listStmt, messageId);
  }

  private async count(tx: Transaction, messageId: string, emoji: string): Promise<number> {
    return (await tx.get(this.countStmt, messageId, emoji))?.n ?? 0;
  }
}
