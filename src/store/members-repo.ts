import type { Database, SqlValue } from "./database.ts";
import type { BuiltinRole, PresenceStatus } from "./types.ts";
import { nowSeconds } from "./time.ts";
import { asciiLower, prefixRange } from "./name-prefix.ts";
import { memberCountChange, usernameLowerOf } from "./member-derived-columns.ts";

interface MemberRow {
  server_id: string;
  user_id: string;
  role: BuiltinRole;
  list_position: number;
  timeout_until: number | null;
  muted: number;
  muted_until: number | null;
  last_read_at: number | null;
  joined_at: number;
}

interface MemberListRow {
  user_id: string;
  username: string;
  avatar: string | null;
  status: PresenceStatus;
  is_bot: 0 | 1;
  role: BuiltinRole;
  joined_at: number;
  timeout_until: number | null;
  /** The user's custom status columns (UserRow): the domain decides what is shown. */
  custom_status_text: string | null;
  custom_status_emoji: string | null;
  custom_status_expires_at: number | null;
}

interface MutedServerRow {
  server_id: string;
  name: string;
  icon: string | null;
  muted_until: number | null;
}

export type MemberWithRoles = MemberListRow & { roles: string[] };

/**
 * Server membership: who belongs where, with which built-in role.
 *
 * Every write of server_members' rows is here, in ServersRepo.create (the owner) or in
 * ApplicationsRepo.deleteWithBot (a bot's memberships go with its user): each keeps the
 * server's stored `member_count` in the same transaction (member-derived-columns.ts).
 */
export class MembersRepo {
  private readonly findStmt;
  private readonly listStmt;
  private readonly pageStmt;
  private readonly searchStmt;
  private readonly searchFromStmt;
  private readonly oneStmt;
  private readonly memberRolesOfServer;
  private readonly rolesOfMembers;
  private readonly memberRoleIds;
  private readonly serverIdsStmt;
  private readonly mutualStmt;
  private readonly setRoleStmt;
  private readonly setMuteStmt;
  private readonly mutedStmt;
  private readonly markReadStmt;
  private readonly insertStmt;
  private readonly deleteStmt;
  private readonly countUp;
  private readonly countDown;
  private readonly nextListPosition;
  private readonly userIdsStmt;
  private readonly serverCountOfUser;
  private readonly serversBySizeStmt;
  private readonly membersAmongStmt;
  private readonly onlineStmt;

