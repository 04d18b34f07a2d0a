import * as v from "valibot";
import type { Store } from "../../store/store.ts";
import type { BanRow } from "../../store/moderation-repo.ts";
import type { UserRow } from "../../store/users-repo.ts";
import type { Access, MemberContext } from "../access/access.ts";
import type { Audit } from "../access/audit.ts";
import { badRequest, conflict, forbidden, notFound } from "../shared/errors.ts";
import { rooms, type EventBus } from "../shared/events.ts";
import type { Members } from "./members.ts";
import type { Deletions } from "./deletions.ts";
import { PERMISSIONS } from "../access/permission-bits.ts";
import { isTimedOut, type BuiltinRole } from "../access/permissions.ts";
import { isUuid } from "../shared/validation.ts";
import { UnixSeconds, Uuid } from "../shared/shapes.ts";

/** Built-in roles that `PUT /members/:id/role` may set; `owner` changes only by a transfer. */
export const ASSIGNABLE_BUILTIN_ROLES = ["admin", "moderator", "member"] as const;
type AssignableBuiltinRole = (typeof ASSIGNABLE_BUILTIN_ROLES)[number];

export const TimeoutState = v.object({ serverId: Uuid, userId: Uuid, expiresAt: v.nullable(UnixSeconds) });
export type TimeoutState = v.InferOutput<typeof TimeoutState>;

/**
 * Member moderation: kick, ban, timeout and built-in role changes. The shared routes and the
 * Bot REST routes both call these, so the bits, rank checks, events and audit entries agree.
 */
export class Moderation {
  constructor(
    private readonly store: Store,
    private readonly access: Access,
    private readonly audit: Audit,
    private readonly members: Members,
    private readonly bus: EventBus,
    private readonly deletions: Deletions,
  ) {}

  /** KICK_MEMBERS and a higher rank than the target; `member:left`, MEMBER_KICK. */
  async kick(serverId: string, actorId: string, targetUserId: string): Promise<void> {
    const actor = await this.access.requirePermission(serverId, actorId, PERMISSIONS.KICK_MEMBERS);
    const { target, user } = await this.target(actor, targetUserId);
    this.access.requireOutranks(actor, target);
    await this.members.remove(actor.server.id, target.userId);
    await this.audit.record(actor.server.id, actorId, "MEMBER_KICK", { type: "member", id: target.userId }, {
      username: user.username,
      userId: user.id,
      moderator: await this.username(actorId),
    });
  }

  /**
   * BAN_MEMBERS. The target need not be a member (ban by id); a member must rank below the
   * actor and is removed (`member:left`). `member:banned` goes to the server room and the user.
   * `deleteMessageSeconds` (Discord's `delete_message_seconds`, 0-604800): the user's messages
   * in the server from that many seconds back are deleted in the background, in batches, each
   * with its `message:deleted` (docs/moderation.md, "Bans").
   */
  async ban(serverId: string, actorId: string, targetUserId: string, reason: string | null, deleteMessageSeconds = 0): Promise<BanRow> {
    const actor = await this.access.requirePermission(serverId, actorId, PERMISSIONS.BAN_MEMBERS);
    if (targetUserId === actorId) throw forbidden("You cannot do that to yourself");
    const user = isUuid(targetUserId) ? await this.store.users.findById(targetUserId) : null;
    if (!user) throw notFound("User");
    const target = await this.access.memberOf(actor.server, user.id);
    if (target) this.access.requireOutranks(actor, target);
    const ban = await this.store.moderation.ban(actor.server.id, user.id, reason, actorId);
    if (!ban) throw conflict("This user is already banned");
    if (target) await this.members.remove(actor.server.id, user.id);
    if (deleteMessageSeconds > 0) {
      await this.store.deletions.deleteMemberMessages(actor.server.id, user.id, Math.floor(Date.now() / 1000) - deleteMessageSeconds);
      this.deletions.queued();
    }
    this.bus.publish([rooms.server(actor.server.id), rooms.user(user.id)], "member:banned", { serverId: actor.server.id, userId: user.id });
    await this.audit.record(actor.server.id, actorId, "MEMBER_BAN", { type: "member", id: user.id }, {
      username: user.username,
      userId: user.id,
      reason,
      delete_message_seconds: deleteMessageSeconds,
      moderator: await this.username(actorId),
    });
    return ban;
  }

  async unban(serverId: string, actorId: string, targetUserId: string): Promise<void> {
    const actor = await this.access.requirePermission(serverId, actorId, PERMISSIONS.BAN_MEMBERS);
    const ban = isUuid(targetUserId) ? await this.store.moderation.findBan(actor.server.id, targetUserId) : null;
    if (!ban || !(await this.store.moderation.unban(actor.server.id, ban.user_id))) throw notFound("Ban");
    await this.audit.record(actor.server.id, actorId, "MEMBER_UNBAN", { type: "member", id: ban.user_id }, {
      username: ban.username,
      userId: ban.user_id,
    });
  }

