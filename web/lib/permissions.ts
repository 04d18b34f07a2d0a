/**
 * What the reader may do in a server, computed from the member list and the roles as the
 * server does (server-wide bits only: channel overrides are readable only by managers). The
 * app uses it to offer actions; the server still decides, and its refusal is shown.
 */
import type { Member, Role } from "./wire-types.ts";
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
