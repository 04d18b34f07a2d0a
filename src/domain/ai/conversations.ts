import * as v from "valibot";
import type { Store } from "../../store/store.ts";
import type { AiConversationRow, AiMessageRow } from "../../store/ai-conversations-repo.ts";
import type { UserRow } from "../../store/users-repo.ts";
import { badRequest, notFound } from "../shared/errors.ts";
import { isUuid } from "../shared/validation.ts";
import { UnixSeconds, Uuid } from "../shared/shapes.ts";
import { requireAccess } from "./access.ts";
import type { AiKeys } from "./keys.ts";
import type { AiSettings } from "./settings.ts";
import type { ReplyStreams } from "./reply-streams.ts";
import { AiUpload } from "./uploads.ts";
import type { ConversationInput } from "./schemas.ts";

export const AiConversation = v.object({
  id: Uuid,
  title: v.nullable(v.string()),
  model_id: v.nullable(v.string()),
  created_at: UnixSeconds,
  updated_at: UnixSeconds,
});
export type AiConversation = v.InferOutput<typeof AiConversation>;

export const AiMessage = v.object({
  id: Uuid,
  conversation_id: Uuid,
  role: v.picklist(["user", "assistant"]),
  content: v.string(),
  model_id: v.nullable(v.string()),
  status: v.picklist(["complete", "cancelled", "error"]),
  attachments: v.array(AiUpload),
  images: v.array(v.object({ url: v.string() })),
  created_at: UnixSeconds,
});
export type AiMessage = v.InferOutput<typeof AiMessage>;

export const toConversation = (row: AiConversationRow): AiConversation => ({
  id: row.id,
  title: row.title,
  model_id: row.model_id,
  created_at: row.created_at,
  updated_at: row.updated_at,
});

export const toMessage = (row: AiMessageRow): AiMessage => ({
  id: row.id,
  conversation_id: row.conversation_id,
  role: row.role,
  content: row.content,
  model_id: row.model_id,
  status: row.status,
  attachments: JSON.parse(row.attachments) as AiUpload[],
  images: JSON.parse(row.images) as { url: string }[],
  created_at: row.created_at,
});

/** A user's AI conversations and their history (docs/ai.md#conversations). */
export class AiConversations {
  constructor(
    private readonly store: Store,
    private readonly settings: AiSettings,
    private readonly keys: AiKeys,
    /** A reply still streaming in a conversation being deleted is ended first. */
    private readonly streams: ReplyStreams,
  ) {}

  async list(user: UserRow): Promise<AiConversation[]> {
    return (await this.store.aiConversations.list(user.id)).map(toConversation);
  }

  async create(user: UserRow, input: ConversationInput): Promise<AiConversation> {
    requireAccess(user, await this.settings.get());
    if (input.model_id) await this.requireModel(input.model_id);
    return toConversation(await this.store.aiConversations.create(user.id, input.title ?? null, input.model_id ?? null));
  }

  async update(user: UserRow, id: string, input: ConversationInput): Promise<AiConversation> {
    await this.find(user, id);
    if (input.model_id) await this.requireModel(input.model_id);
    const row = await this.store.aiConversations.update(user.id, id.toLowerCase(), { title: input.title, modelId: input.model_id });
    if (!row) throw notFound("Conversation");
    return toConversation(row);
  }

  async remove(user: UserRow, id: string): Promise<void> {
    const conversation = await this.find(user, id);
    await this.streams.endIn(conversation.id);
    if (!(await this.store.aiConversations.delete(user.id, conversation.id))) throw notFound("Conversation");
  }

  /** The `limit` messages before `before` (a message id; none: the latest), oldest first. */
  async history(user: UserRow, id: string, before: string | null, limit: number): Promise<AiMessage[]> {
    const conversation = await this.find(user, id);
    const rows = await this.store.aiConversations.page(conversation.id, before?.toLowerCase() ?? null, limit);
    return rows.reverse().map(toMessage);
  }

  /** The caller's conversation; a malformed id, or someone else's conversation, is 404. */
  async find(user: UserRow, id: string): Promise<AiConversationRow> {
    const row = isUuid(id) ? await this.store.aiConversations.find(user.id, id.toLowerCase()) : null;
    if (!row) throw notFound("Conversation");
    return row;
  }

  private async requireModel(modelId: string): Promise<void> {
    const routes = await this.keys.routes();
    if (!routes.some((route) => route.model.id === modelId)) throw badRequest("model_id: unknown or disabled model");
  }
}
