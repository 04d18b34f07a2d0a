import type { Database, Transaction } from "./database.ts";
import type { MentionRow } from "./read-states-repo.ts";
import { MessageNonces, type NonceKey } from "./message-nonces.ts";
import { MessageSearch } from "./message-search.ts";
import { SearchBacklog } from "./search-backlog.ts";
import { nowSeconds } from "./time.ts";
import { WriteBatch } from "./write-batch.ts";

/** A channel message with its author's fields, as the wire shape needs them. */
export interface MessageRow {
  id: string;
  channel_id: string;
  server_id: string;
  user_id: string;
  content: string;
  embeds: string;
  reply_to: string | null;
  webhook_id: string | null;
  webhook_username: string | null;
  webhook_avatar: string | null;
  created_at: number;
  updated_at: number | null;
  /** 1 when the message was stored with attachments (set by its insert; sqlite/migrations.ts, version 15). */
  has_attachments: 0 | 1;
  username: string;
  avatar: string | null;
  is_bot: 0 | 1;
}

export interface AttachmentRow {
  id: string;
  message_id: string;
  filename: string;
  original_name: string;
  mime_type: string;
  size: number;
  /** An image's pixel size (migration 20); null for other files and for rows stored before it. */
  width: number | null;
  height: number | null;
  created_at: number;
}

export interface NewMessage {
  channelId: string;
  serverId: string;
  userId: string;
  content: string;
  embeds: string;
  replyTo: string | null;
  webhook?: { id: string; username: string; avatar: string | null } | null;
  attachments?: Omit<AttachmentRow, "id" | "message_id" | "created_at">[];
  /**
   * Slowmode in seconds: the insert is refused with `SlowmodeActive` when the author (not as a
   * webhook) posted in the channel less than this long ago. Checked in the insert's own
   * transaction, so two sends at once cannot both pass.
   */
  slowmode?: number;
  /** Its mention rows (docs/read-states.md), written in the insert's transaction. */
  mentions?: MentionRow[];
  /**
   * An idempotent send's key (docs/messages.md, "Idempotent sends"): when it already made a
   * message that still exists, that message is answered (`replayed`) and nothing is stored.
   */
  nonce?: NonceKey;
}

/** An insert's answer: the stored row, or with `replayed` the one an earlier send of the same nonce stored. */
export type InsertedMessage = MessageRow & { replayed?: true };

/** The insert was refused by slowmode: the author may post again in `wait` seconds. */
export class SlowmodeActive extends Error {
  constructor(readonly wait: number) {
    super(`Slowmode is on: wait ${wait} seconds`);
  }
}

const SELECT = `SELECT m.*, u.username, u.avatar, u.is_bot FROM messages m JOIN users u ON u.id = m.user_id`;
/**
 * The author's columns of message `m` (a table name or alias), as scalar subqueries: a JOIN's
 * fixed cost per execution on Bun's SQLite (docs/architecture.md, "The store") is
 * most of a one-row read, and one runs for every send (the insert's RETURNING). A message
 * never outlives its author (ON DELETE CASCADE), so the author's columns are always there, as
 * with the JOIN.
 */
const authorColumns = (m: string) => `(SELECT u.username FROM users u WHERE u.id = ${m}.user_id) AS username,
  (SELECT u.avatar FROM users u WHERE u.id = ${m}.user_id) AS avatar,
  (SELECT u.is_bot FROM users u WHERE u.id = ${m}.user_id) AS is_bot`;
const SELECT_ONE = `SELECT m.*, ${authorColumns("m")} FROM messages m`;

/** What a message's wire shape needs of its row (a page reads no more): every column but `server_id`. */
export type MessageView = Omit<MessageRow, "server_id">;
/**
 * A page's columns, `m` being the message (`server_id` left out: the wire shape has no use for it).
 * The REST benches' bare page read reads the same (BARE_PAGE_SQL, bench/fixture.ts).
 */
export const PAGE_COLUMNS =
  "m.id, m.channel_id, m.user_id, m.content, m.embeds, m.reply_to, m.webhook_id, m.webhook_username, m.webhook_avatar, m.created_at, m.updated_at, m.has_attachments";
/** A page row before its author's columns are added. */
type OwnColumns = Omit<MessageView, "username" | "avatar" | "is_bot">;
type Author = Pick<MessageRow, "username" | "avatar" | "is_bot"> & { id: string };

