import type { Database } from "./database.ts";
import type { RoleRow } from "./roles-repo.ts";
import { userColumns, type UserRow } from "./users-repo.ts";
import { nowSeconds } from "./time.ts";
import { memberCountsDownForUser, memberUsernameRefresh } from "./member-derived-columns.ts";
import { secretContext, type SecretBox } from "./secret-box.ts";

export interface ApplicationRow {
  id: string;
  owner_id: string;
  bot_user_id: string;
  name: string;
  description: string;
  client_secret: string;
  default_permissions: number;
  invite_permission_locked: number;
  public_invite: number;
  avatar: string | null;
  banner: string | null;
  banner_offset: number;
  created_at: number;
  updated_at: number;
}

/** Settings the owner changes with one field each (PATCH routes). */
export interface ApplicationSettings {
  description?: string;
  default_permissions?: number;
  invite_permission_locked?: boolean;
  public_invite?: boolean;
  banner_offset?: number;
}

/** Applications and their bot users: an application and its bot are created and removed together. */
export class ApplicationsRepo {
  private readonly insertBot;
  private readonly insertApp;
  private readonly byId;
  private readonly byBot;
  private readonly byOwner;
  private readonly updateStmt;
  private readonly renameStmt;
  private readonly renameBot;
  private readonly refreshMemberNames;
  private readonly renameRoles;
  private readonly setImage;
  private readonly botAvatar;
  private readonly setBotAvatar;
  private readonly revokeStmt;
  private readonly deleteBotServers;
  private readonly uncountBot;
  private readonly deleteBot;
  private readonly deleteApp;
  private readonly countOfOwner;

  constructor(
    private readonly db: Database,
    private readonly secrets: SecretBox,
  ) {
    this.insertBot = db.prepare(
      `INSERT INTO users (id, username, email, password_hash, is_bot, status, preferred_status, created_at, updated_at)
       VALUES (?, ?, NULL, NULL, 1, 'offline', 'online', ?, ?)`,
    );
    this.insertApp = db.prepare<ApplicationRow, [Record<string, string | number>]>(
      `INSERT INTO applications (id, owner_id, bot_user_id, name, description, client_secret, created_at, updated_at)
       VALUES ($id, $owner_id, $bot_user_id, $name, $description, $client_secret, $now, $now) RETURNING *`,
    );
    this.byId = db.prepare<ApplicationRow, [string]>("SELECT * FROM applications WHERE id = ?");
    // applications_owner serves it.
    this.countOfOwner = db.prepare<{ n: number }, [string]>("SELECT count(*) AS n FROM applications WHERE owner_id = ?");
    this.byBot = db.prepare<ApplicationRow, [string]>("SELECT * FROM applications WHERE bot_user_id = ?");
    this.byOwner = db.prepare<ApplicationRow, [string]>("SELECT * FROM applications WHERE owner_id = ? ORDER BY created_at, id");
    this.updateStmt = db.prepare<ApplicationRow, [Record<string, string | number | null>]>(
      `UPDATE applications SET description = coalesce($description, description),
         default_permissions = coalesce($default_permissions, default_permissions),
         invite_permission_locked = coalesce($invite_permission_locked, invite_permission_locked),
         public_invite = coalesce($public_invite, public_invite),
         banner_offset = coalesce($banner_offset, banner_offset), updated_at = $now
       WHERE id = $id RETURNING *`,
    );
    this.renameStmt = db.prepare<ApplicationRow, [string, number, string]>("UPDATE applications SET name = ?, updated_at = ? WHERE id = ? RETURNING *");
    this.renameBot = db.prepare("UPDATE users SET username = ?, updated_at = ? WHERE id = ?");
    this.refreshMemberNames = memberUsernameRefresh(db);
    this.renameRoles = db.prepare<RoleRow, [string, string]>("UPDATE roles SET name = ? WHERE managed_bot_id = ? RETURNING *");
    this.setImage = {
      avatar: db.prepare<ApplicationRow, [string | null, number, string]>("UPDATE applications SET avatar = ?, updated_at = ? WHERE id = ? RETURNING *"),
      banner: db.prepare<ApplicationRow, [string | null, number, string]>("UPDATE applications SET banner = ?, updated_at = ? WHERE id = ? RETURNING *"),
    };
    this.botAvatar = db.prepare<{ avatar: string | null }, [string]>("SELECT avatar FROM users WHERE id = ?");
    this.setBotAvatar = db.prepare("UPDATE users SET avatar = ?, updated_at = ? WHERE id = ?");
    this.revokeStmt = db.prepare<UserRow, [number, string]>(
      `UPDATE users SET token_version = token_version + 1, updated_at = ? WHERE id = ? AND is_bot = 1 RETURNING ${userColumns()}`,
    );
    this.deleteBotServers = db.prepare("DELETE FROM servers WHERE owner_id = ?");
    this.uncountBot = memberCountsDownForUser(db);
    this.deleteBot = db.prepare("DELETE FROM users WHERE id = ? AND is_bot = 1");
    this.deleteApp = db.prepare("DELETE FROM applications WHERE id = ?");
  }

