import type { Database } from "./database.ts";
import type { BuiltinRole } from "./types.ts";

export interface AccessRow {
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

export interface OverrideRow {
  role_id: string;
  allow: number;
  deny: number;
}

/** What a permission check reads, in as few prepared queries as possible. */
export class AccessRepo {
  private readonly memberStmt;
  private readonly rolesStmt;
  private readonly channelOverridesStmt;
  private readonly categoryOverridesStmt;

  constructor(private readonly db: Database) {
    this.memberStmt = db.prepare<AccessRow, [string, string]>(
      `SELECT s.owner_id, m.role, m.timeout_until, r.id AS everyone_id, r.permissions AS everyone_permissions
       FROM server_members m
       JOIN servers s ON s.id = m.server_id
       JOIN roles r ON r.server_id = m.server_id AND r.is_default = 1
       WHERE m.server_id = ? AND m.user_id = ?`,
    );
    this.rolesStmt = db.prepare<AccessRole, [string, string]>(
      `SELECT r.id, r.permissions, r.position FROM member_roles mr JOIN roles r ON r.id = mr.role_id
       WHERE mr.server_id = ? AND mr.user_id = ?`,
    );
    this.channelOverridesStmt = db.prepare<OverrideRow, [string]>(
      "SELECT role_id, allow, deny FROM channel_overrides WHERE channel_id = ?",
    );
    this.categoryOverridesStmt = db.prepare<OverrideRow, [string]>(
      "SELECT role_id, allow, deny FROM category_overrides WHERE category_id = ?",
    );
  }

  /** The member's standing in a server, or null for a non-member. */
  async member(serverId: string, userId: string): Promise<(AccessRow & { roles: AccessRole[] }) | null> {
    const row = await this.db.get(this.memberStmt, serverId, userId);
    return row ? { ...row, roles: await this.db.all(this.rolesStmt, serverId, userId) } : null;
  }

  async channelOverrides(channelId: string): Promise<OverrideRow[]> {
    return this.db.all(this.channelOverridesStmt, channelId);
  }

  async categoryOverrides(categoryId: string): Promise<OverrideRow[]> {
    return this.db.all(this.categoryOverridesStmt, categoryId);
  }
}
