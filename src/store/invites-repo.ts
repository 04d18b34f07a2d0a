import type { Database } from "./database.ts";
import { nowSeconds } from "./time.ts";

export interface InviteRow {
  id: string;
  server_id: string;
  code: string;
  max_uses: number | null;
  uses: number;
  expires_at: number | null;
  is_primary: number;
  created_by: string | null;
  created_at: number;
}

export interface InviteUseRow {
  user_id: string;
  username: string;
  avatar: string | null;
  used_at: number;
}

interface NewInvite {
  serverId: string;
  code: string;
  maxUses: number | null;
  expiresAt: number | null;
  createdBy: string;
}

/**
 * What redeeming a join code found. `joinable` means the use was already counted (for an
 * invite row) and the caller adds the membership; a vanity code counts no use.
 */
type Redemption =
  | { result: "unknown" }
  | { result: "banned" | "member" | "joinable"; serverId: string; inviteId: string | null; useId: string | null }
  | { result: "expired" | "used_up"; serverId: string };

/** Server invites and their use history. */
export class InvitesRepo {
  private readonly insertStmt;
  private readonly byIdStmt;
  private readonly byCodeStmt;
  private readonly activeStmt;
  private readonly deleteStmt;
  private readonly primaryStmt;
  private readonly setCodeStmt;
  private readonly insertPrimaryStmt;
  private readonly usesStmt;
  private readonly vanityStmt;
  private readonly bannedStmt;
  private readonly memberStmt;
  private readonly countUseStmt;
  private readonly insertUseStmt;
  private readonly uncountUseStmt;
  private readonly deleteUseStmt;
  private readonly countActiveStmt;
  private readonly purgeExpiredUnusedStmt;

  constructor(private readonly db: Database) {
    this.insertStmt = db.prepare<InviteRow, [string, string, string, number | null, number | null, string, number]>(
      `INSERT INTO invites (id, server_id, code, max_uses, expires_at, is_primary, created_by, created_at)
       VALUES (?, ?, ?, ?, ?, 0, ?, ?) RETURNING *`,
    );
    this.byIdStmt = db.prepare<InviteRow, [string]>("SELECT * FROM invites WHERE id = ?");
    // Not of a server being deleted (migration 22).
    this.byCodeStmt = db.prepare<InviteRow, [string]>(
      "SELECT i.* FROM invites i JOIN servers s ON s.id = i.server_id WHERE i.code = ? AND s.deleted_at IS NULL",
    );
    this.activeStmt = db.prepare<InviteRow, [string, number]>(
      `SELECT * FROM invites WHERE server_id = ?
         AND (expires_at IS NULL OR expires_at > ?) AND (max_uses IS NULL OR uses < max_uses)
       ORDER BY is_primary DESC, created_at DESC, id DESC`,
    );
    // invites_server serves both: the server's invites, live or not.
    this.countActiveStmt = db.prepare<{ n: number }, [string, number]>(
      `SELECT count(*) AS n FROM invites WHERE server_id = ?
         AND (expires_at IS NULL OR expires_at > ?) AND (max_uses IS NULL OR uses < max_uses)`,
    );
    this.purgeExpiredUnusedStmt = db.prepare<unknown, [string, number]>(
      "DELETE FROM invites WHERE server_id = ? AND is_primary = 0 AND uses = 0 AND expires_at IS NOT NULL AND expires_at <= ?",
    );
    this.deleteStmt = db.prepare("DELETE FROM invites WHERE id = ?");
    this.primaryStmt = db.prepare<InviteRow, [string]>("SELECT * FROM invites WHERE server_id = ? AND is_primary = 1");
    this.setCodeStmt = db.prepare<InviteRow, [string, string, number, string]>(
      "UPDATE invites SET code = ?, created_by = ?, created_at = ? WHERE id = ? RETURNING *",
    );
    this.insertPrimaryStmt = db.prepare<InviteRow, [string, string, string, string, number]>(
      `INSERT INTO invites (id, server_id, code, is_primary, created_by, created_at) VALUES (?, ?, ?, 1, ?, ?) RETURNING *`,
    );
    this.usesStmt = db.prepare<InviteUseRow, [string]>(
      `SELECT iu.user_id, u.username, u.avatar, iu.used_at FROM invite_uses iu JOIN users u ON u.id = iu.user_id
       WHERE iu.invite_id = ? ORDER BY iu.used_at DESC, iu.id DESC`,
    );
    this.vanityStmt = db.prepare<{ id: string }, [string]>(`SELECT id FROM servers WHERE vanity_code = ?${db.dialect.nocase} AND deleted_at IS NULL`);
    this.bannedStmt = db.prepare<{ one: number }, [string, string]>("SELECT 1 AS one FROM bans WHERE server_id = ? AND user_id = ?");
    this.memberStmt = db.prepare<{ one: number }, [string, string]>(
      "SELECT 1 AS one FROM server_members WHERE server_id = ? AND user_id = ?",
    );
    this.countUseStmt = db.prepare("UPDATE invites SET uses = uses + 1 WHERE id = ?");
    this.insertUseStmt = db.prepare("INSERT INTO invite_uses (id, invite_id, user_id, used_at) VALUES (?, ?, ?, ?)");
    this.uncountUseStmt = db.prepare("UPDATE invites SET uses = CASE WHEN uses > 0 THEN uses - 1 ELSE 0 END WHERE id = ?");
    this.deleteUseStmt = db.prepare("DELETE FROM invite_uses WHERE id = ?");
  }

