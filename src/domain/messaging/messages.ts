import type { Store } from "../../store/store.ts";
import { SlowmodeActive, type AttachmentRow, type InsertedMessage, type MessageRow, type MessageView, type NewMessage } from "../../store/messages-repo.ts";
import type { UserRow } from "../../store/users-repo.ts";
import { missingPermission, type Access, type ChannelContext } from "../access/access.ts";
import type { Audit } from "../access/audit.ts";
import { normalizeEmbeds } from "./embeds.ts";
import { badRequest, forbidden, notFound, tooManyRequests } from "../shared/errors.ts";
import { deliverSlashCommand, detectSlashCommand } from "../bots/slash-commands.ts";
import { rooms, type EventBus } from "../shared/events.ts";
import { ALL_PERMISSIONS, PERMISSIONS } from "../access/permission-bits.ts";
import { hasPermission } from "../access/permissions.ts";
import { searchWords } from "./search-query.ts";
import { mentionsIn } from "./mentions.ts";
import { markChannelRead } from "./read-states.ts";
import type { Attachment, Embed, Message } from "../shared/shapes.ts";
import type { UploadStore } from "../shared/uploads.ts";
import { isUuid } from "../shared/validation.ts";
import { LIMITS } from "../shared/limits.ts";
import type { MessageBodyInput, SendMessageInput } from "./message-schemas.ts";
import { echoNonce, nonceKey, type NonceInput } from "./nonce.ts";

const VOICE_CHAT_DISABLED = "Text chat is disabled for this voice channel";

/** `<:name:id>` (and animated `<a:name:id>`) custom emoji markup. */
const CUSTOM_EMOJI = /<a?:([\w-]{1,32}):([0-9a-f-]{36})>/gi;
const CUSTOM_EMOJI_EXACT = new RegExp(`^${CUSTOM_EMOJI.source}$`, "i");

/** A string that is exactly one custom emoji markup (a reaction, say): its name and id, or null. */
export function parseCustomEmoji(text: string): { name: string; id: string } | null {
  const match = CUSTOM_EMOJI_EXACT.exec(text);
  return match ? { name: match[1]!, id: match[2]!.toLowerCase() } : null;
}

/**
 * The custom emoji rule, shared by message content and reactions: `<:name:id>` must name an
 * existing emoji, and another server's emoji needs USE_EXTERNAL_EMOJIS in the channel.
 */
export async function checkCustomEmoji(store: Store, { channel, permissions }: SendContext, name: string, id: string, field: string): Promise<void> {
  const emoji = await store.emojis.find(id.toLowerCase());
  if (!emoji || emoji.name !== name) throw badRequest(`${field}: unknown custom emoji <:${name}:${id}>`);
  if (emoji.server_id !== channel.server_id && !hasPermission(permissions, PERMISSIONS.USE_EXTERNAL_EMOJIS)) {
    throw missingPermission(PERMISSIONS.USE_EXTERNAL_EMOJIS);
  }
}
const MASS_MENTION = /@(everyone|here)\b/;

/**
 * What the shared send rules read: the channel, and the sender's permissions in it; the member
 * when the sender is one (a webhook is not), so a refusal can say it is due to a timeout.
 */
type SendContext = Pick<ChannelContext, "channel" | "permissions"> & Partial<Pick<ChannelContext, "member">>;

/** A webhook posting to its channel: the account its messages are stored under, and what they show. */
interface WebhookSender {
  id: string;
  channelId: string;
  /** messages.user_id must be a user: the webhook's creator (see docs/webhooks.md). */
  userId: string;
  username: string;
  avatar: string | null;
}

/**
 * Webhook messages skip the member checks: the URL token, handed out by someone with
 * MANAGE_CHANNELS, is the credential. For the content rules they hold every bit (so they may
 * mention @everyone and use any server's custom emojis, as Discord's webhooks do); a custom
 * emoji must still exist.
 */
const WEBHOOK_PERMISSIONS = ALL_PERMISSIONS;

/** Whose a stored message is: a member's, or a webhook's (under its creator's account). */
interface MessageAuthor {
  userId: string;
  webhook?: NewMessage["webhook"];
}

/** A message past the rules every sender shares, ready to store. */
interface CheckedMessage {
  content: string;
  embeds: Embed[];
  attachments: NonNullable<NewMessage["attachments"]>;
  replyTo: string | null;
  /** The author of the message replied to: mentioned by the reply. */
  replyAuthorId?: string | null;
}