  constructor(private readonly db: Database) {
    this.findStmt = db.prepare<MemberRow, [string, string]>("SELECT * FROM server_members WHERE server_id = ? AND user_id = ?");
    const MEMBER = `SELECT m.user_id, u.username, u.avatar, u.status, u.is_bot, m.role, m.joined_at, m.timeout_until,
       u.custom_status_text, u.custom_status_emoji, u.custom_status_expires_at
       FROM server_members m JOIN users u ON u.id = m.user_id`;
    this.listStmt = db.prepare<MemberListRow, [string]>(`${MEMBER} WHERE m.server_id = ? ORDER BY m.joined_at, m.user_id`);
    // Keyset pages by user id: the primary key (server_id, user_id) is the order. '' is below every id.
    // The page's memberships first, then their users: with statistics, PostgreSQL would otherwise
    // merge-join the users' primary key from its start up to the page (half the users for a page
    // in the middle of a big server).
    this.pageStmt = db.prepare<MemberListRow, [string, string, number]>(
      `SELECT m.user_id, u.username, u.avatar, u.status, u.is_bot, m.role, m.joined_at, m.timeout_until,
       u.custom_status_text, u.custom_status_emoji, u.custom_status_expires_at
       FROM (SELECT user_id, role, joined_at, timeout_until FROM server_members WHERE server_id = ? AND user_id > ? ORDER BY user_id LIMIT ?) m
       JOIN users u ON u.id = m.user_id ORDER BY m.user_id`,
    );
    // A username prefix: one range of server_members_name (server_id, username_lower, user_id).
    this.searchStmt = db.prepare<MemberListRow, [string, string, string, number]>(
      `${MEMBER} WHERE m.server_id = ? AND m.username_lower >= ? AND m.username_lower < ?
       ORDER BY m.username_lower, m.user_id LIMIT ?`,
    );
    // The same without an upper bound, for a prefix that has none (name-prefix.ts, prefixRange).
    this.searchFromStmt = db.prepare<MemberListRow, [string, string, number]>(
      `${MEMBER} WHERE m.server_id = ? AND m.username_lower >= ? ORDER BY m.username_lower, m.user_id LIMIT ?`,
    );
    this.oneStmt = db.prepare<MemberListRow, [string, string]>(`${MEMBER} WHERE m.server_id = ? AND m.user_id = ?`);
    this.memberRolesOfServer = db.prepare<{ user_id: string; role_id: string }, [string]>(
      `SELECT mr.user_id, mr.role_id FROM member_roles mr JOIN roles r ON r.id = mr.role_id
       WHERE mr.server_id = ? ORDER BY r.position DESC, r.id`,
    );
    // The custom roles of a page's members only: the primary key (server_id, user_id, role_id) per member.
    this.rolesOfMembers = db.prepare<{ user_id: string; role_id: string }, [string, SqlValue]>(
      `SELECT mr.user_id, mr.role_id FROM member_roles mr JOIN roles r ON r.id = mr.role_id
       WHERE mr.server_id = ? AND mr.user_id ${db.dialect.inIdList("?")} ORDER BY r.position DESC, r.id`,
    );
    this.memberRoleIds = db.prepare<{ role_id: string }, [string, string]>(
      `SELECT mr.role_id FROM member_roles mr JOIN roles r ON r.id = mr.role_id
       WHERE mr.server_id = ? AND mr.user_id = ? ORDER BY r.position DESC, r.id`,
    );
    this.serverIdsStmt = db.prepare<{ server_id: string }, [string]>(
      "SELECT m.server_id FROM server_members m JOIN servers s ON s.id = m.server_id WHERE m.user_id = ? AND s.deleted_at IS NULL",
    );
    this.mutualStmt = db.prepare<{ id: string; name: string; icon: string | null }, [string, string]>(
      `SELECT s.id, s.name, s.icon FROM server_members a
       JOIN server_members b ON b.server_id = a.server_id AND b.user_id = ?
       JOIN servers s ON s.id = a.server_id
       WHERE a.user_id = ? AND s.deleted_at IS NULL ORDER BY s.name, s.id`,
    );
    this.setRoleStmt = db.prepare<MemberRow, [string, string, string]>(
      "UPDATE server_members SET role = ? WHERE server_id = ? AND user_id = ? RETURNING *",
    );
    this.setMuteStmt = db.prepare<MemberRow, [number, number | null, string, string]>(
      "UPDATE server_members SET muted = ?, muted_until = ? WHERE server_id = ? AND user_id = ? RETURNING *",
    );
    this.mutedStmt = db.prepare<MutedServerRow, [string, number]>(
      `SELECT m.server_id, s.name, s.icon, m.muted_until FROM server_members m JOIN servers s ON s.id = m.server_id
       WHERE m.user_id = ? AND s.deleted_at IS NULL AND m.muted = 1 AND (m.muted_until IS NULL OR m.muted_until > ?)
       ORDER BY m.list_position, s.id`,
    );
    this.insertStmt = db.prepare<MemberRow, [string, string, string, number, number, string]>(
      `INSERT INTO server_members (server_id, user_id, role, list_position, joined_at, username_lower)
       VALUES (?, ?, ?, ?, ?, ${usernameLowerOf(db, "?")})
       ON CONFLICT DO NOTHING RETURNING *`,
    );
    this.deleteStmt = db.prepare("DELETE FROM server_members WHERE server_id = ? AND user_id = ?");
    this.countUp = memberCountChange(db, "+");
    this.countDown = memberCountChange(db, "-");
    this.nextListPosition = db.prepare<{ next: number }, [string]>(
      "SELECT coalesce(max(list_position) + 1, 0) AS next FROM server_members WHERE user_id = ?",
    );
    // server_members_user serves it.
    this.serverCountOfUser = db.prepare<{ n: number }, [string]>("SELECT count(*) AS n FROM server_members WHERE user_id = ?");
    this.userIdsStmt = db.prepare<{ user_id: string }, [string]>("SELECT user_id FROM server_members WHERE server_id = ?");
    // server_members_user finds the user's servers; each one's size is its stored member_count.
    this.serversBySizeStmt = db.prepare<{ server_id: string; large: number }, [{ me: string; threshold: number }]>(
      `SELECT m.server_id, CASE WHEN s.member_count > $threshold THEN 1 ELSE 0 END AS large
       FROM server_members m JOIN servers s ON s.id = m.server_id WHERE m.user_id = $me AND s.deleted_at IS NULL`,
    );
    // The primary key probes each id.
    this.onlineStmt = db.prepare<{ n: number }, [string]>(
      "SELECT count(*) AS n FROM server_members m JOIN users u ON u.id = m.user_id WHERE m.server_id = ? AND u.status <> 'offline'",
    );
    this.membersAmongStmt = db.prepare<{ user_id: string }, [string, string]>(
      `SELECT user_id FROM server_members WHERE server_id = ? AND user_id ${db.dialect.inJsonArray("?")}`,
    );
    this.markReadStmt = db.prepare<MemberRow, [number, string, string]>(
      "UPDATE server_members SET last_read_at = ? WHERE server_id = ? AND user_id = ? RETURNING *",
    );
  }

