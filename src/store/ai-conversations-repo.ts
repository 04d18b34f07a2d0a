import type { Database, Transaction } from "./database.ts";
import { nowSeconds } from "./time.ts";

export interface AiConversationRow {
  id: string;
  user_id: string;
  title: string | null;
  model_id: string | null;
  activity_id: string;
  created_at: number;
  updated_at: number;
}

type AiRole = "user" | "assistant";
/** `complete`; or, for a reply, `cancelled` (the user stopped it) or `error` (the provider failed). */
export type AiMessageStatus = "complete" | "cancelled" | "error";

export interface AiMessageRow {
  id: string;
  conversation_id: string;
  role: AiRole;
  content: string;
  model_id: string | null;
  status: AiMessageStatus;
  /** JSON array of the attachment objects. */
  attachments: string;
  /** JSON array of `{url}`. */
  images: string;
  created_at: number;
}

interface NewAiMessage {
  role: AiRole;
  content: string;
  modelId: string | null;
  status: AiMessageStatus;
  attachments: string;
  images: string;
}

/** What an update sets; `null` clears a field, `undefined` leaves it. */
interface AiConversationChanges {
  title?: string | null;
  modelId?: string | null;
}

type StartTurnResult =
  | { ok: true; message: AiMessageRow; conversation: AiConversationRow }
  | { ok: false; reason: "missing" | "quota" };

/** AI conversations, their messages and the per-day usage that backs the quota (docs/ai.md). */
export class AiConversationsRepo {
  private readonly listStmt;
  private readonly findStmt;
  private readonly insertStmt;
  private readonly setStmt;
  private readonly touchStmt;
  private readonly deleteStmt;
  private readonly pageStmt;
  private readonly insertMessageStmt;
  private readonly usageStmt;
  private readonly consumeStmt;
  private readonly refundStmt;

  constructor(private readonly db: Database) {
    this.listStmt = db.prepare<AiConversationRow, [string]>(
      "SELECT * FROM ai_conversations WHERE user_id = ? ORDER BY activity_id DESC",
    );
    this.findStmt = db.prepare<AiConversationRow, [string, string]>("SELECT * FROM ai_conversations WHERE id = ? AND user_id = ?");
    this.insertStmt = db.prepare<AiConversationRow, [string, string, string | null, string | null, number, number]>(
      "INSERT INTO ai_conversations (id, user_id, title, model_id, activity_id, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?1, ?5, ?6) RETURNING *",
    );
    this.setStmt = db.prepare<AiConversationRow, [string | null, string | null, number, string]>(
      "UPDATE ai_conversations SET title = ?, model_id = ?, updated_at = ? WHERE id = ? RETURNING *",
    );
    this.touchStmt = db.prepare<AiConversationRow, [string | null, string, number, string]>(
      "UPDATE ai_conversations SET title = coalesce(title, ?), activity_id = ?, updated_at = ? WHERE id = ? RETURNING *",
    );
    this.deleteStmt = db.prepare<AiConversationRow, [string, string]>("DELETE FROM ai_conversations WHERE id = ? AND user_id = ? RETURNING *");
    this.pageStmt = db.prepare<AiMessageRow, [string, string, number]>(
      "SELECT * FROM ai_messages WHERE conversation_id = ? AND id < ? ORDER BY id DESC LIMIT ?",
    );
    this.insertMessageStmt = db.prepare<AiMessageRow, [string, string, string, string, string | null, string, string, string, number]>(
      `INSERT INTO ai_messages (id, conversation_id, role, content, model_id, status, attachments, images, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ${db.dialect.json("?")}, ${db.dialect.json("?")}, ?) RETURNING *`,
    );
    this.usageStmt = db.prepare<{ messages: number }, [string, string]>("SELECT messages FROM ai_usage WHERE user_id = ? AND day = ?");
    this.consumeStmt = db.prepare(
      `INSERT INTO ai_usage (user_id, day, messages) VALUES (?, ?, 1)
       ON CONFLICT (user_id, day) DO UPDATE SET messages = ai_usage.messages + 1`,
    );
    this.refundStmt = db.prepare("UPDATE ai_usage SET messages = CASE WHEN messages > 0 THEN messages - 1 ELSE 0 END WHERE user_id = ? AND day = ?");
  }

