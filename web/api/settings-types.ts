/**
 * The wire shapes the server settings read (docs/invites.md, moderation.md, emojis.md,
 * soundboard.md, webhooks.md, channels.md). test/web/wire-types.check.ts checks that the
 * server's own types still fit these.
 */

/** A channel's or category's override for one role (docs/channels.md). */
export interface PermissionOverride {
  role_id: string;
  allow: number;
  deny: number;
}

export interface ServerInvite {
  id: string;
  code: string;
  server_id: string;
  /** null: unlimited. */
  max_uses: number | null;
  uses: number;
  /** Unix seconds; null: never. */
  expires_at: number | null;
  is_primary: boolean;
  created_by: string | null;
  created_at: number;
}

export interface Ban {
  user_id: string;
  username: string;
  avatar: string | null;
  reason: string | null;
  banned_by: string | null;
  created_at: number;
}

export interface AuditEntry {
  id: string;
  server_id: string;
  actor_id: string | null;
  actor_username: string | null;
  actor_avatar: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  target_username: string | null;
  changes: Record<string, unknown>;
  created_at: number;
}

export interface AuditPage {
  entries: AuditEntry[];
  hasMore: boolean;
}

export interface ServerEmoji {
  id: string;
  server_id: string;
  name: string;
  file_path: string;
  original_name: string;
  mime_type: string;
  size: number;
  uploaded_by: string | null;
  uploaded_by_username: string | null;
  created_at: number;
}

export interface Sound {
  id: string;
  server_id: string;
  name: string;
  icon: string;
  file_path: string;
  original_name: string;
  mime_type: string;
  size: number;
  uploaded_by: string | null;
  uploaded_by_username: string | null;
  created_at: number;
}

export interface Webhook {
  id: string;
  name: string;
  avatar: string | null;
  channel_id: string;
  server_id: string;
  token: string;
  /** A path (`/api/webhooks/<id>/<token>`); the page puts its origin in front. */
  url: string;
  created_by: string | null;
  created_at: number;
}
