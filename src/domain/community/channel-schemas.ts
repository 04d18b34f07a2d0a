/** The payloads that create, change and place channels: the REST routes parse with these, and Channels takes their output. */
import * as v from "valibot";
import { LIMITS } from "../shared/limits.ts";
import { boundedText, displayName, integer } from "../shared/validation.ts";

const { channel } = LIMITS;

/** A channel or category name as sent (Channels then normalizes text channel names: lowercase, `-` for spaces). */
export const channelName = v.pipe(
  displayName,
  v.minLength(1, "must not be empty"),
  v.maxLength(channel.nameLength, `must be at most ${channel.nameLength} characters`),
);

/** The spec types these flags "boolean/integer": true/false or 1/0. */
const flag = v.pipe(
  v.union([v.boolean(), v.literal(0), v.literal(1)], "must be a boolean"),
  v.transform((value) => value === true || value === 1),
);

/** A category or channel id as sent, before it is looked up. */
export const channelIdText = v.pipe(v.string("must be a string"), v.maxLength(channel.idLength, "must be an id"));

export const NewChannel = v.object({
  name: channelName,
  type: v.picklist(["text", "voice"], "must be text or voice"),
  category_id: v.optional(v.nullable(channelIdText)),
  is_meeting: v.optional(flag),
  chat_enabled: v.optional(flag),
});
export type NewChannelInput = v.InferOutput<typeof NewChannel>;

export const ChannelChanges = v.object({
  name: v.optional(channelName),
  // Checked by Channels so the answer is "type cannot be changed".
  type: v.optional(v.unknown()),
  category_id: v.optional(v.nullable(channelIdText)),
  topic: v.optional(v.nullable(boundedText(channel.topicLength))),
  slowmode: v.optional(integer(0, channel.slowmodeMaxSeconds)),
  nsfw: v.optional(flag),
  is_meeting: v.optional(flag),
  chat_enabled: v.optional(flag),
});
export type ChannelChangesInput = v.InferOutput<typeof ChannelChanges>;

/** One entry of a channel reorder. */
export const ChannelPlacement = v.object({
  id: channelIdText,
  position: integer(0, channel.positionMax),
  category_id: v.optional(v.nullable(channelIdText)),
});
export type ChannelPlacementInput = v.InferOutput<typeof ChannelPlacement>;
