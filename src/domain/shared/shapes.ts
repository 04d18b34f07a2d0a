/**
 * Wire shapes of the spec's resources (SPEC.md "Resources and their fields"), shared by REST
 * answers, gateway payloads and, later, an SDK. Domain files build these; nothing else does.
 */

export type PresenceStatus = "online" | "idle" | "dnd" | "offline";
export const PRESENCE_STATUSES: readonly PresenceStatus[] = ["online", "idle", "dnd", "offline"];

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
  components?: import("../messaging/embeds.ts").Component[];
}

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
