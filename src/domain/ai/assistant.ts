import * as v from "valibot";
import type { Logger } from "../../log.ts";
import type { Store } from "../../store/store.ts";
import type { AiMessageRow, AiMessageStatus } from "../../store/ai-conversations-repo.ts";
import type { AiUploadRow } from "../../store/ai-uploads-repo.ts";
import type { UserRow } from "../../store/users-repo.ts";
import { badRequest, conflict, notFound } from "../shared/errors.ts";
import { accessRefusal, requireAccess, unavailable } from "./access.ts";
import { toConversation, toMessage, type AiConversation, type AiConversations, type AiMessage } from "./conversations.ts";
import { EventQueue } from "./event-queue.ts";
import type { AiKeys, ModelRoute } from "./keys.ts";
import { ProviderError, streamChatCompletion, type ContentPart, type ProviderMessage } from "./provider.ts";
import { dailyLimitReached, utcDay } from "./quota.ts";
import type { AiSettings, AiSettingsValues } from "./settings.ts";
import type { ActiveStream, ReplyStreams } from "./reply-streams.ts";
import { toUploadView, type AiUploads } from "./uploads.ts";
import { AiModel, type TurnInput } from "./schemas.ts";

/** Earlier messages sent to the provider with a turn (the turn included). */
const MAX_CONTEXT_MESSAGES = 40;
/** A text file's characters inlined into a turn; the rest is cut. */
const MAX_INLINE_TEXT = 100_000;
/** A reply is stopped (and kept as complete) once it is this long. */
const MAX_REPLY_CHARS = 200_000;
const TITLE_LENGTH = 60;

/** `GET /ai/config`, exactly the spec's fields in the spec's order. */
export const AiConfig = v.object({
  enabled: v.boolean(),
  plus_only: v.boolean(),
  allowed: v.boolean(),
  has_plus: v.boolean(),
  default_model: v.nullable(v.string()),
  models: v.array(AiModel),
  welcome: v.string(),
  daily_msg_limit: v.number(),
  max_upload_mb: v.number(),
});
export type AiConfig = v.InferOutput<typeof AiConfig>;

/** One server-sent event of a turn. */
interface AiStreamEvent {
  event: "start" | "delta" | "image" | "done" | "error";
  data: Record<string, unknown>;
}

export interface AiTurn {
  streamId: string;
  events: AsyncIterable<AiStreamEvent>;
  /** The reader went away: stop the provider, keep what was written. */
  cancel(): void;
}

/** The fixed messages a failed turn ends with: never the provider's own words. */
function failureMessage(error: unknown): string {
  if (!(error instanceof ProviderError)) return "The AI reply failed. Please try again.";
  switch (error.kind) {
    case "timeout":
      return "The AI provider took too long to answer. Please try again.";
    case "unreachable":
      return "The AI provider cannot be reached right now. Please try again later.";
    case "malformed":
      return "The AI provider's reply broke off or could not be read. Please try again.";
    default:
      return error.status === 429
        ? "The AI provider is busy right now. Please try again in a moment."
        : "The AI provider could not answer right now. Please try again later.";
  }
}

/** A title from the first turn: its first line, cut to TITLE_LENGTH characters. */
function titleFrom(content: string, files: AiUploadRow[]): string | null {
  const line = content.split(/\r?\n/).map((l) => l.trim()).find((l) => l !== "") ?? files[0]?.name ?? "";
  const chars = [...line];
  if (chars.length === 0) return null;
  return chars.length > TITLE_LENGTH ? `${chars.slice(0, TITLE_LENGTH - 1).join("")}…` : line;
}

/**
 * The assistant's turns (docs/ai.md#sending-a-turn): the gates, the user's message and the
 * quota in one store transaction, then the provider's stream relayed as events, and the reply
 * (complete, cancelled or failed, with whatever was written) stored when it ends.
 */
export class Assistant {
  /** Conversations with a turn being started or a reply streaming: one at a time each. */
  private readonly busy = new Set<string>();

  constructor(
    private readonly store: Store,
    private readonly settings: AiSettings,
    private readonly keys: AiKeys,
    private readonly conversations: AiConversations,
    private readonly uploads: AiUploads,
    private readonly streams: ReplyStreams,
    private readonly providerTimeoutMs: number,
    private readonly log: Logger,
  ) {}

  async config(user: UserRow): Promise<AiConfig> {
    const s = await this.settings.get();
    const models = (await this.keys.routes()).map((route) => route.model);
    const defaultModel = models.find((m) => m.id === s.default_model) ?? models[0];
    return {
      enabled: s.enabled,
      plus_only: s.plus_only,
      allowed: accessRefusal(user, s) === null && models.length > 0,
      has_plus: user.premium === 1,
      default_model: defaultModel?.id ?? null,
      models,
      welcome: s.welcome,
      daily_msg_limit: s.daily_msg_limit,
      max_upload_mb: s.max_upload_mb,
    };
  }