  /** The application and its bot user (named after it), in one transaction; null when the owner already has `maxPerOwner`. */
  async create(app: { ownerId: string; name: string; description: string; clientSecret: string }, maxPerOwner: number): Promise<ApplicationRow | null> {
    return this.db.transaction(async (tx) => {
      await tx.lock(`applications:${app.ownerId}`);
      if (((await tx.get(this.countOfOwner, app.ownerId))?.n ?? 0) >= maxPerOwner) return null;
      const now = nowSeconds();
      const botUserId = Bun.randomUUIDv7();
      await tx.run(this.insertBot, botUserId, app.name, now, now);
      const appId = Bun.randomUUIDv7();
      return this.open((await tx.get(this.insertApp, {
        id: appId,
        owner_id: app.ownerId,
        bot_user_id: botUserId,
        name: app.name,
        description: app.description,
        client_secret: this.secrets.seal(app.clientSecret, secretContext("applications.client_secret", appId)),
        now,
      }))!);
    });
  }

  /** A row as the domain sees it: the client secret in clear (it is stored sealed). */
  private open(row: ApplicationRow): ApplicationRow;
  private open(row: ApplicationRow | null): ApplicationRow | null;
  private open(row: ApplicationRow | null): ApplicationRow | null {
    return row && { ...row, client_secret: this.secrets.open(row.client_secret, secretContext("applications.client_secret", row.id)) };
  }

  async findById(id: string): Promise<ApplicationRow | null> {
    return this.open(await this.db.get(this.byId, id));
  }

  async findByBotUser(botUserId: string): Promise<ApplicationRow | null> {
    return this.open(await this.db.get(this.byBot, botUserId));
  }

  async listByOwner(ownerId: string): Promise<ApplicationRow[]> {
    return (await this.db.all(this.byOwner, ownerId)).map((row) => this.open(row));
  }

  async update(id: string, changes: ApplicationSettings): Promise<ApplicationRow | null> {
    const flag = (b: boolean | undefined) => (b === undefined ? null : b ? 1 : 0);
    const row = await this.db.get(this.updateStmt, {
      id,
      description: changes.description ?? null,
      default_permissions: changes.default_permissions ?? null,
      invite_permission_locked: flag(changes.invite_permission_locked),
      public_invite: flag(changes.public_invite),
      banner_offset: changes.banner_offset ?? null,
      now: nowSeconds(),
    });
    return this.open(row);
  }

  /**
   * Renames the application, its bot user and the bot's managed roles (`roleName`) together,
   * in one transaction. Answers the application and the renamed roles.
   */
  async rename(id: string, name: string, roleName: string): Promise<{ application: ApplicationRow; roles: RoleRow[] } | null> {
    return this.db.transaction(async (tx) => {
      const now = nowSeconds();
      const application = await tx.get(this.renameStmt, name, now, id);
      if (!application) return null;
      await tx.run(this.renameBot, name, now, application.bot_user_id);
      await tx.run(this.refreshMemberNames, application.bot_user_id);
      const roles = await tx.all(this.renameRoles, roleName, application.bot_user_id);
      return { application: this.open(application), roles };
    });
  }

  /**
   * Stores a new image path on the application (the avatar on its bot user too) and answers
   * the paths it replaced, for the caller to delete.
   */
  async replaceImage(id: string, kind: "avatar" | "banner", path: string | null): Promise<{ application: ApplicationRow; replaced: string[] } | null> {
    return this.db.transaction(async (tx) => {
      await tx.lock(`application-images:${id}`);
      const before = await tx.get(this.byId, id);
      if (!before) return null;
      const now = nowSeconds();
      const replaced = [before[kind]];
      const application = (await tx.get(this.setImage[kind], path, now, id))!;
      if (kind === "avatar") {
        const bot = await tx.get(this.botAvatar, before.bot_user_id);
        replaced.push(bot?.avatar ?? null);
        await tx.run(this.setBotAvatar, path, now, before.bot_user_id);
      }
      return { application: this.open(application), replaced: [...new Set(replaced.filter((p): p is string => p !== null))] };
    });
  }

  /** Bumps the bot user's token version, so every earlier bot token stops working. */
  async revokeBotTokens(botUserId: string): Promise<UserRow | null> {
    return this.db.get(this.revokeStmt, nowSeconds(), botUserId);
  }

  /**
   * Deletes the application by deleting its bot user: the application row, memberships, role
   * assignments, messages and everything else the user owns go with it by cascade, and so do
   * the servers the bot owns.
   */
  async deleteWithBot(id: string): Promise<ApplicationRow | null> {
    return this.db.transaction(async (tx) => {
      const application = await tx.get(this.byId, id);
      if (!application) return null;
      // A server cannot outlive its owner: the ones the bot created go first.
      await tx.run(this.deleteBotServers, application.bot_user_id);
      // Its other memberships go with its user, by cascade: those servers count one less.
      await tx.run(this.uncountBot, application.bot_user_id);
      await tx.run(this.deleteBot, application.bot_user_id);
      await tx.run(this.deleteApp, id);
      return this.open(application);
    });
  }
}
