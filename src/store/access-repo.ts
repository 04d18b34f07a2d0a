import type { Database, SqlValue } from "./database.ts";
import type { BuiltinRole } from "./types.ts";

interface AccessRow {
  owner_id: string;
  role: BuiltinRole;
  timeout_until: number | null;
  everyone_id: string;
  everyone_permissions: number;
}

export interface AccessRole {
  id: string;
  permissions: number;
  position: number;
}

/** A member's standing as a permission check reads it (AccessRepo.member). */
export type AccessMemberRow = AccessRow & { roles: AccessRole[] };

export interface OverrideRow {
  role_id: string;
  allow: number;
  deny: number;
}

/** What a permission check reads, in as few prepared queries as possible. */
export class AccessRepo {
  private readonly memberStmt;
  private readonly rolesStmt;
  private readonly membersAmongStmt;
  private readonly rolesAmongStmt;
  private readonly channelOverridesStmt;
  private readonly categoryOverridesStmt;
  private readonly serverChannelOverridesStmt;
  private readonly serverCategoryOverridesStmt;
  /** SQLite only: the `access_version` row (sqlite/migrations.ts, version 16). */
  private readonly versionStmt;

  // Scalar subqueries rather than JOINs: these run on every permission check, and with Bun's
  // SQLite (3.54) a JOIN costs more per execution than the same lookups as subqueries. The
  // outer WHERE keeps the JOIN's meaning: no row without the server and its default role.
  constructor(private readonly db: Database) {
    this.memberStmt = db.prepare<AccessRow, [string, string]>(
      `SELECT * FROM (
         SELECT (SELECT s.owner_id FROM servers s WHERE s.id = m.server_id AND s.deleted_at IS NULL) AS owner_id, m.role, m.timeout_until,
                (SELECT r.id FROM roles r WHERE r.server_id = m.server_id AND r.is_default = 1) AS everyone_id,
                (SELECT r.permissions FROM roles r WHERE r.server_id = m.server_id AND r.is_default = 1) AS everyone_permissions
         FROM server_members m
         WHERE m.server_id = ? AND m.user_id = ?
       ) access WHERE owner_id IS NOT NULL AND everyone_id IS NOT NULL`,
    );
    // member_roles.role_id references roles (ON DELETE CASCADE), so every row has its role.
    this.rolesStmt = db.prepare<AccessRole, [string, string]>(
      `SELECT mr.role_id AS id,
              (SELECT r.permissions FROM roles r WHERE r.id = mr.role_id) AS permissions,
              (SELECT r.position FROM roles r WHERE r.id = mr.role_id) AS position
       FROM member_roles mr
       WHERE mr.server_id = ? AND mr.user_id = ?`,
    );
    // The same two reads for many members at once: the primary keys probe each id (an index condition on both databases).
    this.membersAmongStmt = db.prepare<AccessRow & { user_id: string }, [string, SqlValue]>(
      `SELECT * FROM (
         SELECT m.user_id, (SELECT s.owner_id FROM servers s WHERE s.id = m.server_id) AS owner_id, m.role, m.timeout_until,
                (SELECT r.id FROM roles r WHERE r.server_id = m.server_id AND r.is_default = 1) AS everyone_id,
                (SELECT r.permissions FROM roles r WHERE r.server_id = m.server_id AND r.is_default = 1) AS everyone_permissions
         FROM server_members m
         WHERE m.server_id = ? AND m.user_id ${db.dialect.inIdList("?")}
       ) access WHERE owner_id IS NOT NULL AND everyone_id IS NOT NULL`,
    );
    this.rolesAmongStmt = db.prepare<AccessRole & { user_id: string }, [string, SqlValue]>(
      `SELECT mr.user_id, mr.role_id AS id,
              (SELECT r.permissions FROM roles r WHERE r.id = mr.role_id) AS permissions,
              (SELECT r.position FROM roles r WHERE r.id = mr.role_id) AS position
       FROM member_roles mr
       WHERE mr.server_id = ? AND mr.user_id ${db.dialect.inIdList("?")}`,
    );
    this.channelOverridesStmt = db.prepare<OverrideRow, [string]>(
      "SELECT role_id, allow, deny FROM channel_overrides WHERE channel_id = ?",
    );
    this.categoryOverridesStmt = db.prepare<OverrideRow, [string]>(
      "SELECT role_id, allow, deny FROM category_overrides WHERE category_id = ?",
    );
    // Every override of a server's channels and categories: through the (server_id) indexes of
    // channels and categories, then each one's overrides by their primary key's first column.
    // Found through the server's roles: an override's role is always of its channel's (or
    // category's) server (Channels.requireRole; a duplicate copies the overrides within
    // the server; a role's deletion takes its overrides), and a server holds a few roles where
    // it may hold 500 channels, each of which a read through the channels would probe.
    this.serverChannelOverridesStmt = db.prepare<OverrideRow & { channel_id: string }, [string]>(
      "SELECT o.channel_id, o.role_id, o.allow, o.deny FROM roles r JOIN channel_overrides o ON o.role_id = r.id WHERE r.server_id = ?",
    );
    this.serverCategoryOverridesStmt = db.prepare<OverrideRow & { category_id: string }, [string]>(
      "SELECT o.category_id, o.role_id, o.allow, o.deny FROM roles r JOIN category_overrides o ON o.role_id = r.id WHERE r.server_id = ?",
    );
    this.versionStmt = db.dialect.name === "sqlite" ? db.prepare<{ version: number }, []>("SELECT version FROM access_version WHERE id = 1") : null;
  }