/** Channel messages and their attachments. Pages are keyset (`id < ?`), newest first. */
export class MessagesRepo {
  private readonly insertStmt;
  private readonly insertAttachment;
  private readonly byId;
  /**
   * On SQLite a page is read without the users JOIN and its authors (one or a few) by id
   * after it, which SQLite runs faster than the JOIN. On PostgreSQL the
   * JOIN stays (a second statement would be a second round trip).
   */
  private readonly authorsApart: boolean;
  private readonly authorsStmt;
  private readonly pageStmt;
  private readonly latestStmt;
  private readonly afterStmt;
  private readonly newerOrSameStmt;
  private readonly bulkFind;
  private readonly attachmentsOf;
  private readonly attachmentById;
  private readonly lastByAuthor;
  private readonly updateStmt;
  private readonly deleteStmt;
  private readonly filesOfMessage;
  /** The channel searches (its `answers` count how each was answered). */
  readonly searcher: MessageSearch<MessageRow>;
  private readonly upsertRead;
  private readonly insertMention;
  private readonly nonces;
  /** Messages waiting for the search index (SQLite; none on PostgreSQL). */
  readonly searchBacklog: SearchBacklog;

  constructor(
    private readonly db: Database,
    /** Group commit for sends (src/store/write-batch.ts); one per database, shared. */
    private readonly writes: WriteBatch = new WriteBatch(db),
  ) {
    const { json, inJsonArray } = db.dialect;
    this.insertStmt = db.prepare<MessageRow>(
      `INSERT INTO messages (id, channel_id, server_id, user_id, content, embeds, reply_to, webhook_id, webhook_username, webhook_avatar, created_at, has_attachments)
       VALUES ($id, $channel_id, $server_id, $user_id, $content, ${json("$embeds")}, $reply_to, $webhook_id, $webhook_username, $webhook_avatar, $now, $has_attachments)
       RETURNING *, ${authorColumns("messages")}`,
    );
    this.insertAttachment = db.prepare(
      `INSERT INTO attachments (id, message_id, filename, original_name, mime_type, size, width, height, created_at)
       VALUES ($id, $message_id, $filename, $original_name, $mime_type, $size, $width, $height, $now)`,
    );
    this.byId = db.prepare<MessageRow, [string]>(`${SELECT_ONE} WHERE m.id = ?`);
    this.authorsApart = db.dialect.name === "sqlite";
    const PAGE = this.authorsApart
      ? `SELECT ${PAGE_COLUMNS} FROM messages m`
      : `SELECT ${PAGE_COLUMNS}, u.username, u.avatar, u.is_bot FROM messages m JOIN users u ON u.id = m.user_id`;
    this.authorsStmt = db.prepare<Author, [string]>(`SELECT id, username, avatar, is_bot FROM users WHERE id ${inJsonArray("?")}`);
    this.pageStmt = db.prepare<OwnColumns, [string, string, number]>(
      `${PAGE} WHERE m.channel_id = ? AND m.id < ? ORDER BY m.id DESC LIMIT ?`,
    );
    this.latestStmt = db.prepare<OwnColumns, [string, number]>(`${PAGE} WHERE m.channel_id = ? ORDER BY m.id DESC LIMIT ?`);
    this.afterStmt = db.prepare<OwnColumns, [string, string, string, number]>(
      `${PAGE} WHERE m.channel_id = ? AND m.id > ? AND m.id < ? ORDER BY m.id ASC LIMIT ?`,
    );
    this.newerOrSameStmt = db.prepare<OwnColumns, [string, string, number]>(
      `${PAGE} WHERE m.channel_id = ? AND m.id >= ? ORDER BY m.id ASC LIMIT ?`,
    );
    this.bulkFind = db.prepare<MessageRow, [string, string]>(
      `${SELECT} WHERE m.channel_id = ? AND m.id ${inJsonArray("?")}`,
    );
    this.attachmentsOf = db.prepare<AttachmentRow, [string]>(
      `SELECT * FROM attachments WHERE message_id ${inJsonArray("?")} ORDER BY id`,
    );
    this.attachmentById = db.prepare<AttachmentRow & { channel_id: string }, [string]>(
      "SELECT a.*, m.channel_id FROM attachments a JOIN messages m ON m.id = a.message_id WHERE a.id = ?",
    );
    this.lastByAuthor = db.prepare<{ created_at: number }, [string, string]>(
      "SELECT created_at FROM messages WHERE channel_id = ? AND user_id = ? AND webhook_id IS NULL ORDER BY id DESC LIMIT 1",
    );
    this.updateStmt = db.prepare(`UPDATE messages SET content = ?, embeds = ${json("?")}, updated_at = ? WHERE id = ?`);
    this.deleteStmt = db.prepare("DELETE FROM messages WHERE id = ?");
    this.filesOfMessage = db.prepare<{ filename: string }, [string]>("SELECT filename FROM attachments WHERE message_id = ?");
    this.searcher = new MessageSearch(db);
    this.upsertRead = db.prepare(
      `INSERT INTO channel_read_states (user_id, channel_id, last_read_message_id, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (user_id, channel_id) DO UPDATE SET last_read_message_id = excluded.last_read_message_id, updated_at = excluded.updated_at`,
    );
    this.insertMention = db.prepare(
      "INSERT INTO channel_mentions (kind, target_id, message_id, channel_id, author_id) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
    );
    this.searchBacklog = new SearchBacklog(db, writes, db.dialect.search.indexPendingMessages);
    this.nonces = new MessageNonces(db);
  }

