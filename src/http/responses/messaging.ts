/** Answers of the message, reaction, pin, upload, webhook, GIF and DM routes (Message itself: shapes.ts). */
import * as v from "valibot";
import type { AttachmentInfo as AttachmentInfoType } from "../../domain/messaging/message-uploads.ts";
import type { GifSearchResult as GifSearchResultType } from "../../domain/messaging/gifs.ts";
import type { PinState as PinStateType } from "../../domain/messaging/pins.ts";
import type { ReactionChange as ReactionChangeType, ReactionGroup as ReactionGroupType } from "../../domain/messaging/reactions.ts";
import type { Webhook as WebhookType, WebhookMetadata as WebhookMetadataType } from "../../domain/messaging/webhooks.ts";
import { ImageUrl, UnixSeconds, Uuid } from "../../domain/shared/shapes.ts";
import { ServerGif } from "./community.ts";
import type { Assert, Same } from "./same-type.ts";

const ReactionAction = v.picklist(["added", "removed"]);

export const PinState = v.object({ channelId: Uuid, messageId: Uuid, pinned: v.boolean() });
export const ReactionChange = v.object({ emoji: v.string(), action: ReactionAction, count: v.number() });
export const ReactionGroup = v.object({
  emoji: v.string(),
  count: v.number(),
  users: v.array(v.object({ id: Uuid, username: v.string(), avatar: ImageUrl })),
});
export const ChannelReadState = v.object({ channel_id: Uuid, last_read_message_id: v.nullable(Uuid) });
export const BulkDeleteResult = v.object({ deleted: v.number() });
export const AttachmentInfo = v.object({
  id: Uuid,
  message_id: Uuid,
  channel_id: Uuid,
  filename: v.string(),
  original_name: v.string(),
  mime_type: v.string(),
  size: v.number(),
  url: v.string(),
});

export const Webhook = v.object({
  id: Uuid,
  name: v.string(),
  avatar: v.nullable(v.string()),
  channel_id: Uuid,
  server_id: Uuid,
  token: v.string(),
  url: v.string(),
  created_by: v.nullable(Uuid),
  created_at: UnixSeconds,
});
export const WebhookMetadata = v.object({ id: Uuid, name: v.string(), avatar: v.nullable(v.string()), channel_id: Uuid, url: v.string() });

export const ProviderGif = v.object({
  id: v.string(),
  title: v.string(),
  url: v.string(),
  preview_url: v.string(),
  width: v.nullable(v.number()),
  height: v.nullable(v.number()),
});
export const GifResult = v.object({ ...ServerGif.entries, server_name: v.string() });
export const GifSearchResult = v.object({
  results: v.array(GifResult),
  next: v.nullable(v.string()),
  provider: v.nullable(v.object({ results: v.array(ProviderGif), error: v.nullable(v.string()) })),
});

export const DmPinState = v.object({ conversationId: Uuid, messageId: Uuid, pinned: v.boolean() });
export const DmReaction = v.object({ conversationId: Uuid, messageId: Uuid, emoji: v.string(), userId: Uuid, action: ReactionAction });
export const DmReadState = v.object({ conversation_id: Uuid, last_read_message_id: v.nullable(Uuid) });

export type Checks = [
  Assert<Same<v.InferOutput<typeof PinState>, PinStateType>>,
  Assert<Same<v.InferOutput<typeof ReactionChange>, ReactionChangeType>>,
  Assert<Same<v.InferOutput<typeof ReactionGroup>, ReactionGroupType>>,
  Assert<Same<v.InferOutput<typeof AttachmentInfo>, AttachmentInfoType>>,
  Assert<Same<v.InferOutput<typeof Webhook>, WebhookType>>,
  Assert<Same<v.InferOutput<typeof WebhookMetadata>, WebhookMetadataType>>,
  Assert<Same<v.InferOutput<typeof GifSearchResult>, GifSearchResultType>>,
];
