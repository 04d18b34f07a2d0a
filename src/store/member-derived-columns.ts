import type { Database, Statement } from "./database.ts";

/**
 * The columns migration 21 derives from other rows, and the statements that keep them, run by
 * each repository that writes what they derive from, in that write's own transaction (no
 * trigger: a per-row trigger on a bulk delete would update one counter row per deleted row).
 *
 * - `servers.member_count`: the server's rows in server_members. Members are added by
 *   MembersRepo.add and ServersRepo.create (the owner), removed by MembersRepo.remove and, with
 *   a bot's user, by ApplicationsRepo.deleteWithBot. Deleting a server takes its count with it.
 * - `server_members.username_lower`: the member's username with A-Z lowered (the member
 *   search's index). Written with the membership, and again when the username changes
 *   (UsersRepo.updateProfile, ApplicationsRepo.rename).
 */

/** `servers.member_count` one up or down, for the membership inserted or deleted (`?` the server id). */
export const memberCountChange = (db: Database, sign: "+" | "-"): Statement<unknown, [string]> =>
  db.prepare(`UPDATE servers SET member_count = member_count ${sign} 1 WHERE id = ?`);

/**
 * One less member in every server the user `?` belongs to, before that user is deleted (their
 * memberships go by cascade). server_members_user finds the servers, their primary key each row.
 */
export const memberCountsDownForUser = (db: Database): Statement<unknown, [string]> =>
  db.prepare("UPDATE servers SET member_count = member_count - 1 WHERE id IN (SELECT server_id FROM server_members WHERE user_id = ?)");

/**
 * The lowered username of a new membership: an expression of the user id parameter `param`
 * (a parameter of its own: PostgreSQL deduces one type per parameter, and the inserted
 * user_id's is the domain hearth_id, this comparison's text).
 */
export const usernameLowerOf = (db: Database, param: string): string =>
  `(SELECT ${db.dialect.asciiLower("username")} FROM users WHERE id = ${param})`;

/** Every membership of user `?1` takes their (new) username, lowered; server_members_user finds them. */
export const memberUsernameRefresh = (db: Database): Statement<unknown, [string]> =>
  db.prepare(`UPDATE server_members SET username_lower = ${usernameLowerOf(db, "?1")} WHERE user_id = ?1`);
