import type { Database } from "./database.ts";
import { userColumns, type UserRow } from "./users-repo.ts";
import { nowSeconds } from "./time.ts";

export interface PlatformLogRow {
  id: string;
  actor_id: string | null;
  actor_username: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  changes: string;
  created_at: number;
}

interface NewPlatformLogEntry {
  actorId: string | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  changes: Record<string, unknown>;
}

/** Why an administrator flag could not be changed. */
type SetAdminResult = { ok: true; user: UserRow } | { ok: false; reason: "not_found" | "last_admin" };

/** Platform-wide state: administrators, settings (JSON by key) and the platform log. */
export class PlatformRepo {
  private readonly settingsStmt;
  private readonly putSettingStmt;
  private readonly setAdminStmt;
  private readonly humanById;
  private readonly adminCountStmt;
  private readonly setDisabledStmt;
  private readonly insertLogStmt;
  private readonly logPageStmt;

  constructor(private readonly db: Database) {
    this.settingsStmt = db.prepare<{ key: string; value: string }, []>("SELECT key, value FROM platform_settings");
    this.putSettingStmt = db.prepare(
      `INSERT INTO platform_settings (key, value, updated_by, updated_at) VALUES (?, ${db.dialect.json("?")}, ?, ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_by = excluded.updated_by,
         updated_at = excluded.updated_at`,
    );
    this.setAdminStmt = db.prepare<UserRow, [number, number, string]>(
      `UPDATE users SET platform_admin = ?, updated_at = ? WHERE id = ? AND is_bot = 0 RETURNING ${userColumns()}`,
    );
    this.humanById = db.prepare<UserRow, [string]>(`SELECT ${userColumns()} FROM users WHERE id = ? AND is_bot = 0`);
    this.adminCountStmt = db.prepare<{ n: number }, []>(
      "SELECT count(*) AS n FROM users WHERE platform_admin = 1 AND is_bot = 0 AND disabled_at IS NULL",
    );
    this.setDisabledStmt = db.prepare<UserRow, [number | null, number, string]>(
      `UPDATE users SET disabled_at = ?, updated_at = ? WHERE id = ? RETURNING ${userColumns()}`,
    );
    this.insertLogStmt = db.prepare(
      `INSERT INTO platform_log (id, actor_id, action, target_type, target_id, changes, created_at)
       VALUES (?, ?, ?, ?, ?, ${db.dialect.json("?")}, ?)`,
    );
    this.logPageStmt = db.prepare<PlatformLogRow, [string, number]>(
      `SELECT l.id, l.actor_id, actor.username AS actor_username, l.action, l.target_type, l.target_id,
         l.changes, l.created_at
       FROM platform_log l LEFT JOIN users actor ON actor.id = l.actor_id
       WHERE l.id < ? ORDER BY l.id DESC LIMIT ?`,
    );
  }

  /** Every stored setting, raw JSON text by key. */
  async settings(): Promise<Map<string, string>> {
    return new Map((await this.db.all(this.settingsStmt)).map((row) => [row.key, row.value]));
  }

  async putSetting(key: string, json: string, updatedBy: string | null): Promise<void> {
    await this.db.run(this.putSettingStmt, key, json, updatedBy, nowSeconds());
  }

  /**
   * Grants or withdraws platform administration; bots can never hold it (`not_found`). The last
   * active administrator is never withdrawn (`last_admin`): checked and written in one transaction.
   */
  async setAdmin(userId: string, admin: boolean): Promise<SetAdminResult> {
    return this.db.transaction(async (tx): Promise<SetAdminResult> => {
      await tx.lock("platform-admins");
      const user = await tx.get(this.humanById, userId);
      if (!user) return { ok: false, reason: "not_found" };
      if (!admin && user.platform_admin === 1 && user.disabled_at === null && ((await tx.get(this.adminCountStmt))?.n ?? 0) <= 1) {
        return { ok: false, reason: "last_admin" };
      }
      return { ok: true, user: (await tx.get(this.setAdminStmt, admin ? 1 : 0, nowSeconds(), userId))! };
    });
  }

  /** Disables (now) or re-enables an account, bots included. Null if there is no such user. */
  async setDisabled(userId: string, disabled: boolean): Promise<UserRow | null> {
    return this.db.get(this.setDisabledStmt, disabled ? nowSeconds() : null, nowSeconds(), userId);
  }

  async log(entry: NewPlatformLogEntry): Promise<string> {
    const id = Bun.randomUUIDv7();
    await this.db.run(this.insertLogStmt, id, entry.actorId, entry.action, entry.targetType, entry.targetId, JSON.stringify(entry.changes), nowSeconds());
    return id;
  }

  /** Newest first; ids are UUIDv7, so `before` (an entry id) pages without ties. */
  async logPage(before: string | null, limit: number): Promise<PlatformLogRow[]> {
    return this.db.all(this.logPageStmt, before ?? "\uffff", limit);
  }
}
