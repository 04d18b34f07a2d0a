/**
 * Wire shapes of the spec's resources (SPEC.md "Resources and their fields"), shared by REST
 * answers, gateway payloads and, later, an SDK. Domain files build these; nothing else does.
 */

import { PRESENCE_STATUSES, type PresenceStatus } from "../../store/types.ts";

/** The presence values; the store owns them (`users.status`). */
export { PRESENCE_STATUSES, type PresenceStatus };

export type ActivityType = "playing" | "listening" | "watching" | "competing" | "custom";
export interface Activity {
  type: ActivityType;
  name: string;
  details?: string;
  state?: string;
  started_at?: number;
}

/** `GET /users/me/info`: the account's own view. */
export interface MeUser {
  id: string;
  username: string;
  email: string;
  avatar: string | null;
  banner: string | null;
  banner_offset: number;
  bio: string;
  status: PresenceStatus;
  is_bot: 0 | 1;
  two_factor_enabled: boolean;
  /** Hearth extensions (docs/users.md): premium subscriber, platform administrator. */
  premium: boolean;
  platform_admin: boolean;
  created_at: number;
}

/** `GET /users/:id`: what anyone may see. */
export interface PublicUser {
  id: string;
  username: string;
  avatar: string | null;
  banner: string | null;
  banner_offset: number;
  bio: string;
  status: PresenceStatus;
  is_bot: 0 | 1;
  created_at: number;
}

/** SPEC.md "Channel"; the flags are booleans. */
export interface Channel {
  id: string;
  server_id: string;
  name: string;
  type: "text" | "voice";
  category_id: string | null;
  position: number;
  topic: string | null;
  slowmode: number;
  nsfw: boolean;
  is_meeting: boolean;
  chat_enabled: boolean;
}

/** CONTRACT.md: `{id, server_id, name, position}`. */
export interface Category {
  id: string;
  server_id: string;
  name: string;
  position: number;
}

export interface EmbedField { name: string; value: string; inline?: boolean }
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

export interface ComponentEmoji {
  name: string;
  id?: string;
}

export type ButtonStyle = "primary" | "secondary" | "success" | "danger" | "link";

interface ButtonBase {
  type: "button";
  label: string;
  emoji?: ComponentEmoji;
  disabled?: boolean;
}
/** A button that sends a component interaction to the bot. */
export interface ActionButtonComponent extends ButtonBase {
  style: Exclude<ButtonStyle, "link">;
  custom_id: string;
}
/** A button the client opens as a link; it never produces an interaction. */
export interface LinkButtonComponent extends ButtonBase {
  style: "link";
  url: string;
}
export type ButtonComponent = ActionButtonComponent | LinkButtonComponent;

export interface SelectOption {
  label: string;
  value: string;
  description?: string;
  emoji?: ComponentEmoji;
  default?: boolean;
}
export interface StringSelectComponent {
  type: "string_select";
  custom_id: string;
  options: SelectOption[];
  placeholder?: string;
  min_values?: number;
  max_values?: number;
}

export type SelectChannelType = "text" | "voice";
export interface ChannelSelectComponent {
  type: "channel_select";
  custom_id: string;
  placeholder?: string;
  channel_types?: SelectChannelType[];
  min_values?: number;
  max_values?: number;
}

export type Component = ButtonComponent | StringSelectComponent | ChannelSelectComponent;
/** The components a user can press: everything but link buttons. */
export type InteractiveComponent = Exclude<Component, LinkButtonComponent>;

export interface Attachment {
  id: string;
  filename: string;
  original_name: string;
  mime_type: string;
  size: number;
}

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
}

export interface InteractionUser { id: string; username: string }
