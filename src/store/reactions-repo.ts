import type { Database } from "bun:sqlite";

/** One reaction with the reacting user's public fields, in reaction order. */
export interface ReactionUserRow {
  emoji: string;
  user_id: string;
  username: string;
  avatar: string | null;
}

export type ToggleOutcome =
  | { action: "added" | "removed"; count: number }
  /** The emoji is new on the message and the caller may not start a new emoji type. */
  | { action: "refused" };

/**
 * Channel-message reactions. `reactions.created_at` holds milliseconds, not the usual seconds:
 * it is never shown, and only orders emoji types by first use (and users by reaction time),
 * which second resolution would leave to chance. Each stamp is strictly greater than the last
 * one this process wrote, so even same-millisecond reactions keep their order.
 */
export class ReactionsRepo {
  private readonly exists;
  private readonly typeExists;
  private readonly insertStmt;
  private readonly deleteStmt;
  private readonly countStmt;
  private readonly listStmt;
  private lastStamp = 0;

  constructor(private readonly db: Database) {
    this.exists = db.prepare<{ one: number }, [string, string, string]>(
      "SELECT 1 AS one FROM reactions WHERE message_id = ? AND emoji = ? AND user_id = ?",
    );
    this.typeExists = db.prepare<{ one: number }, [string, string]>("SELECT 1 AS one FROM reactions WHERE message_id = ? AND emoji = ? LIMIT 1");
    this.insertStmt = db.prepare("INSERT INTO reactions (message_id, emoji, user_id, created_at) VALUES (?, ?, ?, ?)");
    this.deleteStmt = db.prepare("DELETE FROM reactions WHERE message_id = ? AND emoji = ? AND user_id = ?");
    this.countStmt = db.prepare<{ n: number }, [string, string]>("SELECT count(*) AS n FROM reactions WHERE message_id = ? AND emoji = ?");
    // The primary key (message_id, emoji, user_id) serves every lookup here.
    this.listStmt = db.prepare<ReactionUserRow, [string]>(
      `SELECT r.emoji, r.user_id, u.username, u.avatar FROM reactions r JOIN users u ON u.id = r.user_id
       WHERE r.message_id = ? ORDER BY r.created_at, r.emoji, r.user_id`,
    );
  }

  /**
   * Adds the user's reaction, or removes it when present, in one transaction. Adding a new
   * emoji type to the message needs `mayStartType`; adding to an existing type does not.
   */
  async toggle(messageId: string, emoji: string, userId: string, mayStartType: boolean): Promise<ToggleOutcome> {
    return this.db.transaction((): ToggleOutcome => {
      if (this.exists.get(messageId, emoji, userId)) {
        this.deleteStmt.run(messageId, emoji, userId);
        return { action: "removed", count: this.count(messageId, emoji) };
      }
      if (!mayStartType && !this.typeExists.get(messageId, emoji)) return { action: "refused" };
      this.insertStmt.run(messageId, emoji, userId, this.stamp());
      return { action: "added", count: this.count(messageId, emoji) };
    })();
  }

  /** Removes the user's reaction; null when there was none, else the emoji's remaining count. */
  async remove(messageId: string, emoji: string, userId: string): Promise<number | null> {
    return this.db.transaction(() => {
      if (this.deleteStmt.run(messageId, emoji, userId).changes === 0) return null;
      return this.count(messageId, emoji);
    })();
  }

  /** Every reaction on the message, oldest first. */
  async list(messageId: string): Promise<ReactionUserRow[]> {
    return this.listStmt.all(messageId);
  }

  private count(messageId: string, emoji: string): number {
    return this.countStmt.get(messageId, emoji)?.n ?? 0;
  }

  private stamp(): number {
    this.lastStamp = Math.max(Date.now(), this.lastStamp + 1);
    return this.lastStamp;
  }
}