  /**
   * Adds a member at the end of their server list; null when already a member, "full" when
   * they already belong to `maxServers` servers (the domain always passes its cap; tests that
   * seed members directly leave it out). Server creation takes the same lock and count
   * (ServersRepo.create).
   */
  async add(serverId: string, userId: string, role: BuiltinRole = "member", maxServers = Number.POSITIVE_INFINITY): Promise<MemberRow | "full" | null> {
    return this.db.transaction(async (tx) => {
      await tx.lock(`server-list:${userId}`);
      if (await tx.get(this.findStmt, serverId, userId)) return null;
      if (((await tx.get(this.serverCountOfUser, userId))?.n ?? 0) >= maxServers) return "full" as const;
      const position = (await tx.get(this.nextListPosition, userId))?.next ?? 0;
      const row = await tx.get(this.insertStmt, serverId, userId, role, position, nowSeconds(), userId);
      if (row) await tx.run(this.countUp, serverId);
      return row;
    });
  }

  /** How many servers the user belongs to. */
  async countServersOf(userId: string): Promise<number> {
    return (await this.db.get(this.serverCountOfUser, userId))?.n ?? 0;
  }

  /** Removes the membership and its custom roles (cascade); false when not a member. */
  async remove(serverId: string, userId: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      if ((await tx.run(this.deleteStmt, serverId, userId)) === 0) return false;
      await tx.run(this.countDown, serverId);
      return true;
    });
  }

  /** How many of the server's members are not offline: reads every membership, so only for servers of a bounded size (Invites.preview). */
  async onlineCount(serverId: string): Promise<number> {
    return Number((await this.db.get(this.onlineStmt, serverId))?.n ?? 0);
  }

  async userIds(serverId: string): Promise<string[]> {
    return (await this.db.all(this.userIdsStmt, serverId)).map((r) => r.user_id);
  }

  async find(serverId: string, userId: string): Promise<MemberRow | null> {
    return this.db.get(this.findStmt, serverId, userId);
  }

  /** Every member, in the order they joined, with their custom role ids (highest first). */
  async list(serverId: string): Promise<MemberWithRoles[]> {
    return withRoles(await this.db.all(this.listStmt, serverId), await this.db.all(this.memberRolesOfServer, serverId));
  }

  /** Up to `limit` members by user id, those after `after` (a user id, or null for the first page). */
  async page(serverId: string, after: string | null, limit: number): Promise<MemberWithRoles[]> {
    return this.rolesFor(serverId, await this.db.all(this.pageStmt, serverId, after ?? "", limit));
  }

  /**
   * Up to `limit` members whose username starts with `prefix`, the letters A-Z in either case
   * (as usernames compare on SQLite), ordered by that lowered name, then user id.
   */
  async search(serverId: string, prefix: string, limit: number): Promise<MemberWithRoles[]> {
    const { from, to } = prefixRange(asciiLower(prefix));
    const rows = to === null
      ? await this.db.all(this.searchFromStmt, serverId, from, limit)
      : await this.db.all(this.searchStmt, serverId, from, to, limit);
    return this.rolesFor(serverId, rows);
  }

  /** One member in the list's shape, or null when `userId` is not a member. */
  async one(serverId: string, userId: string): Promise<MemberWithRoles | null> {
    const row = await this.db.get(this.oneStmt, serverId, userId);
    return row && { ...row, roles: await this.roleIds(serverId, userId) };
  }

  /** The rows with their custom role ids, read for those members only. */
  private async rolesFor(serverId: string, rows: MemberListRow[]): Promise<MemberWithRoles[]> {
    if (rows.length === 0) return [];
    return withRoles(rows, await this.db.all(this.rolesOfMembers, serverId, this.db.dialect.idList(rows.map((m) => m.user_id))));
  }

  async roleIds(serverId: string, userId: string): Promise<string[]> {
    return (await this.db.all(this.memberRoleIds, serverId, userId)).map((r) => r.role_id);
  }

  async serverIdsOf(userId: string): Promise<string[]> {
    return (await this.db.all(this.serverIdsStmt, userId)).map((r) => r.server_id);
  }

  /**
   * The user's servers in two lists: up to `threshold` members, and larger (docs/gateway.md,
   * "Presence": presence is fanned out to the server room only up to the large-server size).
   */
  async serverIdsBySize(userId: string, threshold: number): Promise<{ small: string[]; large: string[] }> {
    const small: string[] = [];
    const large: string[] = [];
    for (const row of await this.db.all(this.serversBySizeStmt, { me: userId, threshold })) (row.large ? large : small).push(row.server_id);
    return { small, large };
  }

  /** Which of `userIds` are members of the server. */
  async membersAmong(serverId: string, userIds: readonly string[]): Promise<Set<string>> {
    if (userIds.length === 0) return new Set();
    return new Set((await this.db.all(this.membersAmongStmt, serverId, JSON.stringify(userIds))).map((r) => r.user_id));
  }

  async mutualServers(userId: string, otherId: string): Promise<{ id: string; name: string; icon: string | null }[]> {
    return this.db.all(this.mutualStmt, otherId, userId);
  }

  async setBuiltinRole(serverId: string, userId: string, role: BuiltinRole): Promise<MemberRow | null> {
    return this.db.get(this.setRoleStmt, role, serverId, userId);
  }

  /** Notification mute of a server for one member; `until` null means until unmuted. */
  async setMuted(serverId: string, userId: string, muted: boolean, until: number | null): Promise<MemberRow | null> {
    return this.db.get(this.setMuteStmt, muted ? 1 : 0, until, serverId, userId);
  }

  async mutedServers(userId: string): Promise<MutedServerRow[]> {
    return this.db.all(this.mutedStmt, userId, nowSeconds());
  }

  async markRead(serverId: string, userId: string): Promise<MemberRow | null> {
    return this.db.get(this.markReadStmt, nowSeconds(), serverId, userId);
  }
}

/** Role rows (ordered highest first) put on their members. */
function withRoles(rows: MemberListRow[], roles: { user_id: string; role_id: string }[]): MemberWithRoles[] {
  const rolesByUser = new Map<string, string[]>();
  for (const { user_id, role_id } of roles) {
    const list = rolesByUser.get(user_id);
    if (list) list.push(role_id);
    else rolesByUser.set(user_id, [role_id]);
  }
  return rows.map((m) => ({ ...m, roles: rolesByUser.get(m.user_id) ?? [] }));
}
