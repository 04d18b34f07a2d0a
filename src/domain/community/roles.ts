import type { Store } from "../../store/store.ts";
import type { MovedRole, RoleRow } from "../../store/roles-repo.ts";
import type { Access, MemberContext } from "../access/access.ts";
import type { Audit } from "../access/audit.ts";
import { badRequest, forbidden, notFound } from "../shared/errors.ts";
import { rooms, type EventBus } from "../shared/events.ts";
import type { Members } from "./members.ts";
import { PERMISSIONS } from "../access/permission-bits.ts";
import { hasPermission } from "../access/permissions.ts";
import { isUuid } from "../shared/validation.ts";
import type { NewRoleInput, RoleChangesInput } from "./role-schemas.ts";
import type { Role } from "../shared/shapes.ts";
import { capReached, type ResourceCaps } from "../shared/caps.ts";

/**
 * SPEC.md "Role" (its shape: ../shared/shapes.ts). `hoist` is a boolean; `is_default` 1 only for
 * `@everyone`; `managed_bot_id` (Hearth's addition) is the bot whose managed role this is, else null.
 */
export type { Role };

export const toRole = (row: RoleRow): Role => ({
  id: row.id,
  server_id: row.server_id,
  name: row.name,
  color: row.color,
  position: row.position,
  permissions: row.permissions,
  hoist: row.hoist === 1,
  is_default: row.is_default === 1 ? 1 : 0,
  managed_bot_id: row.managed_bot_id,
});

export const DEFAULT_ROLE_COLOR = "#99AAB5";

/** Owner, or anyone whose server permissions include ADMINISTRATOR (built-in admin included). */
const isAdmin = (member: MemberContext) => member.isOwner || hasPermission(member.permissions, PERMISSIONS.ADMINISTRATOR);

/**
 * Custom roles: CRUD, order and assignment. Every path that assigns a role (user REST, bot REST)
 * comes through here, so the hierarchy and grant rules cannot drift apart.
 *
 * Hierarchy: a member who is neither the owner nor an administrator may only manage roles
 * strictly below their own highest role, and may only set permission bits they hold.
 */
export class Roles {
  constructor(
    private readonly store: Store,
    private readonly access: Access,
    private readonly audit: Audit,
    private readonly members: Members,
    private readonly bus: EventBus,
    private readonly caps: ResourceCaps,
    /** Above this many members a deleted role's holders are not told one by one (docs/roles.md, "Delete"). */
    private readonly largeServerMembers: number,
  ) {}

  async list(serverId: string, userId: string): Promise<Role[]> {
    const member = await this.access.member(serverId, userId);
    return (await this.store.roles.list(member.server.id)).map(toRole);
  }

  async get(serverId: string, userId: string, roleId: string): Promise<Role> {
    const member = await this.access.member(serverId, userId);
    return toRole(await this.find(member.server.id, roleId));
  }

  /** The target's custom roles (not `@everyone`), highest first. */
  async ofMember(serverId: string, userId: string, targetUserId: string): Promise<Role[]> {
    const member = await this.access.member(serverId, userId);
    await this.requireMember(member, targetUserId);
    return (await this.store.roles.ofMember(member.server.id, targetUserId)).map(toRole);
  }

  /**
   * A new role starts at the bottom, position 1 just above `@everyone`, as Discord's do: every
   * custom role moves up one in the same transaction (`role:updated` for each). So whoever
   * manages roles (a moderator, a bot with MANAGE_ROLES) can manage and assign it at once.
   */
  async create(serverId: string, userId: string, input: NewRoleInput): Promise<Role> {
    const actor = await this.access.requirePermission(serverId, userId, PERMISSIONS.MANAGE_ROLES);
    const permissions = input.permissions ?? 0;
    this.access.requireHeldBits(actor, permissions);
    const inserted = await this.store.roles.create({
      serverId: actor.server.id,
      name: input.name,
      color: normalizeColor(input.color ?? DEFAULT_ROLE_COLOR),
      permissions,
      hoist: input.hoist ?? false,
      position: 1,
    }, this.caps.rolesPerServer);
    if (!inserted) throw capReached.roles(this.caps);
    const { role, moved } = inserted;
    const created = toRole(role);
    this.bus.publish(rooms.server(actor.server.id), "role:created", { ...created });
    this.publishMoved(actor.server.id, moved);
    await this.audit.record(actor.server.id, userId, "ROLE_CREATE", { type: "role", id: role.id }, {
      roleId: role.id,
      role: role.name,
      color: role.color,
      permissions: role.permissions,
      hoist: created.hoist,
      position: role.position,
    });
    return created;
  }

