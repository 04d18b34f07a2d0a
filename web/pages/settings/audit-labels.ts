/** Audit log entries in words: each action's label, what it acted on, and its changes. Pure. */
import type { AuditEntry } from "../../lib/wire-types.ts";
import type { AuditAction } from "../../lib/shared-rules.ts";

export const ACTION_LABELS: Record<AuditAction, string> = {
  MEMBER_JOIN: "Member joined",
  MEMBER_LEAVE: "Member left",
  MEMBER_KICK: "Member kicked",
  MEMBER_BAN: "Member banned",
  MEMBER_UNBAN: "Member unbanned",
  MEMBER_TIMEOUT: "Member timed out",
  MEMBER_TIMEOUT_REMOVE: "Timeout removed",
  MEMBER_ROLE_UPDATE: "Built-in role changed",
  BOT_ADD: "Bot added",
  VOICE_JOIN: "Joined voice",
  VOICE_LEAVE: "Left voice",
  VOICE_SERVER_MUTE: "Server muted",
  VOICE_SERVER_UNMUTE: "Server unmuted",
  VOICE_SERVER_DEAFEN: "Server deafened",
  VOICE_SERVER_UNDEAFEN: "Server undeafened",
  VOICE_DISCONNECT: "Disconnected from voice",
  VOICE_MOVE: "Moved to another voice channel",
  CHANNEL_CREATE: "Channel created",
  CHANNEL_UPDATE: "Channel updated",
  CHANNEL_DELETE: "Channel deleted",
  CHANNEL_DUPLICATE: "Channel duplicated",
  CHANNEL_REORDER: "Channels reordered",
  CATEGORY_CREATE: "Category created",
  CATEGORY_DELETE: "Category deleted",
  ROLE_CREATE: "Role created",
  ROLE_UPDATE: "Role updated",
  ROLE_DELETE: "Role deleted",
  ROLE_ASSIGN: "Role given",
  ROLE_UNASSIGN: "Role taken away",
  MESSAGE_EDIT: "Message edited",
  MESSAGE_DELETE: "Message deleted",
  MESSAGE_PIN: "Message pinned",
  MESSAGE_UNPIN: "Message unpinned",
  INVITE_CREATE: "Invite created",
  INVITE_DELETE: "Invite deleted",
  INVITE_REGENERATE: "Primary invite regenerated",
  SERVER_CREATE: "Server created",
  SERVER_UPDATE: "Server updated",
  SERVER_DELETE: "Server deleted",
  SERVER_ICON: "Icon changed",
  SERVER_BANNER: "Banner changed",
  SERVER_VANITY: "Vanity code changed",
  SERVER_EMOJI_UPLOAD: "Emoji uploaded",
  SERVER_EMOJI_DELETE: "Emoji deleted",
  SERVER_EMOJI_RENAME: "Emoji renamed",
  SERVER_SOUNDBOARD_UPLOAD: "Sound uploaded",
  SERVER_SOUNDBOARD_UPDATE: "Sound updated",
  SERVER_SOUNDBOARD_DELETE: "Sound deleted",
};

export const actionLabel = (action: string): string => (ACTION_LABELS as Record<string, string>)[action] ?? action;

const text = (value: unknown): string | null => (typeof value === "string" && value ? value : null);

/** Who or what the entry acted on, by name: a member, a role, a channel, an emoji, an invite. */
export function entrySubject(entry: AuditEntry): string | null {
  const c = entry.changes;
  if (entry.target_type === "member" || entry.target_type === "user") return entry.target_username ?? text(c.username);
  if (entry.target_type === "role") return text(c.role);
  if (entry.target_type === "invite") return text(c.code);
  if (entry.target_type === "channel" || entry.target_type === "category") {
    const name = text(c.name) ?? text((c.name as { new?: unknown } | undefined)?.new);
    return name && entry.target_type === "channel" && !entry.action.startsWith("CATEGORY") ? `#${name}` : name;
  }
  return text(c.name) ?? text(c.username) ?? null;
}

/** Keys that only repeat ids the entry already names. */
const HIDDEN = new Set(["roleId", "userId", "role_id", "source_id"]);

function valueText(value: unknown): string {
  if (value === null || value === undefined) return "none";
  if (typeof value === "string") return value || "(empty)";
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/** The entry's changes as "field: value" or "field: old → new" lines. */
export function changeLines(entry: AuditEntry): string[] {
  const lines: string[] = [];
  for (const [key, value] of Object.entries(entry.changes)) {
    if (HIDDEN.has(key)) continue;
    if (value && typeof value === "object" && "old" in value && "new" in value) {
      const change = value as { old: unknown; new: unknown };
      lines.push(`${key}: ${valueText(change.old)} → ${valueText(change.new)}`);
    } else {
      lines.push(`${key}: ${valueText(value)}`);
    }
  }
  return lines;
}
