import * as v from "valibot";
import type { Store } from "../../store/store.ts";
import type { ApplicationRow, ApplicationSettings } from "../../store/applications-repo.ts";
import type { UserRow } from "../../store/users-repo.ts";
import { defineSetting, type PlatformSettings } from "../admin/platform-settings.ts";
import type { BotAddResult, BotMembership } from "./bot-membership.ts";
import { managedRoleName } from "./bot-membership.ts";
import { forbidden, notFound } from "../shared/errors.ts";
import { rooms, type EventBus } from "../shared/events.ts";
import { LIMITS } from "../shared/limits.ts";
import { capReached, type ResourceCaps } from "../shared/caps.ts";
import { normalizeBotPermissions, permissionLabels, permissionNames, PERMISSIONS, type PermissionName } from "../access/permission-bits.ts";
import { toRole } from "../community/roles.ts";
import { readImageUpload, type UploadStore } from "../shared/uploads.ts";
import type { TokenService } from "../accounts/tokens.ts";
import type { TwoFactor, TwoFactorProof } from "../accounts/two-factor.ts";
import { hasTwoFactor } from "../accounts/two-factor.ts";
import { isUuid } from "../shared/validation.ts";
import { ImageUrl, UnixSeconds, Uuid } from "../shared/shapes.ts";

/** SPEC.md "Application": the creation response object, and what the owner sees afterwards. */
export const Application = v.object({
  id: Uuid,
  name: v.string(),
  description: v.string(),
  bot_user_id: Uuid,
  client_secret: v.string(),
  default_permissions: v.number(),
  invite_permission_locked: v.boolean(),
  public_invite: v.boolean(),
  avatar: ImageUrl,
  banner: ImageUrl,
  banner_offset: v.number(),
  owner_id: Uuid,
  created_at: UnixSeconds,
  updated_at: UnixSeconds,
});
export type Application = v.InferOutput<typeof Application>;

