/**
 * Many members in one server, built through the store's database in one transaction of a few
 * statements (one multi-row INSERT of users, one of memberships, with `roleId` one of their
 * role, and the stored member count raised to match): the fixture of a large server
 * (docs/servers.md, "Members") for the web app's tests, the scale tests and the benches. The users
 * are offline and never log in; their ids are `<prefix>-0000-7000-8000-<n as 12 hex digits>`,
 * UUIDs older than any the app makes, so they come first in the member list's pages (by user
 * id), and their names are `<tag><n, 6 digits>`.
 */
import type { Store } from "../../src/store/store.ts";

let batches = 0;

export interface BulkMembers {
  /** The n-th user's id (1-based). */
  idOf(n: number): string;
  /** The n-th user's name. */
  nameOf(n: number): string;
}

export interface BulkOptions {
  /** A role of the server every one of them holds. */
  roleId?: string;
}

export async function addBulkMembers(store: Store, serverId: string, count: number, tag: string, options: BulkOptions = {}): Promise<BulkMembers> {
  // Eight hex digits below any UUIDv7 of today (those start 019… and up), one range per call.
  const prefix = `0190${(++batches + (process.pid % 4096) * 16).toString(16).padStart(4, "0")}`;
  const now = Math.floor(Date.now() / 1000);
  const sqlite = store.db.dialect.name === "sqlite";
  const numbers = sqlite ? "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?2)" : "WITH n(i) AS (SELECT generate_series(1, ?2::int))";
  const id = sqlite ? "printf('%s-0000-7000-8000-%012x', ?1, i)" : "?1 || '-0000-7000-8000-' || lpad(to_hex(i), 12, '0')";
  const name = sqlite ? "?3 || printf('%06d', i)" : "?3 || lpad(i::text, 6, '0')";
  await store.db.transaction(async (tx) => {
    // PostgreSQL: the per-row counter trigger would update one row once per user, in one
    // transaction (each update a new version of it: quadratic); it is off for this insert, in
    // this transaction only, and the counter is raised once instead.
    if (!sqlite) await tx.exec("ALTER TABLE users DISABLE TRIGGER users_count");
    await tx.run(
      store.db.prepare<unknown, [string, number, string, number]>(
        `${numbers} INSERT INTO users (id, username, email, password_hash, is_bot, created_at, updated_at) SELECT ${id}, ${name}, NULL, NULL, 0, ?4, ?4 FROM n`,
      ),
      prefix,
      count,
      tag,
      now,
    );
    if (!sqlite) {
      await tx.exec("ALTER TABLE users ENABLE TRIGGER users_count");
      await tx.run(store.db.prepare<unknown, [number]>("UPDATE platform_counters SET value = value + ?1 WHERE name = 'users'"), count);
    }
    await tx.run(
      store.db.prepare<unknown, [string, number, string, number, string]>(
        `${numbers} INSERT INTO server_members (server_id, user_id, role, joined_at, username_lower) SELECT ?5, ${id}, 'member', ?4, ${store.db.dialect.asciiLower(name)} FROM n`,
      ),
      prefix,
      count,
      tag,
      now,
      serverId,
    );
    if (options.roleId) {
      await tx.run(
        store.db.prepare<unknown, [string, number, string, string]>(`${numbers} INSERT INTO member_roles (server_id, user_id, role_id) SELECT ?3, ${id}, ?4 FROM n`),
        prefix,
        count,
        serverId,
        options.roleId,
      );
    }
    await tx.run(store.db.prepare<unknown, [number, string]>("UPDATE servers SET member_count = member_count + ?1 WHERE id = ?2"), count, serverId);
  });
  return {
    idOf: (n) => `${prefix}-0000-7000-8000-${n.toString(16).padStart(12, "0")}`,
    nameOf: (n) => `${tag}${n.toString().padStart(6, "0")}`,
  };
}
