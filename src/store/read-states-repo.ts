import type { Database, Transaction } from "./database.ts";
import { nowSeconds } from "./time.ts";

/** What a channel's mention rows hold (src/domain/messaging/mentions.ts). */
export interface MentionRow {
  kind: "user" | "role" | "everyone";
  targetId: string;
}

export interface UnreadChannelRow {
  channel_id: string;
  server_id: string;
  last_message_id: string;
  last_read_message_id: string | null;
}

export interface UnreadDmRow {
  conversation_id: string;
  last_message_id: string;
  last_read_message_id: string | null;
}

/**
 * Read states (docs/read-states.md): unread channels and DMs from the last-message ids kept by
 * triggers (migration 19), and mention counts from the mention rows, joined through the
 * user's memberships and roles. Every read is by index: nothing scans messages.
 */
export class ReadStatesRepo {
  private readonly unreadChannels;
  private readonly mentionCounts;
  private readonly mentionCountInStmt;
  private readonly unreadDms;
  private readonly markChannelStmt;
  private readonly channelRead;
  private readonly markDmStmt;
  private readonly dmRead;
  private readonly deleteMentions;
  private readonly insertMention;

  constructor(private readonly db: Database) {
    this.unreadChannels = db.prepare<UnreadChannelRow, [string]>(
      `SELECT c.id AS channel_id, c.server_id, lm.last_message_id, rs.last_read_message_id
       FROM server_members sm
       JOIN channels c ON c.server_id = sm.server_id
       JOIN channel_last_messages lm ON lm.channel_id = c.id
       LEFT JOIN channel_read_states rs ON rs.user_id = sm.user_id AND rs.channel_id = c.id
       WHERE sm.user_id = ? AND lm.last_message_id > COALESCE(rs.last_read_message_id, '')`,
    );
    this.mentionCounts = db.prepare<{ channel_id: string; mentions: number }, [string, string, string, string, string]>(mentionsSql(""));
    this.mentionCountInStmt = db.prepare<{ channel_id: string; mentions: number }, [string, string, string, string, string, string, string, string]>(
      mentionsSql(" AND cm.channel_id = ?"),
    );
    this.unreadDms = db.prepare<UnreadDmRow, [string]>(
      `SELECT cm.conversation_id, lm.last_message_id, cm.last_read_message_id
       FROM conversation_members cm
       JOIN dm_last_messages lm ON lm.conversation_id = cm.conversation_id
       WHERE cm.user_id = ? AND lm.last_message_id > COALESCE(cm.last_read_message_id, '')`,
    );
    // Never backwards: an older id than the stored one leaves it.
    this.markChannelStmt = db.prepare(
      `INSERT INTO channel_read_states (user_id, channel_id, last_read_message_id, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (user_id, channel_id) DO UPDATE SET last_read_message_id = excluded.last_read_message_id, updated_at = excluded.updated_at
       WHERE channel_read_states.last_read_message_id IS NULL OR excluded.last_read_message_id > channel_read_states.last_read_message_id`,
    );
    this.channelRead = db.prepare<{ last_read_message_id: string | null }, [string, string]>(
      "SELECT last_read_message_id FROM channel_read_states WHERE user_id = ? AND channel_id = ?",
    );
    this.markDmStmt = db.prepare(
      `UPDATE conversation_members SET last_read_message_id = ?
       WHERE conversation_id = ? AND user_id = ? AND (last_read_message_id IS NULL OR last_read_message_id < ?)`,
    );
    this.dmRead = db.prepare<{ last_read_message_id: string | null }, [string, string]>(
      "SELECT last_read_message_id FROM conversation_members WHERE conversation_id = ? AND user_id = ?",
    );
    this.deleteMentions = db.prepare("DELETE FROM channel_mentions WHERE message_id = ?");
    this.insertMention = db.prepare(
      "INSERT INTO channel_mentions (kind, target_id, message_id, channel_id, author_id) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
    );
  }

  unreadChannelsOf(userId: string): Promise<UnreadChannelRow[]> {
    return this.db.all(this.unreadChannels, userId);
  }

