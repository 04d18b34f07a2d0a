/**
 * The payloads that carry a message, as one schema each: user REST, Bot REST and the gateway's
 * bot events (`bot:send_message`, `bot:edit_message`, `interaction:response`) all check message
 * text and embeds with these, and the domain's input types are what they output.
 */
import * as v from "valibot";
import { LIMITS } from "../shared/limits.ts";
import { nonceEntries } from "./nonce.ts";

const { contentLength } = LIMITS.message;

/** Message text, channel or DM: at most LIMITS.message.contentLength characters. */
export const messageContent = v.pipe(v.string("must be a string"), v.maxLength(contentLength, `must be at most ${contentLength} characters`));

/** A DM's text: the same limit, and not blank (a DM has no embeds to stand in for it). */
export const dmContent = v.pipe(
  v.string("must be a string"),
  v.check((s) => s.trim().length > 0, "must not be empty"),
  v.maxLength(contentLength, `must be at most ${contentLength} characters`),
);

/** Embeds as sent: an array (normalized by normalizeEmbeds, ./embeds.ts), or null for none. */
const messageEmbeds = v.nullable(v.array(v.unknown(), "must be an array"));

export const messageId = v.pipe(v.string("must be a string"), v.uuid("must be a message id"));

/** What a message says: content and/or embeds (an edit, a bot's DM, a bot event). */
export const MessageBody = v.object({ content: v.optional(messageContent), embeds: v.optional(messageEmbeds) });
export type MessageBodyInput = v.InferOutput<typeof MessageBody>;

/** A channel message send over REST (user and bot): the body, and the message it replies to. */
export const SendMessageBody = v.object({ ...MessageBody.entries, reply_to: v.optional(v.nullable(messageId)), ...nonceEntries });
export type SendMessageInput = v.InferOutput<typeof SendMessageBody>;

/** A remote file's or GIF's URL: http(s), with a host. */
function isHttpUrl(value: string): boolean {
  if (/\s/.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}

export const httpUrl = v.pipe(
  v.string("must be a string"),
  v.maxLength(LIMITS.message.urlLength, `must be at most ${LIMITS.message.urlLength} characters`),
  v.check(isHttpUrl, "must be an http(s) URL"),
);

/** A GIF as a channel message (`POST /messages/:id/gif`): a URL or one of the server's GIFs, and an optional reply. */
export const GifMessage = v.object({
  url: v.optional(httpUrl),
  gif_id: v.optional(v.string("must be a string")),
  reply_to: v.optional(v.nullable(messageId)),
  ...nonceEntries,
});
export type GifMessageInput = v.InferOutput<typeof GifMessage>;
