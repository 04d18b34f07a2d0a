import type { Database, Transaction } from "./database.ts";
import { nowSeconds } from "./time.ts";

export interface RoleRow {
  id: string;
  server_id: string;
  name: string;
  color: string;
  position: number;
  permissions: number;
  hoist: number;
  is_default: number;
  managed_bot_id: string | null;
  created_at: number;
}

export interface NewRole {
  serverId: string;
  name: string;
  color: string;
  permissions: number;
  hoist: boolean;
  /** The bot whose managed role this is (SPEC.md "Role"). */
  managedBotId?: string | null;
  /**
   * Where to insert it: the role there and every role above move up one. Absent: on top.
   * Clamped to 1..top, since the default role keeps position 0.
   */
  position?: number;
}

export interface RoleChanges {
  name?: string;
  color?: string;
  permissions?: number;
  hoist?: boolean;
}

/** A role whose position a write changed, with the position it had. */
export interface MovedRole {
  role: RoleRow;
  from: number;
}

/**
 * Server roles and who holds them. Custom role positions are kept dense (1..n, the default
 * role at 0), so a position always means "the n-th role from the bottom"; every write that
 * moves roles does it in one transaction.
 */
export class RolesRepo {
  private readonly listStmt;
  private readonly findStmt;
  private readonly topStmt;
  private readonly insertStmt;
  private readonly shiftUpStmt;
  private readonly shiftDownStmt;
  private readonly setPositionStmt;
  private readonly updateStmt;
  private readonly deleteStmt;
  private readonly memberRolesStmt;
  private readonly assignStmt;
  private readonly unassignStmt;
  private readonly holdersStmt;
  private readonly managedStmt;
  private readonly countOfServer;

  constructor(private readonly db: Database) {
    this.listStmt = db.prepare<RoleRow, [string]>("SELECT * FROM roles WHERE server_id = ? ORDER BY position DESC, id");
    this.findStmt = db.prepare<RoleRow, [string, string]>("SELECT * FROM roles WHERE server_id = ? AND id = ?");
    // roles_server serves it; `@everyone` is not counted.
    this.countOfServer = db.prepare<{ n: number }, [string]>("SELECT count(*) AS n FROM roles WHERE server_id = ? AND is_default = 0");
    this.topStmt = db.prepare<{ top: number }, [string]>("SELECT coalesce(max(position), 0) AS top FROM roles WHERE server_id = ?");
    this.insertStmt = db.prepare<RoleRow, [string, string, string, string, number, number, number, string | null, number]>(
      `INSERT INTO roles (id, server_id, name, color, position, permissions, hoist, is_default, managed_bot_id, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?) RETURNING *`,
    );
    this.shiftUpStmt = db.prepare<RoleRow, [string, number]>(
      "UPDATE roles SET position = position + 1 WHERE server_id = ? AND is_default = 0 AND position >= ? RETURNING *",
    );
    this.shiftDownStmt = db.prepare<RoleRow, [string, number]>(
      "UPDATE roles SET position = position - 1 WHERE server_id = ? AND is_default = 0 AND position > ? RETURNING *",
    );
    this.setPositionStmt = db.prepare<RoleRow, [number, string]>("UPDATE roles SET position = ? WHERE id = ? RETURNING *");
    this.updateStmt = db.prepare<RoleRow, [string | null, string | null, number | null, number | null, string, string]>(
      `UPDATE roles SET name = coalesce(?, name), color = coalesce(?, color), permissions = coalesce(?, permissions),
         hoist = coalesce(?, hoist)
       WHERE server_id = ? AND id = ? RETURNING *`,
    );
    this.deleteStmt = db.prepare<RoleRow, [string, string]>("DELETE FROM roles WHERE server_id = ? AND id = ? AND is_default = 0 RETURNING *");
    this.memberRolesStmt = db.prepare<RoleRow, [string, string]>(
      `SELECT r.* FROM member_roles mr JOIN roles r ON r.id = mr.role_id
       WHERE mr.server_id = ? AND mr.user_id = ? ORDER BY r.position DESC, r.id`,
    );
    // Inserts only while both the membership and the role (in that server) exist, so a member
    // leaving or a role deleted meanwhile is a no-op rather than a constraint error.
    this.assignStmt = db.prepare<unknown, [string, string, string, string, string, string, string]>(
      `INSERT INTO member_roles (server_id, user_id, role_id)
       SELECT CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT)
       WHERE EXISTS (SELECT 1 FROM server_members WHERE server_id = ? AND user_id = ?)
         AND EXISTS (SELECT 1 FROM roles WHERE id = ? AND server_id = ?)
       ON CONFLICT DO NOTHING`,
    );
    this.holdersStmt = db.prepare<{ user_id: string }, [string]>("SELECT user_id FROM member_roles WHERE role_id = ?");
    this.unassignStmt = db.prepare("DELETE FROM member_roles WHERE server_id = ? AND user_id = ? AND role_id = ?");
    this.managedStmt = db.prepare<RoleRow, [string, string]>(
      "SELECT * FROM roles WHERE server_id = ? AND managed_bot_id = ? ORDER BY created_at, id LIMIT 1",
    );
  }

  /** Highest first, the default role last. */
  async list(serverId: string): Promise<RoleRow[]> {
    return this.db.all(this.listStmt, serverId);
  }

  async find(serverId: string, roleId: string): Promise<RoleRow | null> {
    return this.db.get(this.findStmt, serverId, roleId);
  }

