import type { Database } from "./database.ts";
import type { MessageRow } from "./messages-repo.ts";
import { nowSeconds } from "./time.ts";

type PinOutcome = "pinned" | "exists" | "full";

/**
 * Channel-message pins. Lists are newest pin first: `pinned_at`, then insertion (`rowid`: SQLite's
 * own; on PostgreSQL an identity column of that name).
 */
export class PinsRepo {
  private readonly listStmt;
  private readonly countStmt;
  private readonly existsStmt;
  private readonly insertStmt;
  private readonly deleteStmt;

  constructor(private readonly db: Database) {
    // pins_channel (channel_id, pinned_at) carries the rowid, so it serves the order too.
    this.listStmt = db.prepare<MessageRow, [string]>(
      `SELECT m.*, u.username, u.avatar, u.is_bot FROM pins p
       JOIN messages m ON m.id = p.message_id JOIN users u ON u.id = m.user_id
       WHERE p.channel_id = ? ORDER BY p.pinned_at DESC, p.rowid DESC`,
    );
    this.countStmt = db.prepare<{ n: number }, [string]>("SELECT count(*) AS n FROM pins WHERE channel_id = ?");
    this.existsStmt = db.prepare<{ one: number }, [string]>("SELECT 1 AS one FROM pins WHERE message_id = ?");
    this.insertStmt = db.prepare("INSERT INTO pins (message_id, channel_id, pinned_by, pinned_at) VALUES (?, ?, ?, ?)");
    this.deleteStmt = db.prepare("DELETE FROM pins WHERE message_id = ?");
  }

  /** The channel's pinned messages, newest pin first. */
  async list(channelId: string): Promise<MessageRow[]> {
    return this.db.all(this.listStmt, channelId);
  }

  /** Pins unless already pinned ("exists") or the channel holds `max` pins ("full"), in one transaction. */
  async pin(channelId: string, messageId: string, userId: string, max: number): Promise<PinOutcome> {
    return this.db.transaction(async (tx): Promise<PinOutcome> => {
      await tx.lock(`pins:${channelId}`);
      if (await tx.get(this.existsStmt, messageId)) return "exists";
      if (((await tx.get(this.countStmt, channelId))?.n ?? 0) >= max) return "full";
      await tx.run(this.insertStmt, messageId, channelId, userId, nowSeconds());
      return "pinned";
    });
  }

  /** False when the message was not pinned. */
  async unpin(messageId: string): Promise<boolean> {
    return (await this.db.run(this.deleteStmt, messageId)) > 0;
  }
}
