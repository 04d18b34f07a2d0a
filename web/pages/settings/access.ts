/**
 * What the reader may do in a server's settings, from their own member and the roles, with the
 * server's own rules (web/lib/shared-rules.ts): permission bits, rank, the role hierarchy and
 * the grant rule of docs/roles.md and docs/permissions.md. The page offers only what this
 * allows; the server still decides and its refusal is shown.
 */
import type { Member, Role } from "../../lib/wire-types.ts";
import { basePermissionsOf } from "../../lib/permissions.ts";
import { BUILTIN_ROLES, outranks, PERMISSIONS, type BuiltinRole } from "../../lib/shared-rules.ts";

export type SectionId =
  | "overview"
  | "roles"
  | "channels"
  | "invites"
  | "members"
  | "bans"
  | "audit-log"
  | "emojis"
  | "soundboard"
  | "webhooks"
  | "bots";

/** The sections in the order the navigation shows them, under their group headings. */
export const SECTIONS: { id: SectionId; label: string; group: string }[] = [
  { id: "overview", label: "Overview", group: "Server" },
  { id: "roles", label: "Roles", group: "Server" },
  { id: "channels", label: "Channel permissions", group: "Server" },
  { id: "emojis", label: "Emojis", group: "Expressions" },
  { id: "soundboard", label: "Soundboard", group: "Expressions" },
  { id: "invites", label: "Invites", group: "People" },
  { id: "members", label: "Members", group: "People" },
  { id: "bans", label: "Bans", group: "People" },
  { id: "audit-log", label: "Audit log", group: "People" },
  { id: "webhooks", label: "Webhooks", group: "Integrations" },
  { id: "bots", label: "Bots", group: "Integrations" },
];

interface Rank {
  isOwner: boolean;
  builtinRole: BuiltinRole;
  highestRolePosition: number;
}

export interface SettingsAccess {
  /** The reader's server-wide permission bits (every bit for owners and administrators). */
  bits: number;
  isOwner: boolean;
  /** Owner, or ADMINISTRATOR by any means: not bound by the role hierarchy or the grant rule. */
  isAdmin: boolean;
  /** Owner or built-in admin: built-in roles and bots' managed roles. */
  isServerAdmin: boolean;
  /** Position of the reader's highest custom role (0: none). */
  highest: number;
  sections: SectionId[];
  has(bit: keyof typeof PERMISSIONS): boolean;
  /** Whether the reader holds every bit of `bits` (the grant rule). */
  holds(bits: number): boolean;
  /** Why the reader cannot grant or deny `bit` (they do not hold it), or null when they can. */
  notHeld(bit: number): string | null;
  /** Edit or delete a role (and move it). */
  canEditRole(role: Role): boolean;
  /** Give `role` to `target` or take it away. */
  canAssignRole(role: Role, target: Member): boolean;
  /** The reader ranks above `target` (and is not them). */
  outranks(target: Member): boolean;
  canKick(target: Member): boolean;
  canBan(target: Member): boolean;
  canTimeout(target: Member): boolean;
  canSetBuiltinRole(target: Member): boolean;
}

const builtinOf = (member: Member): BuiltinRole =>
  (BUILTIN_ROLES as readonly string[]).includes(member.role) ? (member.role as BuiltinRole) : "member";

function rankOf(member: Member, roles: Role[], ownerId: string): Rank {
  const held = new Set(member.roles);
  const highest = roles.reduce((max, r) => (held.has(r.id) && r.is_default !== 1 ? Math.max(max, r.position) : max), 0);
  return { isOwner: member.user_id === ownerId, builtinRole: builtinOf(member), highestRolePosition: highest };
}

/** `me`: the reader's own member (undefined: not a member, who may do nothing). */
export function settingsAccess(me: Member | undefined, roles: Role[], ownerId: string, meId: string): SettingsAccess {
  const bits = basePermissionsOf(me, roles, ownerId);
  const isOwner = meId === ownerId && me !== undefined;
  const has = (bit: keyof typeof PERMISSIONS) => (bits & PERMISSIONS[bit]) !== 0;
  const isAdmin = isOwner || has("ADMINISTRATOR");
  const isServerAdmin = isOwner || me?.role === "admin";
  const myRank = me ? rankOf(me, roles, ownerId) : null;
  const highest = myRank?.highestRolePosition ?? 0;
  const above = (target: Member) => Boolean(myRank && target.user_id !== meId && outranks(myRank, rankOf(target, roles, ownerId)));
  const belowMe = (role: Role) => isAdmin || role.position < highest;
  const holds = (wanted: number) => isAdmin || (wanted & ~bits) === 0;

  const sections = new Set<SectionId>();
  if (me) {
    if (has("MANAGE_SERVER")) ["overview", "invites", "audit-log", "emojis", "soundboard"].forEach((s) => sections.add(s as SectionId));
    if (has("MANAGE_ROLES")) sections.add("roles");
    if (has("MANAGE_ROLES") || has("MANAGE_CHANNELS")) sections.add("channels");
    if (has("KICK_MEMBERS") || has("BAN_MEMBERS") || has("MUTE_MEMBERS") || has("MANAGE_ROLES") || isServerAdmin) sections.add("members");
    if (has("BAN_MEMBERS")) sections.add("bans");
    if (has("MANAGE_CHANNELS")) sections.add("webhooks");
    if (has("MANAGE_ROLES") || has("KICK_MEMBERS") || isServerAdmin) sections.add("bots");
  }

  return {
    bits,
    isOwner,
    isAdmin,
    isServerAdmin,
    highest,
    sections: SECTIONS.map((s) => s.id).filter((id) => sections.has(id)),
    has,
    holds,
    notHeld: (bit) => (holds(bit) ? null : "You do not hold it, so you cannot change it."),
    canEditRole: (role) => has("MANAGE_ROLES") && belowMe(role) && (role.managed_bot_id === null || isAdmin),
    canAssignRole: (role, target) => {
      if (!has("MANAGE_ROLES") || role.is_default === 1 || !belowMe(role)) return false;
      if (role.managed_bot_id !== null && (role.managed_bot_id !== target.user_id || !isAdmin)) return false;
      return target.user_id === meId || above(target);
    },
    outranks: above,
    canKick: (target) => has("KICK_MEMBERS") && above(target),
    canBan: (target) => has("BAN_MEMBERS") && above(target),
    canTimeout: (target) => has("MUTE_MEMBERS") && above(target),
    canSetBuiltinRole: (target) => isServerAdmin && above(target),
  };
}

/** Whether a member's timeout is still running at `now` (unix seconds), as `isTimedOut` says on the server. */
export const isTimedOut = (member: Member, now = Date.now() / 1000): boolean => member.timeout_until !== null && member.timeout_until > now;
