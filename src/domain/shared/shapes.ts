/**
 * Wire shapes of the spec's resources (SPEC.md "Resources and their fields"), shared by REST
 * answers, gateway payloads and the SDK. Each is a valibot schema and its type is the schema's
 * output, so the type the code builds and the shape the API reference documents (docs/reference.md)
 * are one definition. Domain files build these values; nothing else does. The schemas describe
 * answers, they never parse input: a field's limits live with the input schemas.
 */
import * as v from "valibot";
import { PRESENCE_STATUSES, type PresenceStatus } from "../../store/types.ts";

/** The presence values; the store owns them (`users.status`). */
export { PRESENCE_STATUSES, type PresenceStatus };

/** Pieces the shapes repeat. */
export const Uuid = v.pipe(v.string(), v.uuid());
export const UnixSeconds = v.pipe(v.number(), v.integer());
export const Count = v.pipe(v.number(), v.integer(), v.minValue(0));
/** `is_bot` stays the spec's 0/1. */
export const BotFlag = v.picklist([0, 1]);
/** A path under `/uploads/...` (or an http(s) URL for webhook avatars), or null. */
export const ImageUrl = v.nullable(v.string());
export const Presence = v.picklist(PRESENCE_STATUSES);

/** `{success: true}`: what a deletion (or another action with nothing to show) answers. */
export const Success = v.object({ success: v.literal(true) });

export const ACTIVITY_TYPES = ["playing", "listening", "watching", "competing", "custom"] as const;
export type ActivityType = (typeof ACTIVITY_TYPES)[number];
export const Activity = v.object({
  type: v.picklist(ACTIVITY_TYPES),
  name: v.string(),
  details: v.optional(v.string()),
  state: v.optional(v.string()),
  started_at: v.optional(UnixSeconds),
});
export type Activity = v.InferOutput<typeof Activity>;

/** A person's custom status (docs/users.md, "Custom status"). */
export const CustomStatus = v.object({
  text: v.string(),
  emoji: v.nullable(v.string()),
  /** ISO 8601; null: it stays until changed or cleared. */
  expires_at: v.nullable(v.string()),
});
export type CustomStatus = v.InferOutput<typeof CustomStatus>;

/** `GET /users/:id`: what anyone may see (presence and custom status as presenceShownTo says). */
export const PublicUser = v.object({
  id: Uuid,
  username: v.string(),
  avatar: ImageUrl,
  banner: ImageUrl,
  banner_offset: v.number(),
  bio: v.string(),
  status: Presence,
  custom_status: v.nullable(CustomStatus),
  is_bot: BotFlag,
  created_at: UnixSeconds,
});
export type PublicUser = v.InferOutput<typeof PublicUser>;

/** `GET /users/me/info`: the account's own view. */
export const MeUser = v.object({
  id: Uuid,
  username: v.string(),
  email: v.string(),
  avatar: ImageUrl,
  banner: ImageUrl,
  banner_offset: v.number(),
  bio: v.string(),
  status: Presence,
  custom_status: v.nullable(CustomStatus),
  is_bot: BotFlag,
  two_factor_enabled: v.boolean(),
  /** Hearth extensions (docs/users.md): premium subscriber, platform administrator. */
  premium: v.boolean(),
  platform_admin: v.boolean(),
  created_at: UnixSeconds,
});
export type MeUser = v.InferOutput<typeof MeUser>;

/** SPEC.md "Channel"; the flags are booleans. */
export const Channel = v.object({
  id: Uuid,
  server_id: Uuid,
  name: v.string(),
  type: v.picklist(["text", "voice"]),
  category_id: v.nullable(Uuid),
  position: v.number(),
  topic: v.nullable(v.string()),
  slowmode: v.number(),
  nsfw: v.boolean(),
  is_meeting: v.boolean(),
  chat_enabled: v.boolean(),
});
export type Channel = v.InferOutput<typeof Channel>;

/** CONTRACT.md: `{id, server_id, name, position}`. */
export const Category = v.object({ id: Uuid, server_id: Uuid, name: v.string(), position: v.number() });
export type Category = v.InferOutput<typeof Category>;

