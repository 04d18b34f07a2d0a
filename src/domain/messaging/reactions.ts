import * as v from "valibot";
import type { Store } from "../../store/store.ts";
import type { MessageRow } from "../../store/messages-repo.ts";
import type { UserRow } from "../../store/users-repo.ts";
import { missingPermission, requireNotTimedOut, type Access, type ChannelContext } from "../access/access.ts";
import { badRequest, notFound } from "../shared/errors.ts";
import { rooms, type EventBus } from "../shared/events.ts";
import { checkCustomEmoji, parseCustomEmoji } from "./messages.ts";
import { PERMISSIONS } from "../access/permission-bits.ts";
import { hasPermission } from "../access/permissions.ts";
import { isUuid } from "../shared/validation.ts";
import { LIMITS } from "../shared/limits.ts";
import { capReached, type ResourceCaps } from "../shared/caps.ts";
import { ImageUrl, Uuid } from "../shared/shapes.ts";

/** One emoji "piece": a pictograph, with an optional presentation selector and skin tone. */
const PIECE = String.raw`(?:\p{Extended_Pictographic}|\p{Emoji_Presentation})\uFE0F?\p{Emoji_Modifier}?`;
/** Flags (two regional indicators), keycaps, subdivision flags (tag sequences), ZWJ sequences. */
const UNICODE_EMOJI = new RegExp(
  String.raw`^(?:\p{Regional_Indicator}{2}|[0-9#*]\uFE0F?\u20E3|\u{1F3F4}[\u{E0020}-\u{E007E}]+\u{E007F}|${PIECE}(?:\u200D${PIECE})*)$`,
  "u",
);
const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** One emoji grapheme of at most LIMITS.message.unicodeEmojiLength code units. Structural, so newer emoji pass. */
export function isUnicodeEmoji(text: string): boolean {
  if (text.length === 0 || text.length > LIMITS.message.unicodeEmojiLength || !UNICODE_EMOJI.test(text)) return false;
  const segments = graphemes.segment(text)[Symbol.iterator]();
  segments.next();
  return segments.next().done === true;
}

/**
 * How a reaction emoji is stored and reported: a Unicode emoji as sent; a custom emoji as
 * `<:name:id>` with the id in lower case (an animated `<a:name:id>` is the same emoji type).
 * Null when the text is neither.
 */
function reactionEmojiKey(text: string): { key: string; custom: { name: string; id: string } | null } | null {
  const custom = parseCustomEmoji(text);
  if (custom) return { key: `<:${custom.name}:${custom.id}>`, custom };
  return isUnicodeEmoji(text) ? { key: text, custom: null } : null;
}

/** What a reaction toggle did (channel and DM reactions alike). */
export const ReactionAction = v.picklist(["added", "removed"]);

export const ReactionChange = v.object({
  emoji: v.string(),
  action: ReactionAction,
  /** How many users now hold this emoji on the message. */
  count: v.number(),
});
export type ReactionChange = v.InferOutput<typeof ReactionChange>;

export const ReactionGroup = v.object({
  emoji: v.string(),
  count: v.number(),
  users: v.array(v.object({ id: Uuid, username: v.string(), avatar: ImageUrl })),
});
export type ReactionGroup = v.InferOutput<typeof ReactionGroup>;

/**
 * The caller in the channel (VIEW_CHANNEL plus `bit`) and a message of that channel; a message
 * that is missing, not a UUID or in another channel is 404. Reactions and pins share it.
 */
export async function channelMessage(
  store: Store,
  access: Access,
  channelId: string,
  messageId: string,
  userId: string,
  bit: number,
): Promise<{ context: ChannelContext; message: MessageRow }> {
  const context = await access.requireChannel(channelId, userId, bit);
  const message = isUuid(messageId) ? await store.messages.findById(messageId) : null;
  if (!message || message.channel_id !== context.channel.id) throw notFound("Message");
  return { context, message };
}

const INVALID_EMOJI = "emoji: must be a Unicode emoji or a custom emoji <:name:id>";

/**
 * Reactions on channel messages. Every route needs VIEW_CHANNEL and READ_MESSAGE_HISTORY. The
 * first use of an emoji type on a message needs ADD_REACTIONS; joining an existing type does
 * not. That check and the write are one store transaction, so racing toggles stay consistent.
 */
export class Reactions {
  constructor(
    private readonly store: Store,
    private readonly access: Access,
    private readonly bus: EventBus,
    private readonly caps: ResourceCaps,
  ) {}

  /** Adds the caller's reaction, or removes it when present; `message:reaction` either way. */
  async toggle(channelId: string, messageId: string, user: UserRow, emoji: string): Promise<ReactionChange> {
    const { context, message } = await this.target(channelId, messageId, user);
    // Joining an existing reaction needs no bit, so the timeout is asked here.
    requireNotTimedOut(context.member);
    const parsed = reactionEmojiKey(emoji);
    if (!parsed) throw badRequest(INVALID_EMOJI);
    if (parsed.custom) await checkCustomEmoji(this.store, context, parsed.custom.name, parsed.custom.id, "emoji");
    const mayStartType = hasPermission(context.permissions, PERMISSIONS.ADD_REACTIONS);
    const outcome = await this.store.reactions.toggle(message.id, parsed.key, user.id, mayStartType, this.caps.reactionsPerMessage);
    if (outcome.action === "full") throw capReached.reactions(this.caps);
    if (outcome.action === "refused") throw missingPermission(PERMISSIONS.ADD_REACTIONS, context.member);
    this.publish(message, parsed.key, user.id, outcome.action);
    return { emoji: parsed.key, action: outcome.action, count: outcome.count };
  }

  /**
   * Removes the caller's own reaction (404 when there is none). The emoji is not checked
   * against the emoji table, so a reaction with a since-deleted custom emoji can still go.
   */
  async remove(channelId: string, messageId: string, user: UserRow, emoji: string): Promise<ReactionChange> {
    const { message } = await this.target(channelId, messageId, user);
    const key = reactionEmojiKey(emoji)?.key ?? emoji;
    const count = await this.store.reactions.remove(message.id, key, user.id);
    if (count === null) throw notFound("Reaction");
    this.publish(message, key, user.id, "removed");
    return { emoji: key, action: "removed", count };
  }

  /** Emoji types in order of first use, each with its users in reaction order. */
  async list(channelId: string, messageId: string, user: UserRow): Promise<ReactionGroup[]> {
    const { message } = await this.target(channelId, messageId, user);
    const groups = new Map<string, ReactionGroup>();
    for (const row of await this.store.reactions.list(message.id)) {
      let group = groups.get(row.emoji);
      if (!group) groups.set(row.emoji, (group = { emoji: row.emoji, count: 0, users: [] }));
      group.count++;
      group.users.push({ id: row.user_id, username: row.username, avatar: row.avatar });
    }
    return [...groups.values()];
  }

  private target(channelId: string, messageId: string, user: UserRow) {
    return channelMessage(this.store, this.access, channelId, messageId, user.id, PERMISSIONS.READ_MESSAGE_HISTORY);
  }

  private publish(message: MessageRow, emoji: string, userId: string, action: "added" | "removed") {
    this.bus.publish(rooms.channel(message.channel_id), "message:reaction", {
      channelId: message.channel_id,
      messageId: message.id,
      emoji,
      userId,
      action,
    });
  }
}