  /** The default role keeps its name; a bot's managed role is edited by administrators only. */
  async update(serverId: string, userId: string, roleId: string, changes: RoleChangesInput): Promise<Role> {
    const actor = await this.access.requirePermission(serverId, userId, PERMISSIONS.MANAGE_ROLES);
    const role = await this.find(actor.server.id, roleId);
    this.requireManageable(actor, role);
    if (role.is_default && changes.name !== undefined && changes.name !== role.name) {
      throw badRequest("name: the default role cannot be renamed");
    }
    if (changes.permissions !== undefined) this.access.requireHeldBits(actor, changes.permissions ^ role.permissions);
    const color = changes.color === undefined ? undefined : normalizeColor(changes.color);
    const row = await this.store.roles.update(actor.server.id, role.id, { ...changes, color });
    if (!row) throw notFound("Role");
    const updated = toRole(row);
    const before = toRole(role);
    const diff: Record<string, { old: unknown; new: unknown }> = {};
    for (const key of ["name", "color", "permissions", "hoist"] as const) {
      if (before[key] !== updated[key]) diff[key] = { old: before[key], new: updated[key] };
    }
    if (Object.keys(diff).length === 0) return updated;
    this.bus.publish(rooms.server(actor.server.id), "role:updated", { ...updated });
    await this.audit.record(actor.server.id, userId, "ROLE_UPDATE", { type: "role", id: role.id }, {
      roleId: role.id,
      role: row.name,
      ...diff,
    });
    if (diff.permissions) await this.members.syncChannelRooms(actor.server.id);
    return updated;
  }

  /** Never the default role; a bot's managed role only by administrators. */
  async delete(serverId: string, userId: string, roleId: string): Promise<void> {
    const actor = await this.access.requirePermission(serverId, userId, PERMISSIONS.MANAGE_ROLES);
    const role = await this.find(actor.server.id, roleId);
    if (role.is_default) throw badRequest("The default role cannot be deleted");
    this.requireManageable(actor, role);
    // A large server's holders may be most of its members: role:deleted tells every client they
    // hold it no more, and the rooms of the connected ones are checked, whoever they are.
    const large = actor.server.member_count > this.largeServerMembers;
    const holders = large ? null : await this.store.roles.holders(role.id);
    const result = await this.store.roles.delete(actor.server.id, role.id);
    if (!result) throw notFound("Role");
    this.bus.publish(rooms.server(actor.server.id), "role:deleted", role.id);
    this.publishMoved(actor.server.id, result.moved);
    for (const holder of holders ?? []) this.publishRolesUpdated(actor.server.id, holder);
    await this.audit.record(actor.server.id, userId, "ROLE_DELETE", { type: "role", id: role.id }, {
      roleId: role.id,
      role: role.name,
    });
    if (!holders) await this.members.syncChannelRooms(actor.server.id);
    else if (holders.length) await this.members.syncChannelRooms(actor.server.id, { userIds: holders });
  }

  /**
   * Moves the listed roles to the listed positions (1 = just above `@everyone`, up to the number
   * of custom roles) and fills the other slots with the unlisted roles in their current order.
   * `@everyone` stays at 0. Non-administrators may only move roles below their highest role to
   * positions below it. Answers every role, highest first.
   */
  async reorder(serverId: string, userId: string, order: { id: string; position: number }[]): Promise<Role[]> {
    const actor = await this.access.requirePermission(serverId, userId, PERMISSIONS.MANAGE_ROLES);
    const moved = await this.store.roles.reorder(actor.server.id, (roles) => planReorder(roles, order, actor));
    this.publishMoved(actor.server.id, moved);
    for (const { role, from } of moved) {
      await this.audit.record(actor.server.id, userId, "ROLE_UPDATE", { type: "role", id: role.id }, {
        roleId: role.id,
        role: role.name,
        position: { old: from, new: role.position },
      });
    }
    return (await this.store.roles.list(actor.server.id)).map(toRole);
  }

  /**
   * Gives `targetUserId` a custom role. The actor needs MANAGE_ROLES, must outrank the target
   * (or be the target), and unless owner/administrator the role must sit below their highest.
   * Holding the role already is a no-op (no event, no audit entry).
   */
  async assign(serverId: string, actorId: string, targetUserId: string, roleId: string): Promise<void> {
    const { actor, target, role } = await this.prepareAssignment(serverId, actorId, targetUserId, roleId);
    if (!(await this.store.roles.assign(actor.server.id, target.userId, role.id))) return;
    await this.afterAssignment(actor, target.userId, role, "ROLE_ASSIGN");
  }

  /** Takes a custom role away; the same checks as assign. Not holding it is a no-op. */
  async unassign(serverId: string, actorId: string, targetUserId: string, roleId: string): Promise<void> {
    const { actor, target, role } = await this.prepareAssignment(serverId, actorId, targetUserId, roleId);
    if (!(await this.store.roles.unassign(actor.server.id, target.userId, role.id))) return;
    await this.afterAssignment(actor, target.userId, role, "ROLE_UNASSIGN");
  }

