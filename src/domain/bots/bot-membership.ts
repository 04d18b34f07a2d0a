import * as v from "valibot";
import type { Store } from "../../store/store.ts";
import type { ApplicationRow } from "../../store/applications-repo.ts";
import type { RoleRow } from "../../store/roles-repo.ts";
import type { ServerRow } from "../../store/servers-repo.ts";
import type { UserRow } from "../../store/users-repo.ts";
import type { Access } from "../access/access.ts";
import type { Audit } from "../access/audit.ts";
import { forbidden, notFound } from "../shared/errors.ts";
import { capReached, type ResourceCaps } from "../shared/caps.ts";
import { rooms, type EventBus } from "../shared/events.ts";
import type { Members } from "../community/members.ts";
import { normalizeBotPermissions } from "../access/permission-bits.ts";
import { DEFAULT_ROLE_COLOR, toRole } from "../community/roles.ts";
import { Role, Uuid } from "../shared/shapes.ts";

/** A bot's managed role is named after the bot without its `[BOT]` tag (SPEC.md "Role"). */
export function managedRoleName(botUsername: string): string {
  const name = botUsername.replace(/\[BOT\]/gi, "").replace(/\s+/g, " ").trim();
  return name === "" ? "Bot" : name;
}

export const BotAddResult = v.object({
  server_id: Uuid,
  bot_user_id: Uuid,
  /** False when the bot was already in the server and only its role's permissions changed. */
  joined: v.boolean(),
  permissions: v.number(),
  role: Role,
});
export type BotAddResult = v.InferOutput<typeof BotAddResult>;

/**
 * A bot's membership in servers, with its managed role. The authorize route and the owner-add
 * route both come through `addBotToServer`, so their rules cannot drift apart.
 */
export class BotMembership {
  constructor(
    private readonly store: Store,
    private readonly access: Access,
    private readonly audit: Audit,
    private readonly members: Members,
    private readonly bus: EventBus,
    private readonly caps: ResourceCaps,
  ) {}

  /**
   * Adds the application's bot to the server with a managed role holding `permissions`
   * (ADMINISTRATOR stored alone), or, when it is already there, sets its role's permissions.
   *
   * The caller must be the server's owner or a built-in admin; a bot whose `public_invite` is
   * off may be added only by its owner; with `invite_permission_locked` the permissions must
   * equal the application's defaults; a banned bot is refused. Every refusal is a 403.
   */
  async addBotToServer(app: ApplicationRow, serverId: string, actor: UserRow, permissions: number): Promise<BotAddResult> {
    if (actor.is_bot) throw forbidden("Bots cannot add bots to servers");
    const admin = await this.access.requireAdmin(serverId, actor.id);
    const server = admin.server;
    if (!app.public_invite && app.owner_id !== actor.id) {
      throw forbidden("This bot is private: only its owner can add it to a server");
    }
    if (app.invite_permission_locked && permissions !== app.default_permissions) {
      throw forbidden(`This bot's invite permissions are locked: permissions must be ${app.default_permissions}`);
    }
    const bot = await this.store.users.findById(app.bot_user_id);
    if (!bot) throw notFound("Bot user");
    if (await this.store.moderation.findBan(server.id, bot.id)) throw forbidden("This bot is banned from this server");

    const bits = normalizeBotPermissions(permissions);
    await this.members.requireRoomToJoin(server.id, bot);
    const role = await this.upsertManagedRole(server.id, bot, bits, actor.id);
    const joined = await this.members.join(server.id, bot, actor.id);
    await this.store.roles.assign(server.id, bot.id, role.id);
    if (joined) {
      await this.audit.record(server.id, actor.id, "BOT_ADD", { type: "member", id: bot.id }, { permissions: bits, roleId: role.id });
      // The role only adds bits: sockets following every channel join what it lets the bot see too.
      await this.members.followNewMembership(server.id, bot.id);
    } else {
      // Fewer bits can take VIEW_CHANNEL away: the bot's sockets leave what it can no longer see
      // (and those following every channel join what more bits let it see).
      await this.members.syncChannelRooms(server.id, { userIds: [bot.id] });
    }
    return { server_id: server.id, bot_user_id: bot.id, joined, permissions: bits, role: toRole(role) };
  }

  /** The app's owner takes the bot out of a server; its managed role is kept (SPEC.md). */
  async removeBot(app: ApplicationRow, serverId: string): Promise<void> {
    const server = await this.access.server(serverId);
    const removed = await this.members.remove(server.id, app.bot_user_id);
    if (!removed) throw notFound("Bot membership");
    await this.audit.record(server.id, app.owner_id, "MEMBER_LEAVE", { type: "member", id: app.bot_user_id }, { removedByOwner: true });
  }

  /** The servers the bot is in, each with its managed role's permissions. */
  async serversOf(botUserId: string): Promise<{ server: ServerRow; role: RoleRow | null }[]> {
    const result: { server: ServerRow; role: RoleRow | null }[] = [];
    for (const serverId of await this.store.members.serverIdsOf(botUserId)) {
      const server = await this.store.servers.findById(serverId);
      if (!server) continue;
      result.push({ server, role: await this.store.roles.findManaged(serverId, botUserId) });
    }
    return result;
  }

  /** Reuses the bot's managed role in the server (setting its bits) or creates it, on top. */
  private async upsertManagedRole(serverId: string, bot: UserRow, permissions: number, actorId: string): Promise<RoleRow> {
    const upserted = await this.store.roles.upsertManaged({
      serverId,
      name: managedRoleName(bot.username),
      color: DEFAULT_ROLE_COLOR,
      permissions,
      hoist: false,
      managedBotId: bot.id,
    }, this.caps.rolesPerServer);
    if (!upserted) throw capReached.roles(this.caps);
    const { role, before } = upserted;
    if (!before) {
      this.bus.publish(rooms.server(serverId), "role:created", { ...toRole(role) });
    } else if (before.permissions !== role.permissions) {
      this.bus.publish(rooms.server(serverId), "role:updated", { ...toRole(role) });
      await this.audit.record(serverId, actorId, "ROLE_UPDATE", { type: "role", id: role.id }, {
        roleId: role.id,
        role: role.name,
        permissions: { old: before.permissions, new: permissions },
      });
    }
    return role;
  }
}