  /**
   * The message and its attachments (and, by triggers, its search backlog entry and the counters),
   * committed with the other sends that arrive in the same event-loop turn: the answer comes
   * only once that transaction has committed (see WriteBatch). A refused or failing insert
   * (slowmode, a constraint) fails alone.
   */
  async insert(message: NewMessage): Promise<InsertedMessage> {
    this.searchBacklog.added();
    return this.writes.run((tx) => this.insertNow(tx, message));
  }

  /** Runs inside the batch's transaction, in the item's own savepoint. */
  private async insertNow(tx: Transaction, message: NewMessage): Promise<InsertedMessage> {
    if (message.nonce) {
      const firstId = await this.nonces.find(tx, message.nonce);
      // A first message deleted since: this send stores a new one, which takes the key over.
      const first = firstId === null ? null : await tx.get(this.byId, firstId);
      if (first) return { ...first, replayed: true };
    }
    const now = nowSeconds();
    if (message.slowmode !== undefined && message.slowmode > 0 && !message.webhook) {
      // One batch at a time per process; the lock covers other processes on one PostgreSQL.
      await tx.lock(`slowmode:${message.channelId}:${message.userId}`);
      const last = (await tx.get(this.lastByAuthor, message.channelId, message.userId))?.created_at;
      const wait = last === undefined ? 0 : last + message.slowmode - now;
      if (wait > 0) throw new SlowmodeActive(wait);
    }
    const id = Bun.randomUUIDv7();
    // The stored row with its author's columns, from the INSERT itself (no read-back).
    const row = await tx.get(this.insertStmt, {
      id,
      channel_id: message.channelId,
      server_id: message.serverId,
      user_id: message.userId,
      content: message.content,
      embeds: message.embeds,
      reply_to: message.replyTo,
      webhook_id: message.webhook?.id ?? null,
      webhook_username: message.webhook?.username ?? null,
      webhook_avatar: message.webhook?.avatar ?? null,
      now,
      has_attachments: message.attachments?.length ? 1 : 0,
    });
    for (const a of message.attachments ?? []) {
      await tx.run(this.insertAttachment, { id: Bun.randomUUIDv7(), message_id: id, ...a, now });
    }
    const mentionAuthor = message.webhook ? "" : message.userId;
    for (const m of message.mentions ?? []) await tx.run(this.insertMention, m.kind, m.targetId, id, message.channelId, mentionAuthor);
    // The author has read their own message (docs/read-states.md); a webhook has no read state.
    if (!message.webhook) await tx.run(this.upsertRead, message.userId, message.channelId, id, now);
    if (message.nonce) await this.nonces.record(tx, message.nonce, id);
    return row!;
  }

  async findById(id: string): Promise<MessageRow | null> {
    return this.db.get(this.byId, id);
  }

  /** Newest first; `before` is a message id (exclusive). */
  async page(channelId: string, before: string | null, limit: number): Promise<MessageView[]> {
    const rows = before ? await this.db.all(this.pageStmt, channelId, before, limit) : await this.db.all(this.latestStmt, channelId, limit);
    return this.withAuthors(rows);
  }

