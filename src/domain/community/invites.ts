import * as v from "valibot";
import type { Store } from "../../store/store.ts";
import type { InviteRow, InviteUseRow } from "../../store/invites-repo.ts";
import type { UserRow } from "../../store/users-repo.ts";
import { requireNotTimedOut, type Access } from "../access/access.ts";
import type { Audit } from "../access/audit.ts";
import { badRequest, forbidden, notFound } from "../shared/errors.ts";
import type { Members } from "./members.ts";
import { PERMISSIONS } from "../access/permission-bits.ts";
import { hasPermission } from "../access/permissions.ts";
import { newInviteCode, type Server, type Servers } from "./servers.ts";
import { isUuid } from "../shared/validation.ts";
import { LIMITS } from "../shared/limits.ts";
import { capReached, type ResourceCaps } from "../shared/caps.ts";
import { UnixSeconds, Uuid } from "../shared/shapes.ts";

/** The invite object (CONTRACT.md), plus whether it is the server's primary invite. */
export const Invite = v.object({
  id: Uuid,
  code: v.string(),
  server_id: Uuid,
  max_uses: v.nullable(v.number()),
  uses: v.number(),
  expires_at: v.nullable(UnixSeconds),
  is_primary: v.boolean(),
  created_by: v.nullable(Uuid),
  created_at: UnixSeconds,
});
export type Invite = v.InferOutput<typeof Invite>;

/**
 * What an invite link shows before it is accepted (docs/invites.md, "Looking an invite up"): the
 * server's public face, its counts, who made the invite, and whether the caller is in already.
 * `online_count` is null in servers above the large-server size, whose presence is not kept
 * server-wide (docs/gateway.md, "Presence").
 */
export const InvitePreview = v.object({
  code: v.string(),
  expires_at: v.nullable(UnixSeconds),
  max_uses: v.nullable(v.number()),
  uses: v.nullable(v.number()),
  server: v.object({
    id: Uuid,
    name: v.string(),
    description: v.string(),
    icon: v.nullable(v.string()),
    banner: v.nullable(v.string()),
    member_count: v.number(),
    online_count: v.nullable(v.number()),
  }),
  inviter: v.nullable(v.object({ id: Uuid, username: v.string(), avatar: v.nullable(v.string()) })),
  is_member: v.boolean(),
});
export type InvitePreview = v.InferOutput<typeof InvitePreview>;

const toInvite = (row: InviteRow): Invite => ({
  id: row.id,
  code: row.code,
  server_id: row.server_id,
  max_uses: row.max_uses,
  uses: row.uses,
  expires_at: row.expires_at,
  is_primary: row.is_primary === 1,
  created_by: row.created_by,
  created_at: row.created_at,
});

/**
 * Server invites: any member may create one, unless a timeout restrains them (the spec has no
 * CREATE_INSTANT_INVITE bit for the timeout to take away, and Discord's `@everyone` holds it by
 * default); listing, use history and regenerating the primary code need MANAGE_SERVER;
 * deleting needs the creator or MANAGE_SERVER.
 */
export class Invites {
  constructor(
    private readonly store: Store,
    private readonly access: Access,
    private readonly audit: Audit,
    private readonly members: Members,
    private readonly servers: Servers,
    private readonly caps: ResourceCaps,
    /** LARGE_SERVER_MEMBERS: above it, a preview counts no one online. */
    private readonly largeServerMembers: number,
  ) {}

  /** `maxUses` 0 or absent: unlimited; `expiresIn` seconds, 0 or absent: never. */
  async create(serverId: string, userId: string, options: { maxUses?: number; expiresIn?: number }): Promise<Invite> {
    const member = await this.access.member(serverId, userId);
    requireNotTimedOut(member);
    const row = await this.store.invites.create({
      serverId: member.server.id,
      code: newInviteCode(),
      maxUses: options.maxUses ? options.maxUses : null,
      expiresAt: options.expiresIn ? Math.floor(Date.now() / 1000) + options.expiresIn : null,
      createdBy: userId,
    }, this.caps.invitesPerServer);
    if (!row) throw capReached.invites(this.caps);
    await this.audit.record(member.server.id, userId, "INVITE_CREATE", { type: "invite", id: row.id }, {
      code: row.code,
      max_uses: row.max_uses,
      expires_at: row.expires_at,
    });
    return toInvite(row);
  }

  async list(serverId: string, userId: string): Promise<Invite[]> {
    const member = await this.access.requirePermission(serverId, userId, PERMISSIONS.MANAGE_SERVER);
    return (await this.store.invites.listActive(member.server.id)).map(toInvite);
  }