/** A send: the REST payload as its schema outputs it, plus what other senders bring. */
type SendInput = Omit<SendMessageInput, "embeds"> & {
  /** As the send schemas check it (an array or null); a webhook's is anything, normalized leniently. */
  embeds?: unknown;
  /** Files already stored by the caller (uploads); removed again if the send is refused. */
  attachments?: NewMessage["attachments"];
  /** Webhook execution accepts Discord-style embed shapes and normalizes them. */
  lenientEmbeds?: boolean;
};

/**
 * Narrows an edit or delete: the message must be in `channelId` (404 otherwise), and with
 * `ownOnly` only its author may act (Bot REST), even with MANAGE_MESSAGES.
 */
interface MessageScope {
  channelId?: string;
  ownOnly?: boolean;
}

/**
 * A keyset page: `before` and/or `after` are message ids (exclusive); `around` (alone) a message
 * id the page is centred on, included when it is a message of the channel.
 */
export interface MessagePage {
  before?: string;
  after?: string;
  around?: string;
  limit: number;
}

function toAttachment(row: AttachmentRow): Attachment {
  return { id: row.id, filename: row.filename, original_name: row.original_name, mime_type: row.mime_type, size: row.size, width: row.width, height: row.height };
}

/**
 * The empty list of every message without embeds or attachments (most of them): one shared,
 * frozen array instead of two new ones a message on every page read. Frozen, so code that tried to add to one
 * message's list would throw rather than change them all.
 */
const NONE: never[] = Object.freeze([]) as unknown as never[];

export function toMessage(row: MessageView, attachments: Attachment[] = NONE): Message {
  const message: Message = {
    id: row.id,
    channel_id: row.channel_id,
    user_id: row.user_id,
    content: row.content,
    created_at: row.created_at,
    updated_at: row.updated_at,
    username: row.webhook_username ?? row.username,
    avatar: row.webhook_id ? row.webhook_avatar : row.avatar,
    is_bot: row.webhook_id ? 1 : row.is_bot,
    // Most messages have none: no JSON.parse of "[]" for each of them.
    embeds: row.embeds === "[]" ? NONE : (JSON.parse(row.embeds) as Embed[]),
    attachments,
    reply_to: row.reply_to,
  };
  if (row.webhook_id) message.webhook_id = row.webhook_id;
  return message;
}

/**
 * Channel messages. `send` is the one place every sender goes through (user REST, uploads,
 * Bot REST, `bot:send_message`, `interaction:response`, webhooks), so the permission checks,
 * the chat_enabled rule, slowmode, timeouts, embed rules and `message:new` cannot drift apart.
 */
export class Messages {
  constructor(
    private readonly store: Store,
    private readonly access: Access,
    private readonly audit: Audit,
    private readonly uploads: UploadStore,
    private readonly bus: EventBus,
  ) {}

  async send(channelId: string, author: UserRow, input: SendInput): Promise<Message> {
    try {
      // Cached on SQLite: the timeout and slowmode are judged below at every send, from the time now.
      return await this.sendIn(await this.access.requireChannel(channelId, author.id), author, input);
    } catch (error) {
      // A refused upload leaves no file behind.
      for (const file of input.attachments ?? []) await this.uploads.remove(file.filename);
      throw error;
    }
  }

  /**
   * A webhook's message: the same channel rule, content and embed rules, storage and
   * `message:new` as `send`, without the member checks (permission bits, timeout, slowmode,
   * slash commands). Embeds are normalized leniently (Discord-style shapes).
   */
  async sendAsWebhook(webhook: WebhookSender, input: Pick<SendInput, "content" | "embeds" | "nonce" | "enforce_nonce">): Promise<Message> {
    const context: SendContext = { channel: await this.access.channel(webhook.channelId), permissions: WEBHOOK_PERMISSIONS };
    this.requireChatEnabled(context);
    const nonce = nonceKey(input, { channelId: context.channel.id, webhookId: webhook.id });
    const checked = await this.check(context, { ...input, lenientEmbeds: true });
    const shown = { id: webhook.id, username: webhook.username, avatar: webhook.avatar };
    return (await this.commit(context, { userId: webhook.userId, webhook: shown }, checked, input, nonce)).message;
  }