  async bans(serverId: string, actorId: string): Promise<BanRow[]> {
    const actor = await this.access.requirePermission(serverId, actorId, PERMISSIONS.BAN_MEMBERS);
    return this.store.moderation.bans(actor.server.id);
  }

  /**
   * MUTE_MEMBERS (the spec has no MODERATE_MEMBERS; a timeout mutes a member everywhere) and a
   * higher rank. A new timeout replaces a running one. While it runs the member keeps only the
   * read bits (computeBasePermissions: docs/moderation.md, "Timeouts"), so they leave voice at
   * once (no CONNECT). A timeout does not bind ADMINISTRATOR, so one is refused for them.
   * `member:timeout`, MEMBER_TIMEOUT.
   */
  async timeout(serverId: string, actorId: string, targetUserId: string, duration: number, reason: string | null): Promise<TimeoutState> {
    const actor = await this.access.requirePermission(serverId, actorId, PERMISSIONS.MUTE_MEMBERS);
    const { target, user } = await this.target(actor, targetUserId);
    this.access.requireOutranks(actor, target);
    if (target.permissions & PERMISSIONS.ADMINISTRATOR) throw forbidden("Members with ADMINISTRATOR cannot be timed out");
    const expiresAt = Math.floor(Date.now() / 1000) + duration;
    if (!(await this.store.moderation.setTimeout(actor.server.id, target.userId, expiresAt))) throw notFound("Member");
    // Bumps the permission caches, and takes the member out of voice (on whichever node).
    await this.members.syncChannelRooms(actor.server.id, { userIds: [target.userId] });
    const state = { serverId: actor.server.id, userId: target.userId, expiresAt };
    this.bus.publish([rooms.server(actor.server.id), rooms.user(target.userId)], "member:timeout", state);
    await this.audit.record(actor.server.id, actorId, "MEMBER_TIMEOUT", { type: "member", id: target.userId }, {
      username: user.username,
      userId: user.id,
      duration,
      expiresAt,
      reason,
      moderator: await this.username(actorId),
    });
    return state;
  }

  /** Ends a running timeout: `member:timeout` with expiresAt null, MEMBER_TIMEOUT_REMOVE. */
  async removeTimeout(serverId: string, actorId: string, targetUserId: string): Promise<TimeoutState> {
    const actor = await this.access.requirePermission(serverId, actorId, PERMISSIONS.MUTE_MEMBERS);
    const { target, user } = await this.target(actor, targetUserId);
    this.access.requireOutranks(actor, target);
    if (!isTimedOut(target)) throw badRequest("This member is not timed out");
    await this.store.moderation.setTimeout(actor.server.id, target.userId, null);
    this.access.permissionsChanged();
    const state = { serverId: actor.server.id, userId: target.userId, expiresAt: null };
    this.bus.publish([rooms.server(actor.server.id), rooms.user(target.userId)], "member:timeout", state);
    await this.audit.record(actor.server.id, actorId, "MEMBER_TIMEOUT_REMOVE", { type: "member", id: target.userId }, {
      username: user.username,
      userId: user.id,
      moderator: await this.username(actorId),
    });
    return state;
  }

  /**
   * Built-in role change by the owner or an admin; nobody sets `owner` here, and an admin
   * cannot change another admin (rank). Unchanged roles emit and record nothing.
   */
  async setBuiltinRole(
    serverId: string,
    actorId: string,
    targetUserId: string,
    role: AssignableBuiltinRole,
  ): Promise<{ serverId: string; userId: string; role: BuiltinRole }> {
    const actor = await this.access.requireAdmin(serverId, actorId);
    const { target, user } = await this.target(actor, targetUserId);
    this.access.requireOutranks(actor, target);
    const oldRole = target.builtinRole;
    const result = { serverId: actor.server.id, userId: target.userId, role: role as BuiltinRole };
    if (oldRole === role) return result;
    if (!(await this.store.members.setBuiltinRole(actor.server.id, target.userId, role))) throw notFound("Member");
    this.bus.publish(rooms.server(actor.server.id), "member:role-updated", result);
    // A demoted admin may no longer see every channel.
    await this.members.syncChannelRooms(actor.server.id, { userIds: [target.userId] });
    await this.audit.record(actor.server.id, actorId, "MEMBER_ROLE_UPDATE", { type: "member", id: target.userId }, {
      oldRole,
      newRole: role,
      username: user.username,
      userId: user.id,
    });
    return result;
  }

  /** The target member and their account; 404 "Member not found" for anyone else. */
  private async target(actor: MemberContext, targetUserId: string): Promise<{ target: MemberContext; user: UserRow }> {
    const target = isUuid(targetUserId) ? await this.access.memberOf(actor.server, targetUserId) : null;
    const user = target ? await this.store.users.findById(target.userId) : null;
    if (!target || !user) throw notFound("Member");
    return { target, user };
  }

  private async username(userId: string): Promise<string | null> {
    return (await this.store.users.findById(userId))?.username ?? null;
  }
}
