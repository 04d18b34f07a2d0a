import { WriteBatch } from "./write-batch.ts";
import type { Database, SqlValue, Transaction } from "./database.ts";
import type { PresenceStatus } from "./types.ts";
import { MessageNonces, type NonceKey } from "./message-nonces.ts";
import { SearchBacklog } from "./search-backlog.ts";
import { nowSeconds } from "./time.ts";

export interface DmRow {
  id: string;
  type: "dm" | "group";
  name: string | null;
  icon: string | null;
  owner_id: string | null;
  dm_key: string | null;
  last_message_at: number | null;
  created_at: number;
  updated_at: number;
}

interface RecipientRow {
  conversation_id: string;
  id: string;
  username: string;
  avatar: string | null;
  status: PresenceStatus;
  is_bot: 0 | 1;
}

export interface DmMessageRow {
  id: string;
  conversation_id: string;
  user_id: string;
  content: string;
  embeds: string;
  reply_to: string | null;
  created_at: number;
  updated_at: number | null;
  username: string;
  avatar: string | null;
  is_bot: 0 | 1;
}

interface DmAttachmentRow {
  id: string;
  message_id: string;
  filename: string;
  original_name: string;
  mime_type: string;
  size: number;
  width: number | null;
  height: number | null;
}

export interface NewDmAttachment {
  filename: string;
  original_name: string;
  mime_type: string;
  size: number;
  /** An image's pixel size (migration 20); null for other files. */
  width: number | null;
  height: number | null;
}

/** The dm_key of a 1:1 DM: the two ids sorted, joined with ':'. */
const dmKey = (a: string, b: string) => (a < b ? `${a}:${b}` : `${b}:${a}`);

/** Past any UUID: the keyset start of the newest page. */
const AFTER_ALL_IDS = "~";

const MESSAGE_SELECT = `SELECT m.id, m.conversation_id, m.user_id, m.content, m.embeds, m.reply_to, m.created_at, m.updated_at,
  u.username, u.avatar, u.is_bot
  FROM dm_messages m JOIN users u ON u.id = m.user_id`;

/**
 * Direct messages: DMs (1:1 and group), their members, messages, attachments, reactions,
 * pins and read markers. Every check-then-write is one transaction.
 */
export class DmsRepo {
  private readonly byId;
  private readonly byKey;
  private readonly insertDm;
  private readonly insertMember;
  private readonly memberStmt;
  private readonly membersStmt;
  private readonly memberCount;
  private readonly forUser;
  private readonly recipientsStmt;
  private readonly deleteMemberStmt;
  private readonly setOwnerStmt;
  private readonly setNameStmt;
  private readonly setIconStmt;
  private readonly deleteDmStmt;
  private readonly dmFiles;
  private readonly insertMessage;
  private readonly nonces;
  private readonly insertAttachment;
  private readonly touchDm;
  private readonly messageStmt;
  private readonly olderStmt;
  private readonly newerOrSameStmt;
  private readonly newerStmt;
  private readonly attachmentsStmt;
  private readonly updateMessageStmt;
  private readonly deleteMessageStmt;
  private readonly searchStmt;
  /** Messages waiting for the search index (SQLite; none on PostgreSQL). */
  readonly searchBacklog: SearchBacklog;
  private readonly pinsStmt;
  private readonly pinCount;
  private readonly insertPin;
  private readonly deletePin;
  private readonly setReadStmt;
  private readonly latestMessageStmt;
  private readonly reactionExists;
  private readonly insertReaction;
  private readonly deleteReaction;
  private readonly reactionTypeExists;
  private readonly reactionTypeCount;
  private readonly groupCountOfUser;
  private readonly sharedServerStmt;
  private readonly presencePartnersStmt;
  private readonly friendsStmt;
  private readonly mutersStmt;
  private readonly touchUpdated;
  private readonly pinExists;