  /** The upload cap in bytes, after the access gates (so a refused caller's body is never read). */
  async uploadLimit(user: UserRow): Promise<number> {
    const s = await this.settings.get();
    requireAccess(user, s);
    return s.max_upload_mb * 1024 * 1024;
  }

  async upload(user: UserRow, file: unknown, maxBytes: number) {
    return this.uploads.save(user.id, file, maxBytes);
  }

  /**
   * Starts a turn. Every refusal is an ApiError before anything streams; once this returns, the
   * user's message is stored and counted, and the events end with `done` or `error`.
   */
  async startTurn(user: UserRow, input: TurnInput): Promise<AiTurn & { conversation: AiConversation; userMessage: AiMessage }> {
    const s = await this.settings.get();
    requireAccess(user, s);
    const conversation = await this.conversations.find(user, input.conversation_id);
    // Checked and taken in one step (no await between), so two racing turns cannot both pass.
    if (this.busy.has(conversation.id)) throw conflict("A reply is still being written in this conversation: wait for it or cancel it");
    this.busy.add(conversation.id);
    try {
      return await this.begin(user, input, s, conversation.id, conversation.model_id);
    } catch (error) {
      this.busy.delete(conversation.id);
      throw error;
    }
  }

  private async begin(
    user: UserRow,
    input: TurnInput,
    s: AiSettingsValues,
    conversationId: string,
    conversationModel: string | null,
  ): Promise<AiTurn & { conversation: AiConversation; userMessage: AiMessage }> {
    const route = await this.pickModel(input.model_id, conversationModel, s.default_model);
    const content = input.content ?? "";
    const files = await this.uploads.resolve(user.id, (input.attachments ?? []).map((a) => a.url));
    if (content.trim() === "" && files.length === 0) throw badRequest("content: is required when there are no attachments");
    const parts = await this.filesAsParts(files);

    const day = utcDay();
    const started = await this.store.aiConversations.startTurn(
      user.id,
      conversationId,
      day,
      s.daily_msg_limit,
      {
        role: "user",
        content,
        modelId: route.model.id,
        status: "complete",
        attachments: JSON.stringify(files.map(toUploadView)),
        images: "[]",
      },
      titleFrom(content, files),
    );
    if (!started.ok) throw started.reason === "quota" ? dailyLimitReached(s.daily_msg_limit) : notFound("Conversation");

    const messages = await this.context(conversationId, started.message, parts);
    const streamId = Bun.randomUUIDv7();
    const controller = new AbortController();
    const queue = new EventQueue<AiStreamEvent>();
    let finish!: () => void;
    const stream: ActiveStream = {
      userId: user.id,
      conversationId,
      controller,
      finished: new Promise<void>((resolve) => (finish = resolve)),
    };
    this.streams.add(streamId, stream);
    const userMessage = toMessage(started.message);
    queue.push({
      event: "start",
      data: { stream_id: streamId, conversation_id: conversationId, model_id: route.model.id, user_message: userMessage },
    });
    void this.relay(streamId, stream, user.id, day, route, messages, queue)
      .catch(() => queue.push({ event: "error", data: { error: failureMessage(null), stream_id: streamId, message: null } }))
      .finally(() => {
        this.streams.remove(streamId);
        this.busy.delete(conversationId);
        queue.close();
        finish();
      });
    return {
      streamId,
      conversation: toConversation(started.conversation),
      userMessage,
      events: queue,
      cancel: () => controller.abort(),
    };
  }

  /** Stops the caller's stream; answers once the partial reply is stored. Someone else's stream is 404. */
  async cancel(user: UserRow, streamId: string): Promise<void> {
    const stream = this.streams.get(streamId.toLowerCase());
    if (!stream || stream.userId !== user.id) throw notFound("Stream");
    stream.controller.abort();
    await stream.finished;
  }

  /** Shutdown: every stream is stopped and its reply stored. */
  stop(): Promise<void> {
    return this.streams.stopAll();
  }

  /** The turn's model, else the conversation's, else the platform default, else the first model. */
  private async pickModel(requested: string | undefined, conversationModel: string | null, defaultModel: string | null): Promise<ModelRoute> {
    const routes = await this.keys.routes();
    if (routes.length === 0) throw unavailable();
    const byId = (id: string | null | undefined) => (id ? routes.find((r) => r.model.id === id) : undefined);
    if (requested !== undefined) {
      const route = byId(requested);
      if (!route) throw badRequest("model_id: unknown or disabled model");
      return route;
    }
    return byId(conversationModel) ?? byId(defaultModel) ?? routes[0]!;
  }

