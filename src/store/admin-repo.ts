import type { Database } from "./database.ts";
import { userColumns, type UserRow } from "./users-repo.ts";
import { containsPattern } from "./like.ts";
import { nowSeconds } from "./time.ts";

/** Filters of the administrators' user list; null means "any". */
export interface UserFilter {
  q: string | null;
  bot: boolean | null;
  premium: boolean | null;
  admin: boolean | null;
  disabled: boolean | null;
}

export interface AdminServerRow {
  id: string;
  name: string;
  description: string;
  icon: string | null;
  owner_id: string;
  owner_username: string | null;
  verified: number;
  member_count: number;
  created_at: number;
}

const bit = (value: boolean | null) => (value === null ? null : value ? 1 : 0);

/**
 * What platform administrators list and change across every user and server (docs/admin.md).
 * Lists are newest first, keyset-paged by id (UUIDv7) over the primary key; a search is a
 * case-insensitive substring scan, which is fine for an operator's tool.
 */
export class AdminRepo {
  private readonly usersStmt;
  private readonly userCountsStmt;
  private readonly serversStmt;
  private readonly serverStmt;
  private readonly setVerifiedStmt;

  constructor(private readonly db: Database) {
    this.usersStmt = db.prepare<UserRow, [Record<string, string | number | null>]>(
      `SELECT ${userColumns()} FROM users
       WHERE (CAST($before AS TEXT) IS NULL OR id < $before)
         AND (CAST($q AS TEXT) IS NULL OR username LIKE $q ESCAPE '\\' OR email LIKE $q ESCAPE '\\')
         AND (CAST($bot AS INTEGER) IS NULL OR is_bot = $bot)
         AND (CAST($premium AS INTEGER) IS NULL OR premium = $premium)
         AND (CAST($admin AS INTEGER) IS NULL OR platform_admin = $admin)
         AND (CAST($disabled AS INTEGER) IS NULL OR (CASE WHEN disabled_at IS NULL THEN 0 ELSE 1 END) = $disabled)
       ORDER BY id DESC LIMIT $limit`,
    );
    this.userCountsStmt = db.prepare<{ servers: number; owned_servers: number }, [string, string]>(
      `SELECT (SELECT count(*) FROM server_members WHERE user_id = ?) AS servers,
         (SELECT count(*) FROM servers WHERE owner_id = ? AND deleted_at IS NULL) AS owned_servers`,
    );
    const serverSelect = `SELECT s.id, s.name, s.description, s.icon, s.owner_id, o.username AS owner_username, s.verified,
         s.member_count, s.created_at
       FROM servers s LEFT JOIN users o ON o.id = s.owner_id`;
    this.serversStmt = db.prepare<AdminServerRow, [Record<string, string | number | null>]>(
      `${serverSelect}
       WHERE s.deleted_at IS NULL AND (CAST($before AS TEXT) IS NULL OR s.id < $before)
         AND (CAST($q AS TEXT) IS NULL OR lower(s.name) LIKE lower($q) ESCAPE '\\' OR s.vanity_code LIKE $q ESCAPE '\\')
         AND (CAST($verified AS INTEGER) IS NULL OR s.verified = $verified)
       ORDER BY s.id DESC LIMIT $limit`,
    );
    this.serverStmt = db.prepare<AdminServerRow, [string]>(`${serverSelect} WHERE s.id = ? AND s.deleted_at IS NULL`);
    this.setVerifiedStmt = db.prepare("UPDATE servers SET verified = ?, updated_at = ? WHERE id = ?");
  }

  async users(filter: UserFilter, before: string | null, limit: number): Promise<UserRow[]> {
    return this.db.all(this.usersStmt, {
      before,
      q: filter.q === null ? null : containsPattern(filter.q),
      bot: bit(filter.bot),
      premium: bit(filter.premium),
      admin: bit(filter.admin),
      disabled: bit(filter.disabled),
      limit,
    });
  }

  /** How many servers the user is in, and owns. */
  async userCounts(userId: string): Promise<{ servers: number; owned_servers: number }> {
    return (await this.db.get(this.userCountsStmt, userId, userId)) ?? { servers: 0, owned_servers: 0 };
  }

  async servers(filter: { q: string | null; verified: boolean | null }, before: string | null, limit: number): Promise<AdminServerRow[]> {
    return this.db.all(this.serversStmt, {
      before,
      q: filter.q === null ? null : containsPattern(filter.q),
      verified: bit(filter.verified),
      limit,
    });
  }

  async server(id: string): Promise<AdminServerRow | null> {
    return this.db.get(this.serverStmt, id);
  }

  /** Sets the verified flag; null if there is no such server. */
  async setServerVerified(id: string, verified: boolean): Promise<AdminServerRow | null> {
    if ((await this.db.run(this.setVerifiedStmt, verified ? 1 : 0, nowSeconds(), id)) === 0) return null;
    return this.db.get(this.serverStmt, id);
  }
}
