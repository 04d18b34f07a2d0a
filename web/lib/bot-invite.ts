/**
 * Bot invite links (SPEC "Adding a bot to a server"): `/invite?bot=<bot_user_id>&permissions=<bitfield>`,
 * read from a page's query and written for the developer portal. Pure.
 */
import { ALL_PERMISSIONS } from "./shared-rules.ts";

interface BotInviteQuery {
  botUserId: string | null;
  /** The bitfield of the link; null when the link has none. */
  permissions: number | null;
  /** Set when the link carries a `permissions` value that is not a bitfield of defined bits. */
  invalidPermissions: string | null;
}

/** Reads the query of an invite link. */
export function parseBotInviteQuery(query: Record<string, string | undefined>): BotInviteQuery {
  const botUserId = query.bot?.trim() || null;
  const raw = query.permissions?.trim();
  if (raw === undefined || raw === "") return { botUserId, permissions: null, invalidPermissions: null };
  const bits = /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(bits) || (bits & ~ALL_PERMISSIONS) !== 0) return { botUserId, permissions: null, invalidPermissions: raw };
  return { botUserId, permissions: bits, invalidPermissions: null };
}

/** The full invite link of a bot for `permissions`, on this origin. */
export function botInviteUrl(origin: string, botUserId: string, permissions: number): string {
  return `${origin}/invite?bot=${encodeURIComponent(botUserId)}&permissions=${permissions}`;
}