  /** This turn's files as content parts: images as data URLs, text inlined. */
  private async filesAsParts(files: AiUploadRow[]): Promise<ContentPart[]> {
    const parts: ContentPart[] = [];
    for (const file of files) {
      const bytes = await this.uploads.read(file);
      if (!bytes) throw badRequest(`The file ${file.name} is no longer available: upload it again`);
      if (file.mime_type.startsWith("image/")) {
        parts.push({ type: "image_url", image_url: { url: `data:${file.mime_type};base64,${Buffer.from(bytes).toString("base64")}` } });
      } else {
        const text = new TextDecoder().decode(bytes);
        const cut = text.length > MAX_INLINE_TEXT ? `${text.slice(0, MAX_INLINE_TEXT)}\n[… cut]` : text;
        parts.push({ type: "text", text: `--- ${file.name} ---\n${cut}` });
      }
    }
    return parts;
  }

  /** The conversation's recent messages for the provider; earlier turns' files appear by name only. */
  private async context(conversationId: string, turn: AiMessageRow, turnParts: ContentPart[]): Promise<ProviderMessage[]> {
    const rows = (await this.store.aiConversations.page(conversationId, null, MAX_CONTEXT_MESSAGES)).reverse();
    const messages: ProviderMessage[] = [];
    for (const row of rows) {
      if (row.role === "assistant") {
        if (row.content !== "") messages.push({ role: "assistant", content: row.content });
        continue;
      }
      if (row.id === turn.id) {
        const texts = [row.content, ...turnParts.flatMap((p) => (p.type === "text" ? [p.text] : []))].filter((t) => t !== "");
        const images = turnParts.filter((p) => p.type === "image_url");
        messages.push({
          role: "user",
          content: images.length === 0 ? texts.join("\n\n") : [{ type: "text", text: texts.join("\n\n") }, ...images],
        });
        continue;
      }
      const names = (JSON.parse(row.attachments) as { name: string }[]).map((f) => `[attached: ${f.name}]`);
      messages.push({ role: "user", content: [row.content, ...names].filter((t) => t !== "").join("\n") });
    }
    return messages;
  }

  /** Relays the provider's stream into the queue, then stores the reply and ends with `done` or `error`. */
  private async relay(
    streamId: string,
    stream: ActiveStream,
    userId: string,
    day: string,
    route: ModelRoute,
    messages: ProviderMessage[],
    queue: EventQueue<AiStreamEvent>,
  ): Promise<void> {
    const { controller, conversationId } = stream;
    let text = "";
    const images: { url: string }[] = [];
    let status: AiMessageStatus = "complete";
    let failure: string | null = null;
    try {
      const target = { baseUrl: route.key.base_url, apiKey: route.key.api_key, model: route.model.id };
      for await (const chunk of streamChatCompletion(target, messages, { signal: controller.signal, idleTimeoutMs: this.providerTimeoutMs })) {
        if (chunk.type === "delta") {
          text += chunk.content;
          queue.push({ event: "delta", data: { content: chunk.content } });
          if (text.length >= MAX_REPLY_CHARS) break;
        } else {
          const url = await this.uploads.keepGenerated(userId, chunk.url).catch(() => null);
          if (url) {
            images.push({ url });
            queue.push({ event: "image", data: { url } });
          }
        }
      }
    } catch (error) {
      if (error instanceof ProviderError && error.kind === "cancelled") status = "cancelled";
      else {
        status = "error";
        failure = failureMessage(error);
        // For the operator: which key and model failed and how; never the key, the URL or the payload.
        this.log.warn("AI provider failed", {
          kind: error instanceof ProviderError ? error.kind : "internal",
          status: error instanceof ProviderError ? error.status : null,
          key_id: route.key.id,
          model: route.model.id,
        });
      }
    }
    const reply = await this.store.aiConversations
      .addReply(conversationId, { role: "assistant", content: text, modelId: route.model.id, status, attachments: "[]", images: JSON.stringify(images) })
      .catch(() => null);
    // A provider that failed before writing anything does not cost the user a turn.
    if (status === "error" && text === "" && images.length === 0) await this.store.aiConversations.refund(userId, day).catch(() => undefined);
    const message = reply ? toMessage(reply) : null;
    if (status === "error") queue.push({ event: "error", data: { error: failure, stream_id: streamId, message } });
    else queue.push({ event: "done", data: { stream_id: streamId, conversation_id: conversationId, status, message } });
  }
}
