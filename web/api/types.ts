/**
 * The wire shapes the app reads, as docs/*.md describe them (the spec's resources plus the
 * fields Hearth adds). Only what the app uses; test/web/wire-types.test.ts checks that the
 * server's own types still fit these.
 */

export type PresenceStatus = "online" | "idle" | "dnd" | "offline";

export interface MeUser {
  id: string;
  username: string;
  email: string;
  avatar: string | null;
  status: PresenceStatus;
  is_bot: 0 | 1;
  two_factor_enabled: boolean;
  created_at: number;
  /** Premium subscriber (plays soundboard sounds). */
  premium: boolean;
}

export interface Session {
  token: string;
  user: MeUser;
}

export interface Server {
  id: string;
  name: string;
  description: string;
  icon: string | null;
  banner: string | null;
  /** How far down the banner image is shown, 0-100 (CSS object-position). */
  banner_offset: number;
  owner_id: string;
  member_count: number;
}

export interface Channel {
  id: string;
  server_id: string;
  name: string;
  type: "text" | "voice";
  category_id: string | null;
  position: number;
  topic: string | null;
  chat_enabled: boolean;
  /** Voice channels: a meeting (audience and speakers). */
  is_meeting: boolean;
}

export interface Category {
  id: string;
  server_id: string;
  name: string;
  position: number;
}

export interface ChannelList {
  channels: Channel[];
  categories: Category[];
}

export interface Member {
  user_id: string;
  username: string;
  avatar: string | null;
  status: PresenceStatus;
  /** The built-in role: owner, admin, moderator or member. */
  role: string;
  /** Custom role ids. */
  roles: string[];
  is_bot: 0 | 1;
  joined_at: number;
  /** Unix seconds while a timeout may be running (it is over once past). */
  timeout_until: number | null;
}

export interface Role {
  id: string;
  server_id: string;
  name: string;
  color: string;
  position: number;
  permissions: number;
  hoist: boolean;
  is_default: 0 | 1;
  /** The bot whose managed role this is (docs/roles.md), else null. */
  managed_bot_id: string | null;
}

export interface Invite {
  id: string;
  code: string;
  server_id: string;
}

export interface Emoji {
  id: string;
  server_id: string;
  name: string;
}

export interface EmbedField {
  name: string;
  value: string;
  inline?: boolean;
}

export interface ComponentEmoji {
  name: string;
  id?: string;
}

export interface ActionButton {
  type: "button";
  style: "primary" | "secondary" | "success" | "danger";
  label: string;
  custom_id: string;
  emoji?: ComponentEmoji;
  disabled?: boolean;
}

export interface LinkButton {
  type: "button";
  style: "link";
  label: string;
  url: string;
  emoji?: ComponentEmoji;
  disabled?: boolean;
}

export interface SelectOption {
  label: string;
  value: string;
  description?: string;
  emoji?: ComponentEmoji;
  default?: boolean;
}

export interface StringSelect {
  type: "string_select";
  custom_id: string;
  options: SelectOption[];
  placeholder?: string;
  min_values?: number;
  max_values?: number;
}

export interface ChannelSelect {
  type: "channel_select";
  custom_id: string;
  placeholder?: string;
  channel_types?: ("text" | "voice")[];
  min_values?: number;
  max_values?: number;
}

export type Component = ActionButton | LinkButton | StringSelect | ChannelSelect;

export interface Embed {
  title?: string;
  description?: string;
  url?: string;
  color?: string;
  fields?: EmbedField[];
  thumbnail?: string;
  image?: string;
  footer?: { text: string; icon_url?: string };
  author?: { name: string; url?: string; icon_url?: string };
  timestamp?: string;
  components?: Component[];
}

export interface Attachment {
  id: string;
  filename: string;
  original_name: string;
  mime_type: string;
  size: number;
}

/** A channel message, or a DM message (which adds `conversation_id`, equal to `channel_id`). */
export interface Message {
  id: string;
  channel_id: string;
  user_id: string;
  content: string;
  created_at: number;
  updated_at: number | null;
  username: string;
  avatar: string | null;
  is_bot: 0 | 1;
  embeds: Embed[];
  attachments: Attachment[];
  reply_to: string | null;
  webhook_id?: string | null;
  conversation_id?: string;
}

export interface ReactionSummary {
  emoji: string;
  count: number;
  users: { id: string; username: string }[];
}

export interface CommandOption {
  name: string;
  description: string;
  type: number;
  required: boolean;
  choices?: { name: string; value: string | number }[];
  min_value?: number;
  max_value?: number;
  max_length?: number;
}

/** A command usable in a server, with the bot that answers it. */
export interface ServerCommand {
  id: string;
  name: string;
  description: string;
  options: CommandOption[];
  bot_id: string;
  bot_name: string;
  bot_avatar: string | null;
  app_name: string;
}

export interface Recipient {
  id: string;
  username: string;
  avatar: string | null;
  status: PresenceStatus;
  is_bot: 0 | 1;
}

export interface Conversation {
  id: string;
  type: "dm" | "group";
  name: string | null;
  owner_id: string | null;
  recipients: Recipient[];
  last_message_at: number | null;
}