  private async prepareAssignment(serverId: string, actorId: string, targetUserId: string, roleId: string) {
    const actor = await this.access.requirePermission(serverId, actorId, PERMISSIONS.MANAGE_ROLES);
    const target = await this.requireMember(actor, targetUserId);
    const role = await this.find(actor.server.id, roleId);
    if (role.is_default) throw badRequest("The default role belongs to every member and cannot be assigned or removed");
    if (role.managed_bot_id !== null) {
      if (role.managed_bot_id !== target.userId) throw badRequest("A bot's managed role cannot be assigned to other members");
      if (!isAdmin(actor)) throw forbidden("Only server admins and the owner can change a bot's managed role");
    }
    if (target.userId !== actor.userId) this.access.requireOutranks(actor, target);
    this.requireBelowActor(actor, role);
    return { actor, target, role };
  }

  private async afterAssignment(actor: MemberContext, targetUserId: string, role: RoleRow, action: "ROLE_ASSIGN" | "ROLE_UNASSIGN") {
    const serverId = actor.server.id;
    this.publishRolesUpdated(serverId, targetUserId);
    const user = await this.store.users.findById(targetUserId);
    await this.audit.record(serverId, actor.userId, action, { type: "member", id: targetUserId }, {
      roleId: role.id,
      role: role.name,
      userId: targetUserId,
      username: user?.username ?? null,
    });
    // A role's channel overrides can deny VIEW_CHANNEL, so either direction can hide channels.
    await this.members.syncChannelRooms(serverId, { userIds: [targetUserId] });
  }

  private publishRolesUpdated(serverId: string, userId: string) {
    this.bus.publish([rooms.server(serverId), rooms.user(userId)], "member:roles-updated", { serverId, userId });
  }

  private publishMoved(serverId: string, moved: MovedRole[]) {
    for (const { role } of moved) this.bus.publish(rooms.server(serverId), "role:updated", { ...toRole(role) });
  }

  private async find(serverId: string, roleId: string): Promise<RoleRow> {
    const role = isUuid(roleId) ? await this.store.roles.find(serverId, roleId) : null;
    if (!role) throw notFound("Role");
    return role;
  }

  private async requireMember(actor: MemberContext, targetUserId: string): Promise<MemberContext> {
    const target = isUuid(targetUserId) ? await this.access.memberOf(actor.server, targetUserId) : null;
    if (!target) throw notFound("Member");
    return target;
  }

  /** Edit or delete: below the actor's highest role, and a managed role only by administrators. */
  private requireManageable(actor: MemberContext, role: RoleRow) {
    if (role.managed_bot_id !== null && !isAdmin(actor)) {
      throw forbidden("Only server admins and the owner can change a bot's managed role");
    }
    this.requireBelowActor(actor, role);
  }

  private requireBelowActor(actor: MemberContext, role: { position: number }) {
    if (!isAdmin(actor) && role.position >= actor.highestRolePosition) {
      throw forbidden("You can only manage roles below your highest role");
    }
  }

}

/** `#rrggbb` in any case is stored upper-case. */
export const normalizeColor = (color: string) => color.toUpperCase();

/**
 * The new position of every custom role after moving `order`'s roles to their slots. Throws a
 * 400 for unknown or repeated ids and positions outside 1..n, a 403 for a non-administrator
 * touching a role or slot at or above their highest role.
 */
function planReorder(
  roles: RoleRow[],
  order: { id: string; position: number }[],
  actor: MemberContext,
): Map<string, number> {
  const custom = roles.filter((r) => !r.is_default).sort((a, b) => a.position - b.position);
  const byId = new Map(roles.map((r) => [r.id, r]));
  const slots: (RoleRow | undefined)[] = new Array(custom.length);
  const listed = new Set<string>();
  for (const [index, entry] of order.entries()) {
    const role = byId.get(entry.id);
    if (!role) throw badRequest(`${index}.id: not a role of this server`);
    if (listed.has(role.id)) throw badRequest(`${index}.id: listed twice`);
    listed.add(role.id);
    if (role.is_default) {
      if (entry.position !== 0) throw badRequest(`${index}.position: the default role stays at position 0`);
      continue;
    }
    if (entry.position < 1 || entry.position > custom.length) {
      throw badRequest(`${index}.position: must be between 1 and ${custom.length}`);
    }
    if (slots[entry.position - 1]) throw badRequest(`${index}.position: two roles cannot share position ${entry.position}`);
    if (!isAdmin(actor) && (role.position >= actor.highestRolePosition || entry.position >= actor.highestRolePosition)) {
      throw forbidden("You can only move roles below your highest role, to positions below it");
    }
    slots[entry.position - 1] = role;
  }
  const rest = custom.filter((r) => !listed.has(r.id));
  const positions = new Map<string, number>();
  for (let i = 0; i < slots.length; i++) {
    const role = slots[i] ?? rest.shift()!;
    positions.set(role.id, i + 1);
  }
  return positions;
}