  /**
   * A new invite, unless the server already has `maxActive` live ones (not expired, not used
   * up: null then), in one transaction. Invites that expired unused are deleted first: they have
   * no history to keep, and would otherwise pile up without bound.
   */
  async create(invite: NewInvite, maxActive: number): Promise<InviteRow | null> {
    return this.db.transaction(async (tx) => {
      await tx.lock(`invites:${invite.serverId}`);
      const now = nowSeconds();
      await tx.run(this.purgeExpiredUnusedStmt, invite.serverId, now);
      if (((await tx.get(this.countActiveStmt, invite.serverId, now))?.n ?? 0) >= maxActive) return null;
      return (await tx.get(this.insertStmt, Bun.randomUUIDv7(), invite.serverId, invite.code, invite.maxUses, invite.expiresAt, invite.createdBy, now))!;
    });
  }

  async findById(id: string): Promise<InviteRow | null> {
    return this.db.get(this.byIdStmt, id);
  }

  /** An invite by its code, else the server whose vanity code it is (redeem's resolution, without counting anything). */
  async resolve(code: string): Promise<{ invite: InviteRow | null; serverId: string | null }> {
    const invite = await this.db.get(this.byCodeStmt, code);
    return { invite, serverId: invite?.server_id ?? (await this.db.get(this.vanityStmt, code))?.id ?? null };
  }

  /** Invites that still admit someone: not expired, not used up; the primary first, then newest. */
  async listActive(serverId: string): Promise<InviteRow[]> {
    return this.db.all(this.activeStmt, serverId, nowSeconds());
  }

  async delete(id: string): Promise<boolean> {
    return (await this.db.run(this.deleteStmt, id)) > 0;
  }

  /**
   * Gives the server's primary invite a new code (creating the primary invite if it was
   * somehow missing). The invite keeps its id, use count and history; the old code stops working.
   */
  async regeneratePrimary(serverId: string, code: string, createdBy: string): Promise<InviteRow> {
    return this.db.transaction(async (tx) => {
      await tx.lock(`invites:${serverId}`);
      const primary = await tx.get(this.primaryStmt, serverId);
      const now = nowSeconds();
      if (primary) return (await tx.get(this.setCodeStmt, code, createdBy, now, primary.id))!;
      return (await tx.get(this.insertPrimaryStmt, Bun.randomUUIDv7(), serverId, code, createdBy, now))!;
    });
  }

  async uses(inviteId: string): Promise<InviteUseRow[]> {
    return this.db.all(this.usesStmt, inviteId);
  }

  /**
   * One transaction: resolves `code` (an invite code, else a server's vanity code), refuses a
   * banned user, reports an existing membership (no use counted), refuses an expired or
   * used-up invite, and otherwise counts the use and records it in the history.
   */
  async redeem(code: string, userId: string): Promise<Redemption> {
    return this.db.transaction(async (tx): Promise<Redemption> => {
      // Concurrent redeems of one code run one after another, so `max_uses` is never exceeded.
      await tx.lock(`invite:${code}`);
      const invite = await tx.get(this.byCodeStmt, code);
      const serverId = invite?.server_id ?? (await tx.get(this.vanityStmt, code))?.id;
      if (!serverId) return { result: "unknown" };
      const inviteId = invite?.id ?? null;
      if (await tx.get(this.bannedStmt, serverId, userId)) return { result: "banned", serverId, inviteId, useId: null };
      if (await tx.get(this.memberStmt, serverId, userId)) return { result: "member", serverId, inviteId, useId: null };
      if (!invite) return { result: "joinable", serverId, inviteId: null, useId: null };
      const now = nowSeconds();
      if (invite.expires_at !== null && invite.expires_at <= now) return { result: "expired", serverId };
      if (invite.max_uses !== null && invite.uses >= invite.max_uses) return { result: "used_up", serverId };
      const useId = Bun.randomUUIDv7();
      await tx.run(this.countUseStmt, invite.id);
      await tx.run(this.insertUseStmt, useId, invite.id, userId, now);
      return { result: "joinable", serverId, inviteId: invite.id, useId };
    });
  }

  /** Takes back a counted use whose join did not happen (the user became a member meanwhile). */
  async uncountUse(inviteId: string, useId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      if ((await tx.run(this.deleteUseStmt, useId)) > 0) await tx.run(this.uncountUseStmt, inviteId);
    });
  }
}