  /**
   * A page's rows with their authors' columns (`authorsApart`; on PostgreSQL they came with
   * the JOIN). A message whose author is gone by now was deleted with them (ON DELETE CASCADE)
   * and is left out, as the JOIN would have.
   */
  private async withAuthors(rows: OwnColumns[]): Promise<MessageView[]> {
    if (!this.authorsApart || rows.length === 0) return rows as MessageView[];
    const ids = new Set<string>();
    for (const row of rows) ids.add(row.user_id);
    const authors = new Map<string, Author>();
    for (const author of await this.db.all(this.authorsStmt, JSON.stringify([...ids]))) authors.set(author.id, author);
    const page: MessageView[] = [];
    for (const row of rows) {
      const author = authors.get(row.user_id);
      if (!author) continue;
      const full = row as MessageView;
      full.username = author.username;
      full.avatar = author.avatar;
      full.is_bot = author.is_bot;
      page.push(full);
    }
    return page;
  }

  /**
   * The `limit` messages right after `after` (exclusive), below `before` when given (exclusive),
   * newest first like every page.
   */
  async pageAfter(channelId: string, after: string, before: string | null, limit: number): Promise<MessageView[]> {
    // Every id is below "g" (UUIDs are lower-case hex), so it stands for "no upper bound".
    return (await this.withAuthors(await this.db.all(this.afterStmt, channelId, after, before ?? "g", limit))).reverse();
  }

  /**
   * Up to `limit` messages centred on `around` (the message itself included when it is one of
   * the channel's; an unknown id is a position like any other), newest first: half below it,
   * the rest from it up, and a short side filled from the other. Two keyset reads on
   * (channel_id, id).
   */
  async pageAround(channelId: string, around: string, limit: number): Promise<MessageView[]> {
    const older = await this.db.all(this.pageStmt, channelId, around, limit);
    const newer = await this.db.all(this.newerOrSameStmt, channelId, around, limit);
    const half = Math.floor(limit / 2);
    const takeNewer = Math.min(newer.length, limit - Math.min(older.length, half));
    const takeOlder = Math.min(older.length, limit - takeNewer);
    return this.withAuthors([...newer.slice(0, takeNewer).reverse(), ...older.slice(0, takeOlder)]);
  }

  /**
   * Deletes those of `ids` that are messages of `channelId`, in one transaction; answers the
   * deleted rows with the stored names of their attachment files.
   */
  async deleteInChannel(channelId: string, ids: string[]): Promise<{ row: MessageRow; files: string[] }[]> {
    return this.db.transaction(async (tx) => {
      const deleted: { row: MessageRow; files: string[] }[] = [];
      for (const row of await tx.all(this.bulkFind, channelId, JSON.stringify(ids))) {
        const files = (await tx.all(this.filesOfMessage, row.id)).map((f) => f.filename);
        if ((await tx.run(this.deleteStmt, row.id)) > 0) deleted.push({ row, files });
      }
      return deleted;
    });
  }

  async attachments(messageIds: string[]): Promise<AttachmentRow[]> {
    return messageIds.length ? await this.db.all(this.attachmentsOf, JSON.stringify(messageIds)) : [];
  }

  async attachment(id: string): Promise<(AttachmentRow & { channel_id: string }) | null> {
    return this.db.get(this.attachmentById, id);
  }

  async update(id: string, content: string, embeds: string): Promise<MessageRow | null> {
    await this.db.run(this.updateStmt, content, embeds, nowSeconds(), id);
    return this.db.get(this.byId, id);
  }

  /** Deletes the message and answers the stored names of its attachment files. */
  async delete(id: string): Promise<string[] | null> {
    return this.db.transaction(async (tx) => {
      const files = (await tx.all(this.filesOfMessage, id)).map((f) => f.filename);
      return (await tx.run(this.deleteStmt, id)) > 0 ? files : null;
    });
  }


  /** Full-text matches of every one of `words` in one channel, newest first (docs/messages.md, search). */
  async search(channelId: string, words: string[], limit: number): Promise<MessageRow[]> {
    await this.searchBacklog.caughtUp();
    return this.searcher.run("channel", channelId, words, limit);
  }

  /** The same over several channels in one statement (a server's search), newest first; none: nothing. */
  async searchChannels(channelIds: string[], words: string[], limit: number): Promise<MessageRow[]> {
    if (!channelIds.length) return [];
    await this.searchBacklog.caughtUp();
    return this.searcher.run("channels", this.db.dialect.search.channelIds(channelIds), words, limit);
  }

  /**
   * The same over every channel of a server but `closed` and the channels being deleted, in one
   * statement scoped by the server (its messages by id): what it reads does not follow the
   * number of channels.
   */
  async searchServer(serverId: string, closed: string[], words: string[], limit: number): Promise<MessageRow[]> {
    await this.searchBacklog.caughtUp();
    return this.searcher.run("server", this.db.dialect.search.serverScope(serverId, closed), words, limit);
  }
}