  /** Unread mentions per channel (channels the user may not view are for the caller to drop). */
  mentionCountsOf(userId: string): Promise<{ channel_id: string; mentions: number }[]> {
    return this.db.all(this.mentionCounts, userId, userId, userId, userId, userId);
  }

  /** Unread mentions in one channel (after a mark-read: what is left past the read point). */
  async mentionCountIn(userId: string, channelId: string): Promise<number> {
    const row = await this.db.get(this.mentionCountInStmt, userId, channelId, userId, channelId, userId, channelId, userId, userId);
    return Number(row?.mentions ?? 0);
  }

  unreadDmsOf(userId: string): Promise<UnreadDmRow[]> {
    return this.db.all(this.unreadDms, userId);
  }

  /** Moves the read point forward (never back); answers the stored one. */
  async markChannel(userId: string, channelId: string, messageId: string | null): Promise<string | null> {
    return this.db.transaction(async (tx) => {
      if (messageId !== null) await tx.run(this.markChannelStmt, userId, channelId, messageId, nowSeconds());
      return (await tx.get(this.channelRead, userId, channelId))?.last_read_message_id ?? null;
    });
  }

  async markDm(userId: string, dmId: string, messageId: string | null): Promise<string | null> {
    return this.db.transaction(async (tx) => {
      if (messageId !== null) await tx.run(this.markDmStmt, messageId, dmId, userId, messageId);
      return (await tx.get(this.dmRead, dmId, userId))?.last_read_message_id ?? null;
    });
  }

  /** A message's mention rows, in the caller's transaction; `authorId` '' for a webhook's message. */
  async addMentions(tx: Transaction, messageId: string, channelId: string, authorId: string, mentions: MentionRow[]): Promise<void> {
    for (const m of mentions) await tx.run(this.insertMention, m.kind, m.targetId, messageId, channelId, authorId);
  }

  /** After an edit: the message's mentions as its new content has them. */
  async replaceMentions(messageId: string, channelId: string, authorId: string, mentions: MentionRow[]): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.run(this.deleteMentions, messageId);
      await this.addMentions(tx, messageId, channelId, authorId, mentions);
    });
  }
}

/**
 * Unread mentions per channel: the user's own rows, their roles' rows (a role of the channel's
 * server) and their servers' @everyone rows, each an index range, past the read point and not
 * by the user. `where` narrows each part to one channel.
 *
 * The role and @everyone parts start from the user's memberships (server_members_user), then
 * their roles (member_roles' key) and only then the mention rows of each (kind, target): SQLite
 * takes a `CROSS JOIN`'s left side first, and without it, having no statistics, it started from
 * every mention row of the kind ('role', 'everyone') on the platform
 * (test/store/query-plans.test.ts). PostgreSQL reads it as the same inner join.
 */
function mentionsSql(where: string): string {
  return `SELECT x.channel_id, CAST(COUNT(DISTINCT x.message_id) AS integer) AS mentions FROM (
      SELECT cm.channel_id, cm.message_id, cm.author_id FROM channel_mentions cm WHERE cm.kind = 'user' AND cm.target_id = ?${where}
      UNION ALL
      SELECT cm.channel_id, cm.message_id, cm.author_id FROM server_members sm
        CROSS JOIN member_roles mr CROSS JOIN channel_mentions cm CROSS JOIN channels c
        WHERE mr.server_id = sm.server_id AND mr.user_id = sm.user_id
          AND cm.kind = 'role' AND cm.target_id = mr.role_id
          AND c.id = cm.channel_id AND c.server_id = sm.server_id
          AND sm.user_id = ?${where}
      UNION ALL
      SELECT cm.channel_id, cm.message_id, cm.author_id FROM server_members sm
        CROSS JOIN channel_mentions cm
        WHERE cm.kind = 'everyone' AND cm.target_id = sm.server_id AND sm.user_id = ?${where}
    ) x
    LEFT JOIN channel_read_states rs ON rs.user_id = ? AND rs.channel_id = x.channel_id
    WHERE x.author_id <> ? AND x.message_id > COALESCE(rs.last_read_message_id, '')
    GROUP BY x.channel_id`;
}