/** A custom role (SPEC.md "Role"); also the payload of `role:created` / `role:updated`. */
export const Role = v.object({
  id: Uuid,
  server_id: Uuid,
  name: v.string(),
  color: v.string(),
  position: v.number(),
  permissions: v.number(),
  hoist: v.boolean(),
  is_default: BotFlag,
  /** Hearth's addition: the bot whose managed role this is, else null (docs/roles.md). */
  managed_bot_id: v.nullable(Uuid),
});
export type Role = v.InferOutput<typeof Role>;

export const ComponentEmoji = v.object({ name: v.string(), id: v.optional(v.string()) });
export type ComponentEmoji = v.InferOutput<typeof ComponentEmoji>;

export const BUTTON_STYLES = ["primary", "secondary", "success", "danger", "link"] as const;

const buttonEntries = { type: v.literal("button"), label: v.string(), emoji: v.optional(ComponentEmoji), disabled: v.optional(v.boolean()) };
/** A button that sends a component interaction to the bot. */
export const ActionButtonComponent = v.object({ ...buttonEntries, style: v.picklist(["primary", "secondary", "success", "danger"]), custom_id: v.string() });
export type ActionButtonComponent = v.InferOutput<typeof ActionButtonComponent>;
/** A button the client opens as a link; it never produces an interaction. */
export const LinkButtonComponent = v.object({ ...buttonEntries, style: v.literal("link"), url: v.string() });
export type LinkButtonComponent = v.InferOutput<typeof LinkButtonComponent>;
export type ButtonComponent = ActionButtonComponent | LinkButtonComponent;

export const SelectOption = v.object({
  label: v.string(),
  value: v.string(),
  description: v.optional(v.string()),
  emoji: v.optional(ComponentEmoji),
  default: v.optional(v.boolean()),
});
export type SelectOption = v.InferOutput<typeof SelectOption>;
export const StringSelectComponent = v.object({
  type: v.literal("string_select"),
  custom_id: v.string(),
  options: v.array(SelectOption),
  placeholder: v.optional(v.string()),
  min_values: v.optional(v.number()),
  max_values: v.optional(v.number()),
});
export type StringSelectComponent = v.InferOutput<typeof StringSelectComponent>;

export const SELECT_CHANNEL_TYPES = ["text", "voice"] as const;
export const ChannelSelectComponent = v.object({
  type: v.literal("channel_select"),
  custom_id: v.string(),
  placeholder: v.optional(v.string()),
  channel_types: v.optional(v.array(v.picklist(SELECT_CHANNEL_TYPES))),
  min_values: v.optional(v.number()),
  max_values: v.optional(v.number()),
});
export type ChannelSelectComponent = v.InferOutput<typeof ChannelSelectComponent>;

export const Component = v.union([ActionButtonComponent, LinkButtonComponent, StringSelectComponent, ChannelSelectComponent]);
export type Component = v.InferOutput<typeof Component>;
/** The components a user can press: everything but link buttons. */
export type InteractiveComponent = Exclude<Component, LinkButtonComponent>;

export const EmbedField = v.object({ name: v.string(), value: v.string(), inline: v.optional(v.boolean()) });
export type EmbedField = v.InferOutput<typeof EmbedField>;
export const Embed = v.object({
  title: v.optional(v.string()),
  description: v.optional(v.string()),
  url: v.optional(v.string()),
  color: v.optional(v.string()),
  fields: v.optional(v.array(EmbedField)),
  thumbnail: v.optional(v.string()),
  image: v.optional(v.string()),
  footer: v.optional(v.object({ text: v.string(), icon_url: v.optional(v.string()) })),
  author: v.optional(v.object({ name: v.string(), url: v.optional(v.string()), icon_url: v.optional(v.string()) })),
  /** ISO 8601. */
  timestamp: v.optional(v.string()),
  components: v.optional(v.array(Component)),
});
export type Embed = v.InferOutput<typeof Embed>;

export const Attachment = v.object({
  id: Uuid,
  filename: v.string(),
  original_name: v.string(),
  mime_type: v.string(),
  size: Count,
  /** An image's pixel size, read from its header at upload (docs/messages.md); null for any other file. */
  width: v.nullable(Count),
  height: v.nullable(Count),
});
export type Attachment = v.InferOutput<typeof Attachment>;