  /** A member's (user's or bot's) message: the member checks around the shared rules. */
  private async sendIn(context: ChannelContext, author: UserRow, input: SendInput): Promise<Message> {
    this.requireChatEnabled(context);
    this.requireBit(context, PERMISSIONS.SEND_MESSAGES);
    const nonce = nonceKey(input, { channelId: context.channel.id, userId: author.id });
    // A user's `/<command>` line runs a bot's slash command; bots never do (nor webhooks: sendAsWebhook).
    const command = author.is_bot !== 1 ? await detectSlashCommand(this.store, context, input.content ?? "") : null;
    const checked = await this.check(context, { ...input, content: command?.content ?? input.content });
    if (checked.embeds.length) this.requireBit(context, PERMISSIONS.EMBED_LINKS);
    if (checked.attachments.length) this.requireBit(context, PERMISSIONS.ATTACH_FILES);
    const { message, replayed } = await this.commit(context, { userId: author.id }, checked, input, nonce, this.slowmodeFor(context));
    if (command && !replayed) await deliverSlashCommand(this.store, this.bus, command, message, author, context.channel.server_id);
    return message;
  }

  /** Shared by every sender: voice channels take text only with chat_enabled. */
  private requireChatEnabled({ channel }: SendContext): void {
    if (channel.type === "voice" && channel.chat_enabled !== 1) throw forbidden(VOICE_CHAT_DISABLED);
  }

  /** Shared by every sender: embed normalization, not empty, the content rules, reply_to. */
  private async check(context: SendContext, input: SendInput): Promise<CheckedMessage> {
    const content = input.content ?? "";
    const embeds = input.embeds === undefined || input.embeds === null ? [] : normalizeEmbeds(input.embeds, { lenient: input.lenientEmbeds ?? false });
    const attachments = input.attachments ?? [];
    if (!content.trim() && embeds.length === 0 && attachments.length === 0) {
      throw badRequest("A message needs content, embeds or attachments");
    }
    await this.checkContent(content, context);
    const replyTo = input.reply_to ?? null;
    if (replyTo !== null) {
      const target = isUuid(replyTo) ? await this.store.messages.findById(replyTo) : null;
      if (!target || target.channel_id !== context.channel.id) throw badRequest("reply_to: no such message in this channel");
      return { content, embeds, attachments, replyTo, replyAuthorId: target.webhook_id === null ? target.user_id : null };
    }
    return { content, embeds, attachments, replyTo };
  }

  /**
   * Shared by every sender: stores the message and publishes `message:new`. The store answers
   * once the message's transaction has committed (group commit, src/store/write-batch.ts), so
   * the event and the caller's reply never announce a message that is not yet in the WAL.
   * `slowmode` (seconds) is checked in that same transaction. With a nonce key (./nonce.ts)
   * a retry of a stored send is `replayed`: the first message is answered, this send's files
   * are removed, and no second `message:new` goes out.
   */
  private async commit(
    { channel }: SendContext,
    { userId, webhook }: MessageAuthor,
    checked: CheckedMessage,
    sent: NonceInput,
    nonce: NewMessage["nonce"],
    slowmode = 0,
  ): Promise<{ message: Message; replayed: boolean }> {
    let row: InsertedMessage;
    try {
      row = await this.store.messages.insert({
        channelId: channel.id,
        serverId: channel.server_id,
        userId,
        content: checked.content,
        embeds: JSON.stringify(checked.embeds),
        replyTo: checked.replyTo,
        attachments: checked.attachments,
        webhook,
        slowmode,
        // A webhook's message is nobody's own: its creator (user_id) is mentioned like anyone.
        mentions: mentionsIn(checked.content, { authorId: webhook ? "" : userId, serverId: channel.server_id, replyAuthorId: checked.replyAuthorId }),
        nonce,
      });
    } catch (error) {
      if (error instanceof SlowmodeActive) throw tooManyRequests(error.wait, error.message);
      throw error;
    }
    // Without files there is nothing to read back: the row is the whole message.
    const message = echoNonce(row.has_attachments ? await this.hydrateOne(row) : toMessage(row), sent);
    if (row.replayed) {
      for (const file of checked.attachments) await this.uploads.remove(file.filename);
      return { message, replayed: true };
    }
    this.bus.publish(rooms.channel(channel.id), "message:new", message);
    return { message, replayed: false };
  }

