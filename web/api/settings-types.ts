/**
 * The wire shapes the server settings read (docs/invites.md, moderation.md, emojis.md,
 * soundboard.md, webhooks.md, channels.md): the reference's named schemas, generated in
 * sdk/src/generated/schemas.ts (see web/api/types.ts).
 */
import type * as S from "../../sdk/src/generated/schemas.ts";

/** A channel's or category's override for one role (docs/channels.md). */
export type PermissionOverride = S.PermissionOverride;
/** `max_uses` null: unlimited; `expires_at` unix seconds, null: never. */
export type ServerInvite = S.Invite;
export type Ban = S.Ban;
export type AuditEntry = S.AuditEntry;
export type AuditPage = S.AuditLogPage;
export type ServerEmoji = S.Emoji;
export type Sound = S.Sound;
/** `url` is a path (`/api/webhooks/<id>/<token>`); the page puts its origin in front. */
export type Webhook = S.Webhook;
