/**
 * Values the store keeps in typed columns. They are defined here, not in the domain, because
 * the store never imports the domain (docs/architecture.md); the domain builds its rules on them.
 */

/** Built-in member roles (CONTRACT.md), highest first: `members.role`. */
export const BUILTIN_ROLES = ["owner", "admin", "moderator", "member"] as const;
export type BuiltinRole = (typeof BUILTIN_ROLES)[number];

/** Presence values, in the order clients list them: `users.status`. */
export const PRESENCE_STATUSES = ["online", "idle", "dnd", "offline"] as const;
export type PresenceStatus = (typeof PRESENCE_STATUSES)[number];