  /** Keyset pages of `limit` messages before `before` (a message id), newest first. */
  list(channelId: string, user: UserRow, before: string | undefined, limit: number): Promise<Message[]> {
    return this.page(channelId, user, { before, limit });
  }

  /**
   * A page, newest first. Without `after`: the `limit` newest messages before `before` (or
   * the newest). With `after`: the `limit` messages right after it (below `before` when given).
   * With `around`: up to `limit` messages centred on it (the message itself included), fewer
   * on one side filled from the other.
   */
  async page(channelId: string, user: UserRow, query: MessagePage): Promise<Message[]> {
    const { channel } = await this.access.requireChannel(channelId, user.id, PERMISSIONS.READ_MESSAGE_HISTORY);
    const before = query.before === undefined ? null : query.before.toLowerCase();
    const after = query.after === undefined ? null : query.after.toLowerCase();
    if (before !== null && !isUuid(before)) throw badRequest("before: must be a message id");
    if (after !== null && !isUuid(after)) throw badRequest("after: must be a message id");
    if (query.around !== undefined) {
      const around = query.around.toLowerCase();
      if (!isUuid(around)) throw badRequest("around: must be a message id");
      return this.hydrate(await this.store.messages.pageAround(channel.id, around, query.limit));
    }
    const rows = after === null ? await this.store.messages.page(channel.id, before, query.limit) : await this.store.messages.pageAfter(channel.id, after, before, query.limit);
    return this.hydrate(rows);
  }

  /**
   * Full-text search in one channel (VIEW_CHANNEL + READ_MESSAGE_HISTORY): every word must
   * appear (whole words, case- and accent-insensitive); newest first. Input is quoted, never
   * parsed as FTS5 syntax.
   */
  async search(channelId: string, user: UserRow, query: string, limit: number): Promise<Message[]> {
    const { channel } = await this.access.requireChannel(channelId, user.id, PERMISSIONS.READ_MESSAGE_HISTORY);
    const words = searchWords(query);
    return words.length ? this.hydrate(await this.store.messages.search(channel.id, words, limit)) : [];
  }

  /**
   * The same search over every channel of a server that the channel search would let the
   * member into (Access.channelScope with READ_MESSAGE_HISTORY: Access.channelsOpenTo's
   * channels), in one query; newest first. Scoped by the server, but the channels closed to the
   * member (a reader of every channel: none), or, where the member lacks the bits but in the
   * channels whose overrides give them back, by those channels' list. 404 for an unknown server,
   * 403 for a non-member; no such channel: nothing found.
   */
  async searchServer(serverId: string, user: UserRow, query: string, limit: number): Promise<Message[]> {
    const member = await this.access.member(serverId, user.id);
    const words = searchWords(query);
    if (!words.length) return [];
    const scope = await this.access.channelScope(member, PERMISSIONS.READ_MESSAGE_HISTORY);
    const rows =
      "open" in scope
        ? await this.store.messages.searchChannels(scope.open, words, limit)
        : await this.store.messages.searchServer(member.server.id, scope.closed, words, limit);
    return this.hydrate(rows);
  }

  async get(messageId: string, user: UserRow): Promise<Message> {
    const row = await this.find(messageId);
    await this.access.requireChannel(row.channel_id, user.id, PERMISSIONS.READ_MESSAGE_HISTORY);
    return this.hydrateOne(row);
  }

  /**
   * The author edits their own message, which needs SEND_MESSAGES as sending does (so a timeout
   * stops edits too); a member with MANAGE_MESSAGES may edit another's (audited as
   * MESSAGE_EDIT). Content and embeds go through the same rules as sending.
   */
  async edit(messageId: string, user: UserRow, input: MessageBodyInput, scope: MessageScope = {}): Promise<Message> {
    const row = await this.find(messageId, scope);
    const context = await this.access.requireChannel(row.channel_id, user.id);
    const own = row.user_id === user.id && row.webhook_id === null;
    if (!own && scope.ownOnly) throw forbidden("You can only edit your own messages");
    this.requireBit(context, own ? PERMISSIONS.SEND_MESSAGES : PERMISSIONS.MANAGE_MESSAGES);
    const content = input.content ?? row.content;
    const embeds = input.embeds === undefined ? (JSON.parse(row.embeds) as Embed[]) : normalizeEmbeds(input.embeds ?? [], { lenient: false });
    if (input.embeds !== undefined && embeds.length) this.requireBit(context, PERMISSIONS.EMBED_LINKS);
    const hasFiles = (await this.store.messages.attachments([row.id])).length > 0;
    if (!content.trim() && embeds.length === 0 && !hasFiles) throw badRequest("A message needs content, embeds or attachments");
    if (input.content !== undefined) await this.checkContent(content, context);
    const updated = await this.store.messages.update(row.id, content, JSON.stringify(embeds));
    if (!updated) throw notFound("Message");
    if (input.content !== undefined) await this.rewriteMentions(updated);
    const message = await this.hydrateOne(updated);
    this.bus.publish(rooms.channel(row.channel_id), "message:update", message);
    if (!own) {
      await this.audit.record(row.server_id, user.id, "MESSAGE_EDIT", { type: "member", id: row.user_id }, {
        messageId: row.id,
        channelId: row.channel_id,
      });
    }
    return message;
  }