  /**
   * A value that changes with every committed or pending write to what a permission check
   * reads (triggers, sqlite/migrations.ts version 16), or null where none is kept (PostgreSQL).
   * Every permission check reads it first.
   */
  async version(): Promise<number | null> {
    return this.versionStmt ? ((await this.db.get(this.versionStmt))?.version ?? null) : null;
  }

  /** The member's standing in a server, or null for a non-member. */
  async member(serverId: string, userId: string): Promise<AccessMemberRow | null> {
    const row = await this.db.get(this.memberStmt, serverId, userId);
    return row ? { ...row, roles: await this.db.all(this.rolesStmt, serverId, userId) } : null;
  }

  /**
   * `member` for each of `userIds` at once, in two queries however many they are: the members
   * among them, by user id (non-members are absent).
   */
  async members(serverId: string, userIds: readonly string[]): Promise<Map<string, AccessMemberRow>> {
    const found = new Map<string, AccessMemberRow>();
    if (userIds.length === 0) return found;
    const ids = this.db.dialect.idList([...userIds]);
    for (const { user_id, ...row } of await this.db.all(this.membersAmongStmt, serverId, ids)) found.set(user_id, { ...row, roles: [] });
    for (const { user_id, ...role } of await this.db.all(this.rolesAmongStmt, serverId, ids)) found.get(user_id)?.roles.push(role);
    return found;
  }

  async channelOverrides(channelId: string): Promise<OverrideRow[]> {
    return this.db.all(this.channelOverridesStmt, channelId);
  }

  async categoryOverrides(categoryId: string): Promise<OverrideRow[]> {
    return this.db.all(this.categoryOverridesStmt, categoryId);
  }

  /**
   * The overrides of every channel and category of a server, in two queries (checks over all its
   * channels at once); what they read follows the server's roles and overrides, not its channels.
   */
  async serverOverrides(serverId: string): Promise<{ channels: (OverrideRow & { channel_id: string })[]; categories: (OverrideRow & { category_id: string })[] }> {
    const [channels, categories] = await Promise.all([this.db.all(this.serverChannelOverridesStmt, serverId), this.db.all(this.serverCategoryOverridesStmt, serverId)]);
    return { channels, categories };
  }
}