  /**
   * The caller's own invites to the server that still admit people, newest first; any member
   * (a Hearth extension: what "Invite people" shows again instead of making another link). The
   * primary invite is the server's, not its creator's, so it is left out.
   */
  async listOwn(serverId: string, userId: string): Promise<Invite[]> {
    const member = await this.access.member(serverId, userId);
    return (await this.store.invites.listActive(member.server.id))
      .filter((row) => row.created_by === userId && row.is_primary !== 1)
      .sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : -1))
      .map(toInvite);
  }

  /** The primary invite is not deleted (every server keeps one): regenerate its code instead. */
  async delete(serverId: string, userId: string, inviteId: string): Promise<void> {
    const member = await this.access.member(serverId, userId);
    const invite = await this.inviteOf(member.server.id, inviteId);
    if (invite.created_by !== userId && !hasPermission(member.permissions, PERMISSIONS.MANAGE_SERVER)) {
      throw forbidden("Missing permission: MANAGE_SERVER");
    }
    if (invite.is_primary === 1) throw badRequest("The primary invite cannot be deleted; regenerate its code instead");
    await this.store.invites.delete(invite.id);
    await this.audit.record(member.server.id, userId, "INVITE_DELETE", { type: "invite", id: invite.id }, { code: invite.code });
  }

  async uses(serverId: string, userId: string, inviteId: string): Promise<InviteUseRow[]> {
    const member = await this.access.requirePermission(serverId, userId, PERMISSIONS.MANAGE_SERVER);
    const invite = await this.inviteOf(member.server.id, inviteId);
    return this.store.invites.uses(invite.id);
  }

  /** A new code for the primary invite; the old code stops working at once. */
  async regeneratePrimary(serverId: string, userId: string): Promise<Invite> {
    const member = await this.access.requirePermission(serverId, userId, PERMISSIONS.MANAGE_SERVER);
    const row = await this.store.invites.regeneratePrimary(member.server.id, newInviteCode(), userId);
    await this.audit.record(member.server.id, userId, "INVITE_REGENERATE", { type: "invite", id: row.id }, { code: row.code });
    return toInvite(row);
  }

  /**
   * An invite code (or a server's vanity code) looked up without using it: 404 for an unknown
   * code, and the same 400s as joining for an expired or used-up invite, so the page can say so
   * before anyone presses Accept. Anyone signed in may look a code up (it is what a link shows);
   * a ban is only told on joining.
   */
  async preview(user: UserRow, code: string): Promise<InvitePreview> {
    if (code.length === 0 || code.length > LIMITS.invite.codeLength) throw notFound("Invite");
    const { invite, serverId } = await this.store.invites.resolve(code);
    if (!serverId) throw notFound("Invite");
    if (invite?.expires_at != null && invite.expires_at <= Math.floor(Date.now() / 1000)) throw badRequest("This invite has expired");
    if (invite?.max_uses != null && invite.uses >= invite.max_uses) throw badRequest("This invite has reached its maximum number of uses");
    const server = await this.access.server(serverId);
    const [inviter, member, online] = await Promise.all([
      invite?.created_by ? this.store.users.findById(invite.created_by) : null,
      this.store.members.find(server.id, user.id),
      server.member_count <= this.largeServerMembers ? this.store.members.onlineCount(server.id) : null,
    ]);
    return {
      code: invite?.code ?? code,
      expires_at: invite?.expires_at ?? null,
      max_uses: invite?.max_uses ?? null,
      uses: invite?.uses ?? null,
      server: {
        id: server.id,
        name: server.name,
        description: server.description,
        icon: server.icon,
        banner: server.banner,
        member_count: server.member_count,
        online_count: online,
      },
      inviter: inviter ? { id: inviter.id, username: inviter.username, avatar: inviter.avatar } : null,
      is_member: member !== null,
    };
  }

  /**
   * Joins by an invite code or a server's vanity code. The store checks the ban, membership,
   * expiry and use limit and counts the use in one transaction; Members.join then adds the
   * member (`member:joined`, MEMBER_JOIN). Already a member: the server, no use counted.
   */
  async join(user: UserRow, code: string): Promise<{ server: Server; joined: boolean }> {
    if (user.is_bot === 1) throw forbidden("Bots cannot join servers by invite; a server admin adds them");
    if (code.length === 0 || code.length > LIMITS.invite.codeLength) throw notFound("Invite");
    const redemption = await this.store.invites.redeem(code, user.id);
    switch (redemption.result) {
      case "unknown":
        throw notFound("Invite");
      case "banned":
        throw forbidden("You are banned from this server");
      case "expired":
        throw badRequest("This invite has expired");
      case "used_up":
        throw badRequest("This invite has reached its maximum number of uses");
    }
    const server = await this.access.server(redemption.serverId);
    if (redemption.result === "member") return { server: this.servers.toServer(server), joined: false };
    // Joined by another request between the count and the insert, or refused (the user's server
    // cap): that use did not happen.
    const uncount = async () => {
      if (redemption.inviteId && redemption.useId) await this.store.invites.uncountUse(redemption.inviteId, redemption.useId);
    };
    let joined: boolean;
    try {
      joined = await this.members.join(server.id, user);
    } catch (error) {
      await uncount();
      throw error;
    }
    if (!joined) await uncount();
    // Read again: the row read before the join does not count the new member.
    return { server: this.servers.toServer(await this.access.server(server.id)), joined };
  }

  private async inviteOf(serverId: string, inviteId: string): Promise<InviteRow> {
    const invite = isUuid(inviteId) ? await this.store.invites.findById(inviteId) : null;
    if (!invite || invite.server_id !== serverId) throw notFound("Invite");
    return invite;
  }
}