  /** The author, or MANAGE_MESSAGES (audited as MESSAGE_DELETE). Attachment files go too. */
  async delete(messageId: string, user: UserRow, scope: MessageScope = {}): Promise<void> {
    const row = await this.find(messageId, scope);
    const context = await this.access.requireChannel(row.channel_id, user.id);
    const own = row.user_id === user.id && row.webhook_id === null;
    if (!own && scope.ownOnly) throw forbidden("You can only delete your own messages");
    if (!own) this.requireBit(context, PERMISSIONS.MANAGE_MESSAGES);
    if (!(await this.erase(row))) throw notFound("Message");
    if (!own) {
      await this.audit.record(row.server_id, user.id, "MESSAGE_DELETE", { type: "member", id: row.user_id }, {
        messageId: row.id,
        channelId: row.channel_id,
      });
    }
  }

  /**
   * A platform administrator removes a reported message (docs/reports.md): no channel
   * permission is asked of them; the server's audit log gets MESSAGE_DELETE by the
   * administrator, naming the report. false when the message is already gone.
   */
  async removeReported(messageId: string, admin: UserRow, reportId: string): Promise<boolean> {
    const row = await this.store.messages.findById(messageId);
    if (!row || !(await this.erase(row))) return false;
    await this.audit.record(row.server_id, admin.id, "MESSAGE_DELETE", { type: "member", id: row.user_id }, {
      messageId: row.id,
      channelId: row.channel_id,
      reportId,
    });
    return true;
  }

  /** Deletes the row and its attachment files, and tells the channel. false when it was already gone. */
  private async erase(row: MessageRow): Promise<boolean> {
    const files = await this.store.messages.delete(row.id);
    if (!files) return false;
    await Promise.all(files.map((file) => this.uploads.remove(file)));
    this.bus.publish(rooms.channel(row.channel_id), "message:deleted", { channelId: row.channel_id, messageId: row.id });
    return true;
  }

  /**
   * Deletes those of `messageIds` that are messages of the channel (others are skipped), with
   * MANAGE_MESSAGES in it: one transaction, then `message:deleted` for each, and MESSAGE_DELETE
   * for each message of another author, as a single delete would. Answers how many went.
   */
  async bulkDelete(channelId: string, user: UserRow, messageIds: string[]): Promise<{ deleted: number }> {
    const { channel } = await this.access.requireChannel(channelId, user.id, PERMISSIONS.MANAGE_MESSAGES);
    const ids = [...new Set(messageIds.map((id) => id.toLowerCase()))];
    const deleted = await this.store.messages.deleteInChannel(channel.id, ids);
    await Promise.all(deleted.flatMap(({ files }) => files.map((file) => this.uploads.remove(file))));
    for (const { row } of deleted) {
      this.bus.publish(rooms.channel(channel.id), "message:deleted", { channelId: channel.id, messageId: row.id });
      if (row.user_id === user.id && row.webhook_id === null) continue;
      await this.audit.record(row.server_id, user.id, "MESSAGE_DELETE", { type: "member", id: row.user_id }, {
        messageId: row.id,
        channelId: row.channel_id,
      });
    }
    return { deleted: deleted.length };
  }

