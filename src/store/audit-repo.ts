import type { Database } from "./database.ts";
import { nowSeconds } from "./time.ts";

export interface AuditEntryRow {
  id: string;
  server_id: string;
  actor_id: string | null;
  actor_username: string | null;
  actor_avatar: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  target_username: string | null;
  changes: string;
  created_at: number;
}

interface NewAuditEntry {
  serverId: string;
  actorId: string;
  action: string;
  targetType: string | null;
  targetId: string | null;
  changes: Record<string, unknown>;
}

/** Which entries a page holds: only one action, only one actor (null: any). */
export interface AuditFilter {
  action: string | null;
  actorId: string | null;
}

const ANY: AuditFilter = { action: null, actorId: null };

/** A page from `limit + 1` rows: the extra row only tells that there are more. */
const pageOf = (rows: AuditEntryRow[], limit: number) => ({ rows: rows.slice(0, limit), hasMore: rows.length > limit });

/** The per-server audit log; newest first, keyset paged by (created_at, id). */
export class AuditRepo {
  private readonly insertStmt;
  private readonly pageStmt;
  private readonly afterEntryStmt;
  private readonly entryStmt;

  constructor(private readonly db: Database) {
    this.insertStmt = db.prepare(
      `INSERT INTO audit_log (id, server_id, actor_id, action, target_type, target_id, changes, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ${db.dialect.json("?")}, ?)`,
    );
    // target_username is resolved at read time, so older entries get it too.
    const select = `SELECT a.id, a.server_id, a.actor_id, actor.username AS actor_username, actor.avatar AS actor_avatar,
         a.action, a.target_type, a.target_id,
         CASE WHEN a.target_type = 'member' THEN target.username END AS target_username,
         a.changes, a.created_at
       FROM audit_log a
       LEFT JOIN users actor ON actor.id = a.actor_id
       LEFT JOIN users target ON target.id = a.target_id AND a.target_type = 'member'`;
    // The filter's parameters come last; a null one matches every entry (cast, so PostgreSQL knows its type).
    const filtered = (action: string, actor: string) =>
      `(CAST(${action} AS TEXT) IS NULL OR a.action = ${action}) AND (CAST(${actor} AS TEXT) IS NULL OR a.actor_id = ${actor})`;
    this.pageStmt = db.prepare<AuditEntryRow, [string, number, number, string | null, string | null]>(
      `${select} WHERE a.server_id = ?1 AND a.created_at < ?2 AND ${filtered("?4", "?5")}
       ORDER BY a.created_at DESC, a.id DESC LIMIT ?3`,
    );
    this.afterEntryStmt = db.prepare<AuditEntryRow, [string, number, string, number, string | null, string | null]>(
      `${select} WHERE a.server_id = ?1 AND (a.created_at < ?2 OR (a.created_at = ?2 AND a.id < ?3)) AND ${filtered("?5", "?6")}
       ORDER BY a.created_at DESC, a.id DESC LIMIT ?4`,
    );
    this.entryStmt = db.prepare<{ id: string; created_at: number }, [string, string]>(
      "SELECT id, created_at FROM audit_log WHERE server_id = ? AND id = ?",
    );
  }

  async record(entry: NewAuditEntry): Promise<void> {
    await this.db.run(
      this.insertStmt,
      Bun.randomUUIDv7(),
      entry.serverId,
      entry.actorId,
      entry.action,
      entry.targetType,
      entry.targetId,
      JSON.stringify(entry.changes),
      nowSeconds(),
    );
  }

  /** Entries strictly before `before` (unix seconds), newest first; one extra row tells hasMore. */
  async page(serverId: string, before: number, limit: number, filter: AuditFilter = ANY): Promise<{ rows: AuditEntryRow[]; hasMore: boolean }> {
    return pageOf(await this.db.all(this.pageStmt, serverId, before, limit + 1, filter.action, filter.actorId), limit);
  }

  /**
   * The entries that come after entry `entryId` in the newest-first order, so pages never skip or
   * repeat an entry; null when that entry is not in this server's log.
   */
  async pageAfter(
    serverId: string,
    entryId: string,
    limit: number,
    filter: AuditFilter = ANY,
  ): Promise<{ rows: AuditEntryRow[]; hasMore: boolean } | null> {
    const anchor = await this.db.get(this.entryStmt, serverId, entryId);
    if (!anchor) return null;
    const rows = await this.db.all(this.afterEntryStmt, serverId, anchor.created_at, anchor.id, limit + 1, filter.action, filter.actorId);
    return pageOf(rows, limit);
  }
}