  async list(userId: string): Promise<AiConversationRow[]> {
    return this.db.all(this.listStmt, userId);
  }

  /** The user's conversation; another user's reads as missing. */
  async find(userId: string, id: string): Promise<AiConversationRow | null> {
    return this.db.get(this.findStmt, id, userId);
  }

  async create(userId: string, title: string | null, modelId: string | null): Promise<AiConversationRow> {
    const now = nowSeconds();
    return (await this.db.get(this.insertStmt, Bun.randomUUIDv7(), userId, title, modelId, now, now))!;
  }

  async update(userId: string, id: string, changes: AiConversationChanges): Promise<AiConversationRow | null> {
    return this.db.transaction(async (tx) => {
      await tx.lock(`ai-conversation:${id}`);
      const row = await tx.get(this.findStmt, id, userId);
      if (!row) return null;
      const title = changes.title === undefined ? row.title : changes.title;
      const modelId = changes.modelId === undefined ? row.model_id : changes.modelId;
      return tx.get(this.setStmt, title, modelId, nowSeconds(), id);
    });
  }

  async delete(userId: string, id: string): Promise<AiConversationRow | null> {
    return this.db.get(this.deleteStmt, id, userId);
  }

  /** Up to `limit` messages older than `before` (a message id), newest first. */
  async page(conversationId: string, before: string | null, limit: number): Promise<AiMessageRow[]> {
    return this.db.all(this.pageStmt, conversationId, before ?? "\uffff", limit);
  }

  /**
   * A user's turn, in one transaction: the daily quota is checked and counted (`dailyLimit` 0 is
   * no limit), the message stored, and the conversation touched (a conversation without a title
   * takes `autoTitle`).
   */
  async startTurn(
    userId: string,
    conversationId: string,
    day: string,
    dailyLimit: number,
    message: NewAiMessage,
    autoTitle: string | null,
  ): Promise<StartTurnResult> {
    return this.db.transaction(async (tx): Promise<StartTurnResult> => {
      await tx.lock(`ai-usage:${userId}`);
      if (!await tx.get(this.findStmt, conversationId, userId)) return { ok: false, reason: "missing" };
      const used = (await tx.get(this.usageStmt, userId, day))?.messages ?? 0;
      if (dailyLimit > 0 && used >= dailyLimit) return { ok: false, reason: "quota" };
      await tx.run(this.consumeStmt, userId, day);
      const stored = await this.insertMessage(tx, conversationId, message);
      const conversation = (await tx.get(this.touchStmt, autoTitle, stored.id, nowSeconds(), conversationId))!;
      return { ok: true, message: stored, conversation };
    });
  }

  /** Stores a reply and touches the conversation; null when the conversation is gone meanwhile. */
  async addReply(conversationId: string, message: NewAiMessage): Promise<AiMessageRow | null> {
    return this.db.transaction(async (tx) => {
      const id = Bun.randomUUIDv7();
      if (!await tx.get(this.touchStmt, null, id, nowSeconds(), conversationId)) return null;
      return this.insertMessage(tx, conversationId, message, id);
    });
  }

  /** Gives back one counted turn (the provider failed before answering anything). */
  async refund(userId: string, day: string): Promise<void> {
    await this.db.run(this.refundStmt, userId, day);
  }

  async usage(userId: string, day: string): Promise<number> {
    return (await this.db.get(this.usageStmt, userId, day))?.messages ?? 0;
  }

  private async insertMessage(tx: Transaction, conversationId: string, m: NewAiMessage, id = Bun.randomUUIDv7()): Promise<AiMessageRow> {
    const row = await tx.get(
      this.insertMessageStmt,
      id, conversationId, m.role, m.content, m.modelId, m.status, m.attachments, m.images, nowSeconds(),
    );
    return row!;
  }
}