  /** An edit's mentions as its new content has them (docs/read-states.md). */
  private async rewriteMentions(row: MessageRow): Promise<void> {
    const replied = row.reply_to ? await this.store.messages.findById(row.reply_to) : null;
    const replyAuthorId = replied && replied.webhook_id === null ? replied.user_id : null;
    const authorId = row.webhook_id === null ? row.user_id : "";
    const mentions = mentionsIn(row.content, { authorId, serverId: row.server_id, replyAuthorId });
    await this.store.readStates.replaceMentions(row.id, row.channel_id, authorId, mentions);
  }

  /** Marks the channel read up to `messageId` (default: its latest message). */
  async markRead(channelId: string, user: UserRow, messageId: string | undefined) {
    const { channel } = await this.access.requireChannel(channelId, user.id);
    let upTo = messageId ?? null;
    if (upTo !== null) {
      const target = isUuid(upTo) ? await this.store.messages.findById(upTo) : null;
      if (!target || target.channel_id !== channel.id) throw badRequest("message_id: no such message in this channel");
    } else {
      upTo = (await this.store.messages.page(channel.id, null, 1))[0]?.id ?? null;
    }
    const stored = await markChannelRead(this.store, this.bus, user.id, channel.id, upTo);
    return { channel_id: channel.id, last_read_message_id: stored };
  }

  /**
   * `typing:start` / `typing:stop` to the channel room, for members who may send there. With
   * `relay` false only the check runs (a start coalesced as a repeat, src/gateway/typing-repeats.ts).
   */
  async typing(channelId: string, user: Pick<UserRow, "id" | "username">, event: "typing:start" | "typing:stop", relay = true): Promise<void> {
    const context = await this.access.requireChannel(channelId, user.id);
    this.requireBit(context, PERMISSIONS.SEND_MESSAGES);
    if (!relay) return;
    const { channel } = context;
    this.bus.publish(rooms.channel(channel.id), event, { userId: user.id, username: user.username, channelId: channel.id }, [rooms.user(user.id)]);
  }

  /**
   * The wire messages of stored rows, with their attachments. Only the rows stored with
   * attachments (`has_attachments`) are looked up: a page without any reads nothing more.
   */
  async hydrate(rows: MessageView[]): Promise<Message[]> {
    const withFiles: string[] = [];
    for (const row of rows) if (row.has_attachments) withFiles.push(row.id);
    if (!withFiles.length) return rows.map((row) => toMessage(row));
    const byMessage = new Map<string, Attachment[]>();
    for (const a of await this.store.messages.attachments(withFiles)) {
      const list = byMessage.get(a.message_id);
      if (list) list.push(toAttachment(a));
      else byMessage.set(a.message_id, [toAttachment(a)]);
    }
    return rows.map((row) => toMessage(row, byMessage.get(row.id)));
  }

  private async hydrateOne(row: MessageRow): Promise<Message> {
    return (await this.hydrate([row]))[0]!;
  }

  private async find(messageId: string, scope: MessageScope = {}): Promise<MessageRow> {
    const row = isUuid(messageId) ? await this.store.messages.findById(messageId.toLowerCase()) : null;
    if (!row || (scope.channelId !== undefined && row.channel_id !== scope.channelId.toLowerCase())) throw notFound("Message");
    return row;
  }

  private requireBit(context: SendContext, bit: number) {
    if (!hasPermission(context.permissions, bit)) throw missingPermission(bit, context.member);
  }

  /** Length, @everyone/@here, and custom emojis that exist (another server's need USE_EXTERNAL_EMOJIS). */
  private async checkContent(content: string, context: SendContext): Promise<void> {
    if (content.length > LIMITS.message.contentLength) throw badRequest(`content: must be at most ${LIMITS.message.contentLength} characters`);
    if (MASS_MENTION.test(content)) this.requireBit(context, PERMISSIONS.MENTION_EVERYONE);
    for (const [, name, id] of content.matchAll(CUSTOM_EMOJI)) await checkCustomEmoji(this.store, context, name!, id!, "content");
  }

  /**
   * Slowmode for this sender, in seconds: the channel's, except for members with
   * MANAGE_MESSAGES or MANAGE_CHANNELS (0). The store checks it when inserting.
   */
  private slowmodeFor({ channel, permissions }: ChannelContext): number {
    if (channel.slowmode <= 0) return 0;
    if (hasPermission(permissions, PERMISSIONS.MANAGE_MESSAGES) || hasPermission(permissions, PERMISSIONS.MANAGE_CHANNELS)) return 0;
    return channel.slowmode;
  }
}

