/**
 * Answers of the message, reaction, pin, upload, webhook, GIF and DM routes (Message itself:
 * shapes.ts). The shapes the domain builds are defined beside the feature that builds them (their
 * types are the schemas' outputs) and listed here with the answers only these routes build, so
 * the reference names them.
 */
import * as v from "valibot";
import { GifResult, GifSearchResult } from "../../domain/messaging/gifs.ts";
import { ProviderGif } from "../../domain/messaging/gif-provider.ts";
import { AttachmentInfo } from "../../domain/messaging/message-uploads.ts";
import { PinState } from "../../domain/messaging/pins.ts";
import { ReactionAction, ReactionChange, ReactionGroup } from "../../domain/messaging/reactions.ts";
import { Webhook, WebhookMetadata } from "../../domain/messaging/webhooks.ts";
import { Uuid } from "../../domain/shared/shapes.ts";

export { AttachmentInfo, GifResult, GifSearchResult, PinState, ProviderGif, ReactionChange, ReactionGroup, Webhook, WebhookMetadata };

export const ChannelReadState = v.object({ channel_id: Uuid, last_read_message_id: v.nullable(Uuid) });
/** One entry of GET /api/v1/users/me/read-states (docs/read-states.md); `channel_id` is a DM's id for DMs. */
export const ReadState = v.object({
  channel_id: Uuid,
  last_read_message_id: v.nullable(Uuid),
  last_message_id: Uuid,
  mention_count: v.number(),
});
export const BulkDeleteResult = v.object({ deleted: v.number() });

export const DmPinState = v.object({ conversationId: Uuid, messageId: Uuid, pinned: v.boolean() });
export const DmReaction = v.object({ conversationId: Uuid, messageId: Uuid, emoji: v.string(), userId: Uuid, action: ReactionAction });
export const DmReadState = v.object({ conversation_id: Uuid, last_read_message_id: v.nullable(Uuid) });
