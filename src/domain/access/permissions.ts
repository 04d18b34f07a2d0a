import { BUILTIN_ROLES, type BuiltinRole } from "../../store/types.ts";
import { nowSeconds } from "../../store/time.ts";
import { ALL_PERMISSIONS, PERMISSIONS } from "./permission-bits.ts";

/** Built-in member roles (CONTRACT.md): the store owns the values (`members.role`). */
export { BUILTIN_ROLES, type BuiltinRole };

const RANK: Record<BuiltinRole, number> = { owner: 3, admin: 2, moderator: 1, member: 0 };

/**
 * Bits a built-in role adds to a member's base. Admins administer the server; moderators
 * moderate members and messages; members get what their roles give.
 */
const BUILTIN_ROLE_PERMISSIONS: Record<BuiltinRole, number> = {
  owner: ALL_PERMISSIONS,
  admin: PERMISSIONS.ADMINISTRATOR,
  moderator:
    PERMISSIONS.KICK_MEMBERS |
    PERMISSIONS.BAN_MEMBERS |
    PERMISSIONS.MANAGE_MESSAGES |
    PERMISSIONS.MUTE_MEMBERS |
    PERMISSIONS.DEAFEN_MEMBERS |
    PERMISSIONS.MOVE_MEMBERS |
    PERMISSIONS.MANAGE_REACTIONS,
  member: 0,
};

/** A channel or category override for one role. */
export interface Override {
  roleId: string;
  allow: number;
  deny: number;
}

/** What the engine needs to know about a member. */
export interface MemberPermissionInput {
  isOwner: boolean;
  builtinRole: BuiltinRole;
  /** Permissions of the server's default role (`@everyone`). */
  everyonePermissions: number;
  everyoneRoleId: string;
  /** The member's custom roles (the bot's managed role included). */
  roles: { id: string; permissions: number }[];
  /** Unix seconds when the member's timeout ends; null (or a time past) when not timed out. */
  timeoutUntil: number | null;
}

/** What a timed-out member keeps (Discord's timeout): reading the channels they can see. */
export const TIMEOUT_PERMISSIONS = PERMISSIONS.VIEW_CHANNEL | PERMISSIONS.READ_MESSAGE_HISTORY;

/**
 * Whether a timeout is running at `now` (unix seconds; the clock when absent, read only for a
 * member who has a timeout). An expired timeout needs no clean-up: it simply stops counting.
 */
export function isTimedOut(member: { timeoutUntil: number | null }, now?: number): boolean {
  return member.timeoutUntil !== null && member.timeoutUntil > (now ?? nowSeconds());
}

/**
 * Whether a running timeout takes the member's bits away: always, except for the owner and
 * ADMINISTRATOR, whom a timeout does not bind (as on Discord).
 */
export function isRestrainedByTimeout(member: MemberPermissionInput, now?: number): boolean {
  return restrained(member, heldPermissions(member), now);
}

/** The timeout rule, given what the member's roles hold: bound unless they hold every bit. */
function restrained(member: MemberPermissionInput, held: number, now: number | undefined): boolean {
  return held !== ALL_PERMISSIONS && isTimedOut(member, now);
}

/** What the member's roles give server-wide, before a timeout is applied. */
function heldPermissions(member: MemberPermissionInput): number {
  if (member.isOwner) return ALL_PERMISSIONS;
  let base = member.everyonePermissions | BUILTIN_ROLE_PERMISSIONS[member.builtinRole];
  for (const role of member.roles) base |= role.permissions;
  return base & PERMISSIONS.ADMINISTRATOR ? ALL_PERMISSIONS : base & ALL_PERMISSIONS;
}

/**
 * Server-wide permissions: owner and ADMINISTRATOR hold every bit; otherwise the default role
 * OR the member's custom roles OR the bits of their built-in role. A running timeout leaves
 * only TIMEOUT_PERMISSIONS of that (the one timeout rule: every check of a bit follows it).
 */
export function computeBasePermissions(member: MemberPermissionInput, now?: number): number {
  const held = heldPermissions(member);
  return restrained(member, held, now) ? held & TIMEOUT_PERMISSIONS : held;
}

/**
 * Permissions in a channel: the base, then the category's overrides (when the channel has a
 * category), then the channel's own. At each level the `@everyone` override applies first
 * (`p &= ~deny; p |= allow`), then the member's role overrides together
 * (`p &= ~(OR of denies); p |= (OR of allows)`). A bit both allowed and denied by one
 * override counts as denied. Owner and ADMINISTRATOR skip overrides entirely. A running
 * timeout leaves only TIMEOUT_PERMISSIONS of the result, so no override gives a bit back.
 */
export function computeChannelPermissions(
  member: MemberPermissionInput,
  categoryOverrides: Override[],
  channelOverrides: Override[],
  now?: number,
): number {
  const held = heldPermissions(member);
  if (held === ALL_PERMISSIONS) return ALL_PERMISSIONS;
  const memberRoleIds = new Set(member.roles.map((r) => r.id));
  let p = held;
  for (const overrides of [categoryOverrides, channelOverrides]) {
    p = applyOverrides(p, overrides, member.everyoneRoleId, memberRoleIds);
  }
  return restrained(member, held, now) ? p & TIMEOUT_PERMISSIONS : p;
}

function applyOverrides(p: number, overrides: Override[], everyoneRoleId: string, memberRoleIds: Set<string>): number {
  let everyone: Override | undefined;
  let allow = 0;
  let deny = 0;
  for (const o of overrides) {
    if (o.roleId === everyoneRoleId) everyone = o;
    else if (memberRoleIds.has(o.roleId)) {
      deny |= o.deny;
      allow |= o.allow & ~o.deny;
    }
  }
  if (everyone) {
    p &= ~everyone.deny;
    p |= everyone.allow & ~everyone.deny;
  }
  p &= ~deny;
  p |= allow;
  return p;
}

export const hasPermission = (permissions: number, bit: number) => (permissions & bit) === bit;

/**
 * Whether `actor` may act on `target` (kick, ban, time out, change roles): the owner may act
 * on anyone else; otherwise only on someone of a strictly lower built-in role, or of the same
 * built-in role whose highest custom role sits strictly below the actor's.
 */
export function outranks(
  actor: { isOwner: boolean; builtinRole: BuiltinRole; highestRolePosition: number },
  target: { isOwner: boolean; builtinRole: BuiltinRole; highestRolePosition: number },
): boolean {
  if (target.isOwner) return false;
  if (actor.isOwner) return true;
  const a = RANK[actor.builtinRole];
  const t = RANK[target.builtinRole];
  if (a !== t) return a > t;
  return actor.highestRolePosition > target.highestRolePosition;
}