  constructor(
    private readonly db: Database,
    /** Group commit for sends (src/store/write-batch.ts); one per database, shared with channel messages. */
    private readonly writes: WriteBatch = new WriteBatch(db),
  ) {
    this.searchBacklog = new SearchBacklog(db, writes, db.dialect.search.indexPendingDmMessages);
    this.nonces = new MessageNonces(db);
    this.byId = db.prepare<DmRow, [string]>("SELECT * FROM conversations WHERE id = ?");
    this.byKey = db.prepare<DmRow, [string]>("SELECT * FROM conversations WHERE dm_key = ?");
    this.insertDm = db.prepare<DmRow, [string, string, string | null, string | null, string | null, number, number]>(
      `INSERT INTO conversations (id, type, name, owner_id, dm_key, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    );
    this.insertMember = db.prepare(
      "INSERT INTO conversation_members (conversation_id, user_id, joined_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
    );
    this.memberStmt = db.prepare<{ user_id: string; last_read_message_id: string | null }, [string, string]>(
      "SELECT user_id, last_read_message_id FROM conversation_members WHERE conversation_id = ? AND user_id = ?",
    );
    // Longest-standing first; joins within one second are ordered by user id.
    this.membersStmt = db.prepare<{ user_id: string }, [string]>(
      "SELECT user_id FROM conversation_members WHERE conversation_id = ? ORDER BY joined_at, user_id",
    );
    this.memberCount = db.prepare<{ n: number }, [string]>(
      "SELECT count(*) AS n FROM conversation_members WHERE conversation_id = ?",
    );
    // Newest activity first: the latest message id, or the DM's own id when it has
    // none (both are UUIDv7, so they compare by time). Served by dm_messages_conversation.
    this.forUser = db.prepare<DmRow, [string, string | null]>(
      `SELECT c.* FROM conversation_members cm JOIN conversations c ON c.id = cm.conversation_id
       WHERE cm.user_id = ?1 AND (CAST(?2 AS TEXT) IS NULL OR c.type = ?2)
       ORDER BY coalesce((SELECT max(m.id) FROM dm_messages m WHERE m.conversation_id = c.id), c.id) DESC`,
    );
    this.recipientsStmt = db.prepare<RecipientRow, [string]>(
      `SELECT cm.conversation_id, u.id, u.username, u.avatar, u.status, u.is_bot
       FROM conversation_members cm JOIN users u ON u.id = cm.user_id
       WHERE cm.conversation_id ${db.dialect.inJsonArray("?")}
       ORDER BY cm.joined_at, cm.user_id`,
    );
    this.deleteMemberStmt = db.prepare("DELETE FROM conversation_members WHERE conversation_id = ? AND user_id = ?");
    this.setOwnerStmt = db.prepare("UPDATE conversations SET owner_id = ?, updated_at = ? WHERE id = ?");
    this.setNameStmt = db.prepare<DmRow, [string | null, number, string]>(
      "UPDATE conversations SET name = ?, updated_at = ? WHERE id = ? RETURNING *",
    );
    this.setIconStmt = db.prepare("UPDATE conversations SET icon = ?, updated_at = ? WHERE id = ?");
    this.deleteDmStmt = db.prepare("DELETE FROM conversations WHERE id = ?");
    this.dmFiles = db.prepare<{ filename: string }, [string]>(
      `SELECT a.filename FROM dm_attachments a JOIN dm_messages m ON m.id = a.message_id WHERE m.conversation_id = ?`,
    );
    this.insertMessage = db.prepare(
      `INSERT INTO dm_messages (id, conversation_id, user_id, content, embeds, reply_to, created_at) VALUES (?, ?, ?, ?, ${db.dialect.json("?")}, ?, ?)`,
    );
    this.insertAttachment = db.prepare(
      `INSERT INTO dm_attachments (id, message_id, filename, original_name, mime_type, size, width, height, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.touchDm = db.prepare("UPDATE conversations SET last_message_at = ? WHERE id = ?");
    this.messageStmt = db.prepare<DmMessageRow, [string, string]>(`${MESSAGE_SELECT} WHERE m.conversation_id = ? AND m.id = ?`);
    this.olderStmt = db.prepare<DmMessageRow, [string, string, number]>(
      `${MESSAGE_SELECT} WHERE m.conversation_id = ? AND m.id < ? ORDER BY m.id DESC LIMIT ?`,
    );
    this.newerOrSameStmt = db.prepare<DmMessageRow, [string, string, number]>(
      `${MESSAGE_SELECT} WHERE m.conversation_id = ? AND m.id >= ? ORDER BY m.id ASC LIMIT ?`,
    );
    this.newerStmt = db.prepare<DmMessageRow, [string, string, number]>(
      `${MESSAGE_SELECT} WHERE m.conversation_id = ? AND m.id > ? ORDER BY m.id ASC LIMIT ?`,
    );
    this.attachmentsStmt = db.prepare<DmAttachmentRow, [string]>(
      `SELECT id, message_id, filename, original_name, mime_type, size, width, height FROM dm_attachments
       WHERE message_id ${db.dialect.inJsonArray("?")} ORDER BY message_id, id`,
    );
    this.updateMessageStmt = db.prepare("UPDATE dm_messages SET content = ?, updated_at = ? WHERE id = ?");
    this.deleteMessageStmt = db.prepare("DELETE FROM dm_messages WHERE id = ?");
    this.searchStmt = db.prepare<DmMessageRow, [SqlValue, string, number]>(
      db.dialect.search.dmMessages(
        "m.id, m.conversation_id, m.user_id, m.content, m.embeds, m.reply_to, m.created_at, m.updated_at, u.username, u.avatar, u.is_bot",
      ),
    );
    this.pinsStmt = db.prepare<DmMessageRow, [string]>(
      `SELECT m.id, m.conversation_id, m.user_id, m.content, m.embeds, m.reply_to, m.created_at, m.updated_at,
         u.username, u.avatar, u.is_bot
       FROM dm_pins p JOIN dm_messages m ON m.id = p.message_id JOIN users u ON u.id = m.user_id
       WHERE p.conversation_id = ? ORDER BY p.pinned_at DESC, m.id DESC`,
    );
    this.pinCount = db.prepare<{ n: number }, [string]>("SELECT count(*) AS n FROM dm_pins WHERE conversation_id = ?");
    this.insertPin = db.prepare(
      "INSERT INTO dm_pins (message_id, conversation_id, pinned_by, pinned_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
    );
    this.deletePin = db.prepare("DELETE FROM dm_pins WHERE message_id = ?");
    this.setReadStmt = db.prepare(
      "UPDATE conversation_members SET last_read_message_id = ? WHERE conversation_id = ? AND user_id = ?",
    );
    this.latestMessageStmt = db.prepare<{ id: string }, [string]>(
      "SELECT id FROM dm_messages WHERE conversation_id = ? ORDER BY id DESC LIMIT 1",
    );
    this.reactionExists = db.prepare<{ one: number }, [string, string, string]>(
      "SELECT 1 AS one FROM dm_reactions WHERE message_id = ? AND emoji = ? AND user_id = ?",
    );
    this.insertReaction = db.prepare("INSERT INTO dm_reactions (message_id, emoji, user_id, created_at) VALUES (?, ?, ?, ?)");
    this.deleteReaction = db.prepare("DELETE FROM dm_reactions WHERE message_id = ? AND emoji = ? AND user_id = ?");
    // The primary key (message_id, emoji, user_id) serves both.
    this.reactionTypeExists = db.prepare<{ one: number }, [string, string]>(
      "SELECT 1 AS one FROM dm_reactions WHERE message_id = ? AND emoji = ? LIMIT 1",
    );
    this.reactionTypeCount = db.prepare<{ n: number }, [string]>("SELECT count(DISTINCT emoji) AS n FROM dm_reactions WHERE message_id = ?");
    // conversation_members_user serves it.
    this.groupCountOfUser = db.prepare<{ n: number }, [string]>(
      `SELECT count(*) AS n FROM conversation_members cm JOIN conversations c ON c.id = cm.conversation_id
       WHERE cm.user_id = ? AND c.type = 'group'`,
    );
    this.sharedServerStmt = db.prepare<{ one: number }, [string, string]>(
      `SELECT 1 AS one FROM server_members a JOIN server_members b ON b.server_id = a.server_id AND b.user_id = ?
       WHERE a.user_id = ? LIMIT 1`,
    );
    // conversation_members_user finds the user's DMs, the primary key their other members;
    // server_members_user and the primary key probe a shared server (presenceShownTo's rule).
    this.presencePartnersStmt = db.prepare<{ user_id: string }, [{ me: string }]>(
      `SELECT DISTINCT theirs.user_id FROM conversation_members mine
       JOIN conversation_members theirs ON theirs.conversation_id = mine.conversation_id AND theirs.user_id <> mine.user_id
       WHERE mine.user_id = $me
         AND (EXISTS (SELECT 1 FROM users u WHERE u.id = $me AND u.is_bot = 1)
              OR EXISTS (SELECT 1 FROM server_members a
                         JOIN server_members b ON b.server_id = a.server_id AND b.user_id = theirs.user_id
                         WHERE a.user_id = $me))`,
    );
    this.friendsStmt = db.prepare<{ one: number }, [string, string]>(
      "SELECT 1 AS one FROM friendships WHERE user_low = ? AND user_high = ? AND status = 'accepted'",
    );
    this.touchUpdated = db.prepare("UPDATE conversations SET updated_at = ? WHERE id = ?");
    this.pinExists = db.prepare<{ one: number }, [string]>("SELECT 1 AS one FROM dm_pins WHERE message_id = ?");
    this.mutersStmt = db.prepare<{ user_id: string }, [string, string]>(
      `SELECT cm.user_id FROM conversation_members cm
       JOIN muted_users mu ON mu.user_id = cm.user_id AND mu.target_id = ?
       WHERE cm.conversation_id = ?`,
    );
  }

  async findById(id: string): Promise<DmRow | null> {
    return this.db.get(this.byId, id);
  }

  async findDm(a: string, b: string): Promise<DmRow | null> {
    return this.db.get(this.byKey, dmKey(a, b));
  }

  /** The 1:1 DM of a pair, created when missing. */
  async openDm(a: string, b: string): Promise<{ row: DmRow; created: boolean }> {
    return this.db.transaction(async (tx) => {
      const key = dmKey(a, b);
      await tx.lock(`dm:${key}`);
      const existing = await tx.get(this.byKey, key);
      if (existing) return { row: existing, created: false };
      const now = nowSeconds();
      const row = (await tx.get(this.insertDm, Bun.randomUUIDv7(), "dm", null, null, key, now, now))!;
      await tx.run(this.insertMember, row.id, a, now);
      await tx.run(this.insertMember, row.id, b, now);
      return { row, created: true };
    });
  }

  /**
   * A group with its owner and members, in one transaction; `{ full }` names the first of them
   * (the owner first) already in `maxGroupsPerUser` groups, and nothing is written.
   */
  async createGroup(ownerId: string, name: string | null, memberIds: string[], maxGroupsPerUser: number): Promise<DmRow | { full: string }> {
    return this.db.transaction(async (tx): Promise<DmRow | { full: string }> => {
      // Each user's group count has its lock, taken in one order so two creations never deadlock.
      for (const id of [ownerId, ...memberIds].sort()) await tx.lock(`group-dms:${id}`);
      for (const id of [ownerId, ...memberIds]) {
        if (await this.inTooManyGroups(tx, id, maxGroupsPerUser)) return { full: id };
      }
      const now = nowSeconds();
      const row = (await tx.get(this.insertDm, Bun.randomUUIDv7(), "group", name, ownerId, null, now, now))!;
      await tx.run(this.insertMember, row.id, ownerId, now);
      for (const id of memberIds) await tx.run(this.insertMember, row.id, id, now);
      return row;
    });
  }

  async isMember(dmId: string, userId: string): Promise<boolean> {
    return (await this.db.get(this.memberStmt, dmId, userId)) !== null;
  }

  async memberIds(dmId: string): Promise<string[]> {
    return (await this.db.all(this.membersStmt, dmId)).map((r) => r.user_id);
  }

  async listForUser(userId: string, type: "dm" | "group" | null): Promise<DmRow[]> {
    return this.db.all(this.forUser, userId, type);
  }

  /** Members of each of the DMs, longest-standing first. */
  async recipients(dmIds: string[]): Promise<RecipientRow[]> {
    if (dmIds.length === 0) return [];
    return this.db.all(this.recipientsStmt, JSON.stringify(dmIds));
  }

  private async inTooManyGroups(tx: Transaction, userId: string, maxGroupsPerUser: number): Promise<boolean> {
    return ((await tx.get(this.groupCountOfUser, userId))?.n ?? 0) >= maxGroupsPerUser;
  }

  /**
   * Adds a member unless the group already holds `maxMembers` (owner included: "full") or the
   * user is already in `maxGroupsPerUser` groups ("user_full").
   */
  async addMember(dmId: string, userId: string, maxMembers: number, maxGroupsPerUser: number): Promise<"added" | "exists" | "full" | "user_full"> {
    return this.db.transaction(async (tx) => {
      await tx.lock(`conversation:${dmId}`);
      if (await tx.get(this.memberStmt, dmId, userId)) return "exists" as const;
      if (((await tx.get(this.memberCount, dmId))?.n ?? 0) >= maxMembers) return "full" as const;
      await tx.lock(`group-dms:${userId}`);
      if (await this.inTooManyGroups(tx, userId, maxGroupsPerUser)) return "user_full" as const;
      await tx.run(this.insertMember, dmId, userId, nowSeconds());
      await tx.run(this.touchUpdated, nowSeconds(), dmId);
      return "added" as const;
    });
  }

  /**
   * Takes a member out of a group. When the owner goes, the longest-standing member becomes
   * owner; when nobody is left, the group is deleted and the files to remove are returned.
   */
  async removeMember(
    dmId: string,
    userId: string,
  ): Promise<{ removed: boolean; deleted: boolean; ownerId: string | null; files: string[] }> {
    return this.db.transaction(async (tx) => {
      await tx.lock(`conversation:${dmId}`);
      const row = await tx.get(this.byId, dmId);
      if (!row || !await tx.get(this.memberStmt, dmId, userId)) return { removed: false, deleted: false, ownerId: row?.owner_id ?? null, files: [] };
      await tx.run(this.deleteMemberStmt, dmId, userId);
      const remaining = await tx.all(this.membersStmt, dmId);
      if (remaining.length === 0) {
        const files = (await tx.all(this.dmFiles, dmId)).map((f) => f.filename);
        if (row.icon) files.push(row.icon);
        await tx.run(this.deleteDmStmt, dmId);
        return { removed: true, deleted: true, ownerId: null, files };
      }
      let ownerId = row.owner_id;
      if (ownerId === userId) {
        ownerId = remaining[0]!.user_id;
        await tx.run(this.setOwnerStmt, ownerId, nowSeconds(), dmId);
      }
      return { removed: true, deleted: false, ownerId, files: [] };
    });
  }

  async setOwner(dmId: string, ownerId: string): Promise<void> {
    await this.db.run(this.setOwnerStmt, ownerId, nowSeconds(), dmId);
  }

  async setName(dmId: string, name: string | null): Promise<void> {
    await this.db.get(this.setNameStmt, name, nowSeconds(), dmId);
  }

  /** Sets the icon path and returns the previous one. */
  async replaceIcon(dmId: string, icon: string | null): Promise<string | null> {
    return this.db.transaction(async (tx) => {
      await tx.lock(`conversation:${dmId}`);
      const previous = (await tx.get(this.byId, dmId))?.icon ?? null;
      await tx.run(this.setIconStmt, icon, nowSeconds(), dmId);
      return previous;
    });
  }

  /** Deletes the DM and everything in it; returns the files to remove from disk. */
  async deleteWithMessages(dmId: string): Promise<string[]> {
    return this.db.transaction(async (tx) => {
      await tx.lock(`conversation:${dmId}`);
      const row = await tx.get(this.byId, dmId);
      if (!row) return [];
      const files = (await tx.all(this.dmFiles, dmId)).map((f) => f.filename);
      if (row.icon) files.push(row.icon);
      await tx.run(this.deleteDmStmt, dmId);
      return files;
    });
  }

  /** The message, its attachments and the DM's activity time, in one transaction. */
  async createMessage(input: {
    dmId: string;
    userId: string;
    content: string;
    /** JSON array of normalized embeds; absent: none. */
    embeds?: string;
    replyTo: string | null;
    attachments: NewDmAttachment[];
    /** An idempotent send's key: as for channel messages (NewMessage.nonce, messages-repo.ts). */
    nonce?: NonceKey;
  }): Promise<DmMessageRow & { replayed?: true }> {
    this.searchBacklog.added();
    // Committed with the other sends of the same event-loop turn, answered after the COMMIT.
    return this.writes.run(async (tx) => {
      if (input.nonce) {
        const firstId = await this.nonces.find(tx, input.nonce);
        const first = firstId === null ? null : await tx.get(this.messageStmt, input.dmId, firstId);
        if (first) return { ...first, replayed: true as const };
      }
      const id = Bun.randomUUIDv7();
      const now = nowSeconds();
      await tx.run(this.insertMessage, id, input.dmId, input.userId, input.content, input.embeds ?? "[]", input.replyTo, now);
      for (const a of input.attachments) {
        await tx.run(this.insertAttachment, Bun.randomUUIDv7(), id, a.filename, a.original_name, a.mime_type, a.size, a.width, a.height, now);
      }
      await tx.run(this.touchDm, now, input.dmId);
      // The sender has read their own message (docs/read-states.md).
      await tx.run(this.setReadStmt, id, input.dmId, input.userId);
      if (input.nonce) await this.nonces.record(tx, input.nonce, id);
      return (await tx.get(this.messageStmt, input.dmId, id))!;
    });
  }

  async findMessage(dmId: string, messageId: string): Promise<DmMessageRow | null> {
    return this.db.get(this.messageStmt, dmId, messageId.toLowerCase());
  }

  /** Up to `limit` messages older than `before` (or the newest), newest first like channel pages. */
  async pageBefore(dmId: string, before: string | null, limit: number): Promise<DmMessageRow[]> {
    return this.db.all(this.olderStmt, dmId, before?.toLowerCase() ?? AFTER_ALL_IDS, limit);
  }

  /** The `limit` messages right after `after` (exclusive), newest first like every page. */
  async pageAfter(dmId: string, after: string, limit: number): Promise<DmMessageRow[]> {
    return (await this.db.all(this.newerStmt, dmId, after.toLowerCase(), limit)).reverse();
  }

  /** Up to `limit` messages centred on `around` (the message itself included when it exists), newest first. */
  async pageAround(dmId: string, around: string, limit: number): Promise<DmMessageRow[]> {
    const id = around.toLowerCase();
    const older = await this.db.all(this.olderStmt, dmId, id, limit);
    const newer = await this.db.all(this.newerOrSameStmt, dmId, id, limit);
    const half = Math.floor(limit / 2);
    const takeNewer = Math.min(newer.length, limit - Math.min(older.length, half));
    const takeOlder = Math.min(older.length, limit - takeNewer);
    return [...newer.slice(0, takeNewer).reverse(), ...older.slice(0, takeOlder)];
  }

  async attachmentsOf(messageIds: string[]): Promise<DmAttachmentRow[]> {
    if (messageIds.length === 0) return [];
    return this.db.all(this.attachmentsStmt, JSON.stringify(messageIds));
  }

  async updateMessage(dmId: string, messageId: string, content: string): Promise<DmMessageRow | null> {
    await this.db.run(this.updateMessageStmt, content, nowSeconds(), messageId);
    return this.db.get(this.messageStmt, dmId, messageId);
  }

  /** Deletes the message and returns its attachment files, to remove from disk. */
  async deleteMessage(messageId: string): Promise<string[]> {
    return this.db.transaction(async (tx) => {
      const files = (await tx.all(this.attachmentsStmt, JSON.stringify([messageId]))).map((a) => a.filename);
      await tx.run(this.deleteMessageStmt, messageId);
      return files;
    });
  }

  /** `match` must already be a safe FTS5 expression (see Dms.search). */
  async search(dmId: string, words: string[], limit: number): Promise<DmMessageRow[]> {
    await this.searchBacklog.caughtUp();
    return this.db.all(this.searchStmt, this.db.dialect.search.param(words), dmId, limit);
  }

  async pins(dmId: string): Promise<DmMessageRow[]> {
    return this.db.all(this.pinsStmt, dmId);
  }

  /** Pins unless already pinned ("exists") or the DM holds `max` pins ("full"). */
  async pin(dmId: string, messageId: string, userId: string, max: number): Promise<"pinned" | "exists" | "full"> {
    return this.db.transaction(async (tx) => {
      await tx.lock(`dm-pins:${dmId}`);
      if (((await tx.get(this.pinCount, dmId))?.n ?? 0) >= max) {
        return (await tx.get(this.pinExists, messageId)) ? ("exists" as const) : ("full" as const);
      }
      return (await tx.run(this.insertPin, messageId, dmId, userId, nowSeconds())) > 0 ? ("pinned" as const) : ("exists" as const);
    });
  }

  async unpin(messageId: string): Promise<boolean> {
    return (await this.db.run(this.deletePin, messageId)) > 0;
  }

  async latestMessageId(dmId: string): Promise<string | null> {
    return (await this.db.get(this.latestMessageStmt, dmId))?.id ?? null;
  }

  async setRead(dmId: string, userId: string, messageId: string | null): Promise<void> {
    await this.db.run(this.setReadStmt, messageId, dmId, userId);
  }

  async readState(dmId: string, userId: string): Promise<string | null> {
    return (await this.db.get(this.memberStmt, dmId, userId))?.last_read_message_id ?? null;
  }

  /**
   * Adds the reaction, or removes it when the user already reacted with that emoji; "full" when
   * the emoji is new on a message that already carries `maxTypes` distinct ones.
   */
  async toggleReaction(messageId: string, emoji: string, userId: string, maxTypes: number): Promise<"added" | "removed" | "full"> {
    return this.db.transaction(async (tx) => {
      await tx.lock(`dm-reactions:${messageId}`);
      if (await tx.get(this.reactionExists, messageId, emoji, userId)) {
        await tx.run(this.deleteReaction, messageId, emoji, userId);
        return "removed" as const;
      }
      if (!(await tx.get(this.reactionTypeExists, messageId, emoji)) && ((await tx.get(this.reactionTypeCount, messageId))?.n ?? 0) >= maxTypes) {
        return "full" as const;
      }
      await tx.run(this.insertReaction, messageId, emoji, userId, nowSeconds());
      return "added" as const;
    });
  }

  async shareServer(a: string, b: string): Promise<boolean> {
    return (await this.db.get(this.sharedServerStmt, a, b)) !== null;
  }

  /**
   * The user's DM and group DM partners who may see their presence (presenceShownTo's rule
   * without friendships, which the caller adds itself): everyone when the user is a bot,
   * otherwise those who share a server with them.
   */
  async presencePartnerIds(userId: string): Promise<string[]> {
    return (await this.db.all(this.presencePartnersStmt, { me: userId })).map((r) => r.user_id);
  }

  async areFriends(a: string, b: string): Promise<boolean> {
    return (a < b ? await this.db.get(this.friendsStmt, a, b) : await this.db.get(this.friendsStmt, b, a)) !== null;
  }

  /** Members of the DM who muted `senderId`. */
  async mutersOf(dmId: string, senderId: string): Promise<string[]> {
    return (await this.db.all(this.mutersStmt, senderId, dmId)).map((r) => r.user_id);
  }
}