function toApplication(row: ApplicationRow): Application {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    bot_user_id: row.bot_user_id,
    client_secret: row.client_secret,
    default_permissions: row.default_permissions,
    invite_permission_locked: row.invite_permission_locked === 1,
    public_invite: row.public_invite === 1,
    avatar: row.avatar,
    banner: row.banner,
    banner_offset: row.banner_offset,
    owner_id: row.owner_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The public invite card (SPEC.md "Bot invite card"); no secret in it. */
export const BotInviteCard = v.object({
  bot_user_id: Uuid,
  name: v.string(),
  avatar: ImageUrl,
  banner: ImageUrl,
  banner_offset: v.number(),
  description: v.string(),
  public_invite: v.boolean(),
  default_permissions: v.number(),
  invite_permission_locked: v.boolean(),
  permission_labels: v.array(v.string()),
  permission_flags: v.array(v.picklist(Object.keys(PERMISSIONS) as PermissionName[])),
  invite_url: v.string(),
});
export type BotInviteCard = v.InferOutput<typeof BotInviteCard>;

/** A server the bot is in, as its owner sees it (read-only). */
export const BotServer = v.object({
  id: Uuid,
  name: v.string(),
  icon: ImageUrl,
  role_id: v.nullable(Uuid),
  bot_permissions: v.number(),
  permission_labels: v.array(v.string()),
});
export type BotServer = v.InferOutput<typeof BotServer>;

/** SPEC.md "Adding a bot to a server": the invite URL shape. */
export const inviteUrl = (botUserId: string, permissions: number) => `/invite?bot=${botUserId}&permissions=${permissions}`;

/**
 * Platform setting: creating an application needs two-factor authentication (and the current
 * code). Until an administrator sets it, REQUIRE_2FA_FOR_APPLICATIONS decides (docs/admin.md).
 */
export const REQUIRE_2FA_FOR_APPLICATIONS = defineSetting(
  "require_2fa_for_applications",
  v.boolean(),
  (config) => config.requireTwoFactorForApplications,
);

/** A client secret: 32 random bytes as hex. */
const newClientSecret = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex");

/**
 * Applications: each has one bot user (`is_bot` = 1, named after the application, `offline`
 * until it connects) whose bearer token never expires and is revoked by regenerating it.
 * Management needs the owner's user token; bots get 403.
 */
export class Applications {
  constructor(
    private readonly store: Store,
    private readonly tokens: TokenService,
    private readonly twoFactor: TwoFactor,
    private readonly settings: PlatformSettings,
    private readonly uploads: UploadStore,
    private readonly bus: EventBus,
    private readonly botMembership: BotMembership,
    private readonly caps: ResourceCaps,
  ) {}

  /**
   * POST /oauth2/applications. When the platform requires it (the REQUIRE_2FA_FOR_APPLICATIONS setting),
   * the caller must have two-factor authentication on and send the current code (X-2FA-Code).
   */
  async create(
    user: UserRow,
    input: { name: string; description: string },
    twoFactor: TwoFactorProof,
  ): Promise<{ application: Application; bot_token: string }> {
    this.requireHuman(user);
    if (await this.settings.get(REQUIRE_2FA_FOR_APPLICATIONS)) {
      if (!hasTwoFactor(user)) throw forbidden("Enable two-factor authentication to create applications");
      await this.twoFactor.requireCode(user, twoFactor.code, twoFactor.clientAddress);
    }
    const row = await this.store.applications.create({
      ownerId: user.id,
      name: input.name,
      description: input.description,
      clientSecret: newClientSecret(),
    }, this.caps.applicationsPerUser);
    if (!row) throw capReached.applications(this.caps);
    return { application: toApplication(row), bot_token: await this.botToken(row.bot_user_id) };
  }

  /** The owner's application; 404 for anyone else's (its existence does not leak). */
  async owned(appId: string, user: UserRow): Promise<ApplicationRow> {
    this.requireHuman(user);
    const row = isUuid(appId) ? await this.store.applications.findById(appId) : null;
    if (!row || row.owner_id !== user.id) throw notFound("Application");
    return row;
  }

  async list(user: UserRow): Promise<Application[]> {
    this.requireHuman(user);
    return (await this.store.applications.listByOwner(user.id)).map(toApplication);
  }

  async get(appId: string, user: UserRow): Promise<Application> {
    return toApplication(await this.owned(appId, user));
  }

  /**
   * PUT: renames the application, its bot user and the bot's managed roles (named after the
   * bot without `[BOT]`), and/or changes the description. `role:updated` for each renamed role.
   */
  async update(appId: string, user: UserRow, input: { name?: string; description?: string }): Promise<Application> {
    const app = await this.owned(appId, user);
    let row = app;
    if (input.name !== undefined && input.name !== app.name) {
      const renamed = await this.store.applications.rename(app.id, input.name, managedRoleName(input.name));
      if (!renamed) throw notFound("Application");
      row = renamed.application;
      for (const role of renamed.roles) this.bus.publish(rooms.server(role.server_id), "role:updated", { ...toRole(role) });
    }
    if (input.description !== undefined) row = await this.change(app.id, { description: input.description });
    return toApplication(row);
  }

  /**
   * Regenerates the bot token: the bot's token version moves on, so every earlier token fails
   * at once (REST 401) and the bot's sockets are disconnected.
   */
  async regenerateToken(appId: string, user: UserRow): Promise<{ bot_token: string }> {
    const app = await this.owned(appId, user);
    const bot = await this.store.applications.revokeBotTokens(app.bot_user_id);
    if (!bot) throw notFound("Bot user");
    this.bus.disconnect(rooms.user(bot.id));
    return { bot_token: await this.tokens.sign({ userId: bot.id, version: bot.token_version }, false) };
  }

  /**
   * Deletes the application and its bot user (memberships, role assignments and messages go
   * with the user). `member:left` to every server the bot was in; its sockets are dropped.
   * Its managed roles stay, like after any removal, until a server admin deletes them.
   */
  async delete(appId: string, user: UserRow): Promise<void> {
    const app = await this.owned(appId, user);
    const serverIds = await this.store.members.serverIdsOf(app.bot_user_id);
    const bot = await this.store.users.findById(app.bot_user_id);
    // Servers the bot created (a bot token may create one) are deleted with it, files included.
    const owned = (await this.store.servers.listForUser(app.bot_user_id)).filter((s) => s.owner_id === app.bot_user_id);
    const files = (await Promise.all(owned.map((s) => this.store.servers.files(s.id)))).flat();
    const deleted = await this.store.applications.deleteWithBot(app.id);
    if (!deleted) throw notFound("Application");
    const ownedIds = new Set(owned.map((s) => s.id));
    for (const serverId of serverIds) {
      if (ownedIds.has(serverId)) continue;
      this.bus.publish(rooms.server(serverId), "member:left", { serverId, userId: app.bot_user_id });
    }
    for (const serverId of ownedIds) this.bus.removeFromRoom(rooms.server(serverId), rooms.server(serverId));
    this.bus.disconnect(rooms.user(app.bot_user_id));
    for (const path of new Set([app.avatar, app.banner, bot?.avatar ?? null, bot?.banner ?? null, ...files])) await this.uploads.remove(path);
  }

  /** Avatar (also the bot user's avatar, at most 2 MB) or banner (at most 5 MB). */
  async setImage(appId: string, user: UserRow, kind: "avatar" | "banner", file: unknown): Promise<Application> {
    const app = await this.owned(appId, user);
    const max = kind === "avatar" ? LIMITS.userAvatarBytes : LIMITS.userBannerBytes;
    const { bytes, type } = await readImageUpload(kind, file, max);
    const path = await this.uploads.save(kind === "avatar" ? "avatars" : "banners", bytes, type.ext);
    const result = await this.store.applications.replaceImage(app.id, kind, path).catch(async (error) => {
      await this.uploads.remove(path);
      throw error;
    });
    if (!result) {
      await this.uploads.remove(path);
      throw notFound("Application");
    }
    for (const old of result.replaced) await this.uploads.remove(old);
    return toApplication(result.application);
  }

  async setBannerOffset(appId: string, user: UserRow, offset: number): Promise<Application> {
    const app = await this.owned(appId, user);
    return toApplication(await this.change(app.id, { banner_offset: offset }));
  }

  async setPublicInvite(appId: string, user: UserRow, publicInvite: boolean): Promise<Application> {
    const app = await this.owned(appId, user);
    return toApplication(await this.change(app.id, { public_invite: publicInvite }));
  }

  /**
   * Default permissions for new invites (ADMINISTRATOR stored alone). Existing managed roles
   * are never touched: only server admins change those.
   */
  async setPermissions(
    appId: string,
    user: UserRow,
    input: { default_permissions: number; invite_permission_locked?: boolean },
  ): Promise<{ default_permissions: number; invite_permission_locked: boolean; permission_labels: string[] }> {
    const app = await this.owned(appId, user);
    const row = await this.change(app.id, {
      default_permissions: normalizeBotPermissions(input.default_permissions),
      invite_permission_locked: input.invite_permission_locked,
    });
    return {
      default_permissions: row.default_permissions,
      invite_permission_locked: row.invite_permission_locked === 1,
      permission_labels: permissionLabels(row.default_permissions),
    };
  }

  /** The public invite card of a bot user; 404 for an unknown id or a user that is not a bot. */
  async inviteCard(botUserId: string): Promise<BotInviteCard> {
    const app = await this.byBotUser(botUserId);
    const bot = await this.store.users.findById(app.bot_user_id);
    return {
      bot_user_id: app.bot_user_id,
      name: app.name,
      avatar: app.avatar ?? bot?.avatar ?? null,
      banner: app.banner,
      banner_offset: app.banner_offset,
      description: app.description,
      public_invite: app.public_invite === 1,
      default_permissions: app.default_permissions,
      invite_permission_locked: app.invite_permission_locked === 1,
      permission_labels: permissionLabels(app.default_permissions),
      permission_flags: permissionNames(app.default_permissions),
      invite_url: inviteUrl(app.bot_user_id, app.default_permissions),
    };
  }

  /** The authorize route: a server admin adds a bot by its invite (public_invite and lock apply). */
  async authorize(botUserId: string, serverId: string, user: UserRow, permissions: number): Promise<BotAddResult> {
    this.requireHuman(user);
    const app = await this.byBotUser(botUserId);
    return this.botMembership.addBotToServer(app, serverId, user, permissions);
  }

  /** The owner-add route: the app's owner, also admin/owner of the server; defaults to the app's defaults. */
  async addToServer(appId: string, serverId: string, user: UserRow, permissions: number | undefined): Promise<BotAddResult> {
    const app = await this.owned(appId, user);
    return this.botMembership.addBotToServer(app, serverId, user, permissions ?? app.default_permissions);
  }

  async removeFromServer(appId: string, serverId: string, user: UserRow): Promise<void> {
    const app = await this.owned(appId, user);
    await this.botMembership.removeBot(app, serverId);
  }

  async servers(appId: string, user: UserRow): Promise<BotServer[]> {
    const app = await this.owned(appId, user);
    return (await this.botMembership.serversOf(app.bot_user_id)).map(({ server, role }) => ({
      id: server.id,
      name: server.name,
      icon: server.icon,
      role_id: role?.id ?? null,
      bot_permissions: role?.permissions ?? 0,
      permission_labels: permissionLabels(role?.permissions ?? 0),
    }));
  }

  /** Errors case 3: the owner never edits a bot's role in a server; server admins do. */
  editServerPermissions(user: UserRow): never {
    this.requireHuman(user);
    throw forbidden("Bot permissions in a server can only be changed by that server's admins, by editing the bot's role in server settings");
  }

  private async byBotUser(botUserId: string): Promise<ApplicationRow> {
    const app = isUuid(botUserId) ? await this.store.applications.findByBotUser(botUserId) : null;
    if (!app) throw notFound("Bot");
    return app;
  }

  private async change(appId: string, changes: ApplicationSettings): Promise<ApplicationRow> {
    const row = await this.store.applications.update(appId, changes);
    if (!row) throw notFound("Application");
    return row;
  }

  /** A bearer token for the bot user, bound to its current token version; it does not expire. */
  async botToken(botUserId: string): Promise<string> {
    const bot = await this.store.users.findById(botUserId);
    if (!bot) throw notFound("Bot user");
    return this.tokens.sign({ userId: bot.id, version: bot.token_version }, false);
  }

  /** Application management needs a user token (SPEC.md "Authentication" 4). */
  requireHuman(user: UserRow): void {
    if (user.is_bot) throw forbidden("Bots cannot manage applications");
  }
}