const messageEntries = {
  id: Uuid,
  channel_id: Uuid,
  user_id: Uuid,
  content: v.string(),
  created_at: UnixSeconds,
  updated_at: v.nullable(UnixSeconds),
  username: v.string(),
  avatar: ImageUrl,
  is_bot: BotFlag,
  embeds: v.array(Embed),
  attachments: v.array(Attachment),
  reply_to: v.nullable(Uuid),
  /** Echoed from the send that carried it, in its answer and `message:new` only (docs/messages.md, "Idempotent sends"). */
  nonce: v.optional(v.union([v.string(), v.number()])),
};

/** A channel message; `webhook_id` is set on a webhook's messages (CONTRACT.md). */
export const Message = v.object({ ...messageEntries, webhook_id: v.optional(v.nullable(Uuid)) });
export type Message = v.InferOutput<typeof Message>;

/** A DM message: a message whose `channel_id` is its DM's id, plus `conversation_id` (the same id; wire name kept). */
export const DmMessage = v.object({ ...messageEntries, conversation_id: Uuid });
export type DmMessage = v.InferOutput<typeof DmMessage>;

/** A member of a DM as the others see them. */
export const Recipient = v.object({ id: Uuid, username: v.string(), avatar: ImageUrl, status: Presence, is_bot: BotFlag });
export type Recipient = v.InferOutput<typeof Recipient>;

/** A 1:1 DM or a group DM (docs/dms.md); `recipients` are the other members. */
export const Dm = v.object({
  id: Uuid,
  type: v.picklist(["dm", "group"]),
  name: v.nullable(v.string()),
  icon: ImageUrl,
  owner_id: v.nullable(Uuid),
  recipients: v.array(Recipient),
  last_message_at: v.nullable(UnixSeconds),
});
export type Dm = v.InferOutput<typeof Dm>;

export const InteractionUser = v.object({ id: Uuid, username: v.string() });
export type InteractionUser = v.InferOutput<typeof InteractionUser>;

/** A voice participant as clients see it; meetingRole and handRaised mean something in meetings only. */
export const VoiceParticipant = v.object({
  socketId: v.string(),
  userId: Uuid,
  username: v.string(),
  isBot: v.boolean(),
  muted: v.boolean(),
  deafened: v.boolean(),
  video: v.boolean(),
  serverMuted: v.boolean(),
  serverDeafened: v.boolean(),
  speaking: v.boolean(),
  meetingRole: v.nullable(v.picklist(["audience", "speaker"])),
  handRaised: v.boolean(),
  /** Hearth extension (docs/audio.md, "Bots that listen"): a bot that asked to hear the room's people; always false for people. */
  listening: v.boolean(),
});
export type VoiceParticipant = v.InferOutput<typeof VoiceParticipant>;

/**
 * Someone in a voice channel as everyone who can see the channel sees them (docs/voice.md,
 * "Who is in each voice channel"): no socket, only what the channel list shows.
 */
export const VoiceOccupant = v.object({
  user_id: Uuid,
  username: v.string(),
  avatar: ImageUrl,
  muted: v.boolean(),
  deafened: v.boolean(),
  server_muted: v.boolean(),
  server_deafened: v.boolean(),
  speaking: v.boolean(),
  video: v.boolean(),
  meeting_role: v.nullable(v.picklist(["audience", "speaker"])),
});
export type VoiceOccupant = v.InferOutput<typeof VoiceOccupant>;

/** One voice room: its occupants in join order (a meeting's speakers only) and how many listen in a meeting's audience. */
export const VoiceChannelState = v.object({
  channel_id: Uuid,
  occupants: v.array(VoiceOccupant),
  /** A meeting's audience, counted; 0 outside meetings. */
  audience_count: v.number(),
});
export type VoiceChannelState = v.InferOutput<typeof VoiceChannelState>;

/** A server's, channel's or DM's notification level for one user (docs/users.md). */
export const NOTIFICATION_LEVELS = ["default", "all", "mentions", "none"] as const;

/** A user's notification setting for one server, channel or DM; `muted_until` null with `muted` true: until unmuted. */
export const NotificationOverride = v.object({
  target_type: v.picklist(["server", "channel", "dm"]),
  target_id: Uuid,
  /** `default`: the level of the target above (channel -> its server -> the account). */
  level: v.picklist(NOTIFICATION_LEVELS),
  muted: v.boolean(),
  /** Unix seconds the mute ends at; null when not muted or muted until unmuted. */
  muted_until: v.nullable(UnixSeconds),
});
export type NotificationOverride = v.InferOutput<typeof NotificationOverride>;