  /**
   * The new role, and the roles it pushed up when inserted below the top; null when the server
   * already holds `maxPerServer` roles besides `@everyone`.
   */
  async create(role: NewRole, maxPerServer: number): Promise<{ role: RoleRow; moved: MovedRole[] } | null> {
    return this.db.transaction(async (tx) => {
      await tx.lock(`roles:${role.serverId}`);
      if (await this.isFull(tx, role.serverId, maxPerServer)) return null;
      const top = (await tx.get(this.topStmt, role.serverId))?.top ?? 0;
      const position = role.position === undefined ? top + 1 : Math.min(Math.max(role.position, 1), top + 1);
      const moved = (await tx.all(this.shiftUpStmt, role.serverId, position)).map((r) => ({ role: r, from: r.position - 1 }));
      const row = (await tx.get(this.insertStmt, 
        Bun.randomUUIDv7(),
        role.serverId,
        role.name,
        role.color,
        position,
        role.permissions,
        role.hoist ? 1 : 0,
        role.managedBotId ?? null,
        nowSeconds(),
      ))!;
      return { role: row, moved };
    });
  }

  private async isFull(tx: Transaction, serverId: string, maxPerServer: number): Promise<boolean> {
    return ((await tx.get(this.countOfServer, serverId))?.n ?? 0) >= maxPerServer;
  }

  async update(serverId: string, roleId: string, changes: RoleChanges): Promise<RoleRow | null> {
    const hoist = changes.hoist === undefined ? null : changes.hoist ? 1 : 0;
    return this.db.get(this.updateStmt, changes.name ?? null, changes.color ?? null, changes.permissions ?? null, hoist, serverId, roleId);
  }

  /** Deletes a custom role (never the default one); the roles above it move down one. */
  async delete(serverId: string, roleId: string): Promise<{ role: RoleRow; moved: MovedRole[] } | null> {
    return this.db.transaction(async (tx) => {
      await tx.lock(`roles:${serverId}`);
      const role = await tx.get(this.deleteStmt, serverId, roleId);
      if (!role) return null;
      const moved = (await tx.all(this.shiftDownStmt, serverId, role.position)).map((r) => ({ role: r, from: r.position + 1 }));
      return { role, moved };
    });
  }

  /**
   * Rewrites custom role positions in one transaction. `plan` sees the current roles (highest
   * first) and answers the new position of every custom role; it may throw to refuse, which
   * rolls nothing back because nothing was written yet. Answers the roles that moved.
   */
  async reorder(serverId: string, plan: (roles: RoleRow[]) => Map<string, number>): Promise<MovedRole[]> {
    return this.db.transaction(async (tx) => {
      await tx.lock(`roles:${serverId}`);
      const roles = await tx.all(this.listStmt, serverId);
      const positions = plan(roles);
      const moved: MovedRole[] = [];
      for (const role of roles) {
        const position = positions.get(role.id);
        if (position === undefined || position === role.position || role.is_default) continue;
        moved.push({ role: (await tx.get(this.setPositionStmt, position, role.id))!, from: role.position });
      }
      return moved;
    });
  }

  /** The member's custom roles, highest first. */
  async ofMember(serverId: string, userId: string): Promise<RoleRow[]> {
    return this.db.all(this.memberRolesStmt, serverId, userId);
  }

  /** Who holds the role. */
  async holders(roleId: string): Promise<string[]> {
    return (await this.db.all(this.holdersStmt, roleId)).map((r) => r.user_id);
  }

  /** False when the member already held it (or is gone, or the role is). */
  async assign(serverId: string, userId: string, roleId: string): Promise<boolean> {
    return (await this.db.run(this.assignStmt, serverId, userId, roleId, serverId, userId, roleId, serverId)) > 0;
  }

  /** False when the member did not hold it. */
  async unassign(serverId: string, userId: string, roleId: string): Promise<boolean> {
    return (await this.db.run(this.unassignStmt, serverId, userId, roleId)) > 0;
  }

  /**
   * The bot's managed role in the server with `permissions` set, created (as `role` says) when
   * it has none: one transaction, so two concurrent adds never make two roles. Null when a new
   * role is needed and the server already holds `maxPerServer` roles.
   */
  async upsertManaged(role: NewRole & { managedBotId: string }, maxPerServer: number): Promise<{ role: RoleRow; before: RoleRow | null } | null> {
    return this.db.transaction(async (tx) => {
      await tx.lock(`roles:${role.serverId}`);
      const before = await tx.get(this.managedStmt, role.serverId, role.managedBotId);
      if (before) {
        const row = (await tx.get(this.updateStmt, null, null, role.permissions, null, role.serverId, before.id))!;
        return { role: row, before };
      }
      if (await this.isFull(tx, role.serverId, maxPerServer)) return null;
      const top = (await tx.get(this.topStmt, role.serverId))?.top ?? 0;
      const inserted = (await tx.get(this.insertStmt, 
        Bun.randomUUIDv7(), role.serverId, role.name, role.color, top + 1, role.permissions, role.hoist ? 1 : 0, role.managedBotId, nowSeconds(),
      ))!;
      return { role: inserted, before: null };
    });
  }

  /** The bot's managed role in the server (the oldest, should there ever be two). */
  async findManaged(serverId: string, botUserId: string): Promise<RoleRow | null> {
    return this.db.get(this.managedStmt, serverId, botUserId);
  }
}
