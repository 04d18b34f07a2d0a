/**
 * What the reader may do in a server, computed from the member list and the roles as the
 * server does (server-wide bits only: channel overrides are readable only by managers). The
 * app uses it to offer actions; the server still decides, and its refusal is shown.
 */
import type { Channel, Member, MyChannelPermissions, Role } from "./wire-types.ts";
import { BUILTIN_ROLES, computeBasePermissions, PERMISSIONS, type BuiltinRole } from "./shared-rules.ts";

export function basePermissionsOf(member: Member | undefined, roles: Role[], ownerId: string): number {
  if (!member) return 0;
  const everyone = roles.find((role) => role.is_default === 1);
  const builtin = (BUILTIN_ROLES as readonly string[]).includes(member.role) ? (member.role as BuiltinRole) : "member";
  const held = new Set(member.roles);
  return computeBasePermissions({
    isOwner: member.user_id === ownerId,
    builtinRole: builtin,
    everyonePermissions: everyone?.permissions ?? 0,
    everyoneRoleId: everyone?.id ?? "",
    roles: roles.filter((role) => held.has(role.id) && role.is_default !== 1),
    timeoutUntil: member.timeout_until,
  });
}

export const can = (bits: number, permission: keyof typeof PERMISSIONS): boolean => (bits & PERMISSIONS[permission]) !== 0;

/** Why the composer of a channel is not offered, or null when it is (or while the reader's bits are not known yet). */
export type CannotSend = { kind: "voice-chat-off" } | { kind: "timed-out"; until: number } | { kind: "no-permission" };

export function whyCannotSend(channel: Pick<Channel, "type" | "chat_enabled">, mine: MyChannelPermissions | null, nowSeconds: number): CannotSend | null {
  if (channel.type === "voice" && !channel.chat_enabled) return { kind: "voice-chat-off" };
  if (!mine) return null;
  // Bits worked out under a timeout that has ended since: offered again while they are asked for anew.
  if (mine.timeout_until !== null) return mine.timeout_until > nowSeconds ? { kind: "timed-out", until: mine.timeout_until } : null;
  return can(mine.permissions, "SEND_MESSAGES") ? null : { kind: "no-permission" };
}
