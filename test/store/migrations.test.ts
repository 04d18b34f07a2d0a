import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SchemaTooNewError } from "../../src/store/database.ts";
import { migrate } from "../../src/store/migrate.ts";
import { migrations as postgresMigrations } from "../../src/store/postgres/migrations.ts";
import { openSqliteFile } from "../../src/store/sqlite/sqlite-database.ts";
import { migrations as sqliteMigrations } from "../../src/store/sqlite/migrations.ts";
import { createStore, migrationsOf, openDatabase } from "../../src/store/store.ts";
import { USER_COLUMNS } from "../../src/store/users-repo.ts";
import { freshDatabase, onPostgres, type TestDatabase } from "../helpers/database.ts";
import { UNDO_MIGRATION_23, UNDO_MIGRATION_24, UNDO_MIGRATION_25, UNDO_MIGRATION_27, undoMigration22 } from "../helpers/undo-migrations.ts";

/** The secrets key of these throw-away databases. */
const KEY = crypto.getRandomValues(new Uint8Array(32));

const databases: TestDatabase[] = [];
/** An empty database of the suite's kind (PostgreSQL: without the schema). */
const empty = async () => {
  const database = await freshDatabase({ file: true, migrated: false });
  databases.push(database);
  return database.location;
};
afterEach(async () => {
  for (const database of databases.splice(0)) await database.drop();
});

/** Back to a database of version 20, as far as version 21 goes: its index and columns gone. */
const UNDO_MIGRATION_21 =
  "DROP INDEX server_members_name; ALTER TABLE servers DROP COLUMN member_count; ALTER TABLE server_members DROP COLUMN username_lower; ";

describe("migrations", () => {
  test("SQLite and PostgreSQL have the same versions, in order, with the same names", () => {
    const list = (ms: typeof sqliteMigrations) => ms.map(({ version, name }) => ({ version, name }));
    expect(list(postgresMigrations)).toEqual(list(sqliteMigrations));
    expect(sqliteMigrations.map((m) => m.version)).toEqual(sqliteMigrations.map((_, i) => i + 1));
  });

  test("are applied once, recorded, and a second start applies nothing", async () => {
    const location = await empty();
    const db = await openDatabase(location);
    const migrations = migrationsOf(db);
    expect(await migrate(db, migrations)).toEqual(migrations.map((m) => m.version));
    expect(await migrate(db, migrations)).toEqual([]);
    const recorded = await db.all(db.prepare("SELECT version, name FROM schema_migrations ORDER BY version"));
    expect(recorded).toEqual(migrations.map(({ version, name }) => ({ version, name })));
    await db.close();
    const reopened = await openDatabase(location);
    expect(await migrate(reopened, migrations)).toEqual([]);
    await reopened.close();
  });

  // SQLite only: PostgreSQL has no journal mode, and enforces foreign keys always.
  test.skipIf(onPostgres)("the SQLite database runs in WAL mode with foreign keys on", () => {
    const dir = mkdtempSync(join(tmpdir(), "hearth-db-"));
    try {
      const db = openSqliteFile(join(dir, "nested", "hearth.db"));
      expect(db.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()?.journal_mode).toBe("wal");
      expect(db.query<{ foreign_keys: number }, []>("PRAGMA foreign_keys").get()?.foreign_keys).toBe(1);
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a database from a newer version is refused with a clear message", async () => {
    const location = await empty();
    const db = await openDatabase(location);
    await migrate(db, migrationsOf(db));
    await db.exec("INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, 'future', 0)");
    await db.close();
    await expect(createStore(location, KEY)).rejects.toThrow(SchemaTooNewError);
    await expect(createStore(location, KEY)).rejects.toThrow(/schema version 9999, newer than this Hearth build supports/);
  });

  test("a failing migration leaves nothing half-applied", async () => {
    const db = await openDatabase(await empty());
    const migrations = migrationsOf(db);
    const broken = [...migrations, { version: 1000, name: "broken", sql: "CREATE TABLE half_done (id TEXT); THIS IS NOT SQL;" }];
    await expect(migrate(db, broken)).rejects.toThrow();
    expect(await db.tables()).not.toContain("half_done");
    expect(await db.get(db.prepare("SELECT MAX(version) AS v FROM schema_migrations"))).toEqual({ v: migrations.at(-1)!.version });
    await db.close();
  });
});

describe("migration 15 (message-attachment-flag)", () => {
  test("marks the stored messages that have attachments, and only those", async () => {
    const location = await empty();
    const store = await createStore(location, KEY);
    const created = await store.users.create({ username: "ann", email: "ann@x.test", passwordHash: "h", isBot: false });
    if (!created.ok) throw new Error("create failed");
    const server = (await store.servers.create({ ownerId: created.user.id, name: "S", description: "", everyonePermissions: 0, primaryInviteCode: "inv14" }, 200))!;
    const [channel] = await store.channels.listByServer(server.id);
    const base = { channelId: channel!.id, serverId: server.id, userId: created.user.id, embeds: "[]", replyTo: null };
    const file = (name: string) => ({ filename: `/uploads/attachments/${name}`, original_name: name, mime_type: "text/plain", size: 3, width: null, height: null });
    const withFiles = await store.messages.insert({ ...base, content: "files", attachments: [file("a.txt"), file("b.txt")] });
    const plain = await store.messages.insert({ ...base, content: "plain" });
    expect(withFiles.has_attachments).toBe(1);
    expect(plain.has_attachments).toBe(0);
    // A reader and a DM, for migration 19's back-fill of each channel's and DM's newest message.
    const reader = await store.users.create({ username: "bo", email: "bo@x.test", passwordHash: "h", isBot: false });
    if (!reader.ok) throw new Error("create failed");
    await store.members.add(server.id, reader.user.id);
    const dm = (await store.dms.openDm(created.user.id, reader.user.id)).row;
    await store.dms.createMessage({ dmId: dm.id, userId: created.user.id, content: "first", replyTo: null, attachments: [] });
    const newestDm = await store.dms.createMessage({ dmId: dm.id, userId: created.user.id, content: "second", replyTo: null, attachments: [] });
    // Back to a database of version 14: the column gone, as a build before it left it.
    // Migration 19's triggers: per statement on SQLite, one function each on PostgreSQL.
    const lastMessageTriggers =
      store.db.dialect.name === "sqlite"
        ? "DROP TRIGGER messages_last_insert; DROP TRIGGER messages_last_delete; DROP TRIGGER dm_messages_last_insert; DROP TRIGGER dm_messages_last_delete; "
        : "DROP TRIGGER messages_last_message ON messages; DROP TRIGGER dm_messages_last_message ON dm_messages; DROP FUNCTION hearth_channel_last_message; DROP FUNCTION hearth_dm_last_message; ";
    await store.db.exec(UNDO_MIGRATION_27 + UNDO_MIGRATION_25 + UNDO_MIGRATION_24 + UNDO_MIGRATION_23 + undoMigration22(store.db.dialect.name) + "ALTER TABLE messages DROP COLUMN has_attachments; ALTER TABLE server_members DROP COLUMN server_muted; ALTER TABLE server_members DROP COLUMN server_deafened; DROP TABLE two_factor_recovery_codes; DROP TABLE revoked_tokens; ALTER TABLE users DROP COLUMN token_revocations; ALTER TABLE attachments DROP COLUMN width; ALTER TABLE attachments DROP COLUMN height; ALTER TABLE dm_attachments DROP COLUMN width; ALTER TABLE dm_attachments DROP COLUMN height; DROP TABLE notification_overrides; " + UNDO_MIGRATION_21 + lastMessageTriggers + "DROP TABLE channel_last_messages; DROP TABLE dm_last_messages; DROP TABLE channel_mentions; DELETE FROM schema_migrations WHERE version >= 15");
    await store.close();

    const upgraded = await createStore(location, KEY);
    const flags = Object.fromEntries((await upgraded.messages.page(channel!.id, null, 10)).map((m) => [m.content, m.has_attachments]));
    expect(flags).toEqual({ files: 1, plain: 0 });
    expect((await upgraded.messages.findById(withFiles.id))!.has_attachments).toBe(1);
    // Attachments stored before version 20 have no dimensions (their files are not read again).
    expect((await upgraded.messages.attachments([withFiles.id])).map((f) => [f.width, f.height])).toEqual([[null, null], [null, null]]);
    // Migration 19 filled the newest message of the messages already stored: they are unread.
    expect((await upgraded.readStates.unreadChannelsOf(reader.user.id)).map((r) => [r.channel_id, r.last_message_id])).toEqual([[channel!.id, plain.id]]);
    expect((await upgraded.readStates.unreadDmsOf(reader.user.id)).map((r) => [r.conversation_id, r.last_message_id])).toEqual([[dm.id, newestDm.id]]);
    await upgraded.close();
  });
});

describe("migration 21 (member-count-and-member-search)", () => {
  test("back-fills each server's member count and each membership's lowered username", async () => {
    const location = await empty();
    const store = await createStore(location, KEY);
    const user = async (username: string, isBot = false) => {
      const created = await store.users.create({ username, email: isBot ? null : `${username}@x.test`, passwordHash: isBot ? null : "h", isBot });
      if (!created.ok) throw new Error("create failed");
      return created.user.id;
    };
    const [ann, bo, bot] = [await user("Ann"), await user("BoB"), await user("Élan Bot", true)];
    const server = async (ownerId: string, code: string) =>
      (await store.servers.create({ ownerId, name: "S", description: "", everyonePermissions: 0, primaryInviteCode: code }, 200))!.id;
    const [big, small, left] = [await server(ann, "inv21a"), await server(bo, "inv21b"), await server(bo, "inv21c")];
    await store.members.add(big, bo);
    await store.members.add(big, bot);
    await store.members.add(small, bot);
    await store.members.add(left, ann);
    await store.members.remove(left, ann);
    await store.db.exec(UNDO_MIGRATION_27 + UNDO_MIGRATION_25 + UNDO_MIGRATION_24 + UNDO_MIGRATION_23 + undoMigration22(store.db.dialect.name) + UNDO_MIGRATION_21 + "DELETE FROM schema_migrations WHERE version >= 21");
    await store.close();

    const upgraded = await createStore(location, KEY);
    const count = async (id: string) => (await upgraded.servers.findById(id))!.member_count;
    expect([await count(big), await count(small), await count(left)]).toEqual([3, 2, 1]);
    const names = await upgraded.db.all(
      upgraded.db.prepare<{ user_id: string; username_lower: string }, [string]>("SELECT user_id, username_lower FROM server_members WHERE server_id = ? ORDER BY username_lower"),
      big,
    );
    // A-Z lowered, every other letter as it is (SQLite's lower(); translate() on PostgreSQL).
    expect(names).toEqual([
      { user_id: ann, username_lower: "ann" },
      { user_id: bo, username_lower: "bob" },
      { user_id: bot, username_lower: "Élan bot" },
    ]);
    const found = async (prefix: string) => (await upgraded.members.search(big, prefix, 100)).map((m) => m.user_id);
    expect(await found("b")).toEqual([bo]);
    expect(await found("ÉLAN B")).toEqual([bot]);
    expect(await found("élan")).toEqual([]);
    // Kept from here on by the writes themselves.
    await upgraded.members.remove(big, bo);
    expect(await count(big)).toBe(2);
    await upgraded.close();
  });
});

describe("users repository", () => {
  test("create is atomic about uniqueness and counts users and bots", async () => {
    const store = await createStore(await empty(), KEY);
    const a = await store.users.create({ username: "Ann", email: "ann@x.test", passwordHash: "h", isBot: false });
    expect(a.ok).toBe(true);
    expect(await store.users.create({ username: "ANN", email: "other@x.test", passwordHash: "h", isBot: false })).toEqual({ ok: false, taken: "username" });
    expect(await store.users.create({ username: "Bo", email: "ANN@x.test", passwordHash: "h", isBot: false })).toEqual({ ok: false, taken: "email" });
    // Bots are named after their application and may share a name.
    expect((await store.users.create({ username: "Ann", email: null, passwordHash: null, isBot: true })).ok).toBe(true);
    expect((await store.users.create({ username: "Ann", email: null, passwordHash: null, isBot: true })).ok).toBe(true);
    expect(await store.stats.counts()).toEqual({ users: 1, bots: 2, servers: 0, messages: 0 });
    await store.close();
  });

  test("concurrent registrations of one name: exactly one wins, and only the first human is an administrator", async () => {
    const store = await createStore(await empty(), KEY);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => store.users.create({ username: "Same", email: `s${i}@x.test`, passwordHash: "h", isBot: false })),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    const others = await Promise.all(
      Array.from({ length: 12 }, (_, i) => store.users.create({ username: `other${i}`, email: `o${i}@x.test`, passwordHash: "h", isBot: false })),
    );
    const admins = [...results, ...others].filter((r) => r.ok && r.user.platform_admin === 1);
    expect(admins).toHaveLength(1);
    await store.close();
  });

  test("a password change bumps the token version", async () => {
    const store = await createStore(await empty(), KEY);
    const created = await store.users.create({ username: "Cy", email: "cy@x.test", passwordHash: "h1", isBot: false });
    if (!created.ok) throw new Error("create failed");
    expect(created.user.token_version).toBe(0);
    const changed = await store.users.setPassword(created.user.id, "h2");
    expect(changed?.token_version).toBe(1);
    expect(await store.users.passwordHashOf(created.user.id)).toBe("h2");
    await store.close();
  });

  test("a user row holds every column of users but the password hash, which only the login lookup reads", async () => {
    const location = await empty();
    const db = await openDatabase(location);
    await migrate(db, migrationsOf(db));
    const id = "u1";
    await db.run(db.prepare("INSERT INTO users (id, username, email, password_hash, is_bot, created_at, updated_at) VALUES (?, 'Dee', 'dee@x.test', 'h', 0, 1, 1)"), id);
    const all = await db.get<Record<string, unknown>, [string]>(db.prepare("SELECT * FROM users WHERE id = ?"), id);
    await db.close();
    expect([...USER_COLUMNS, "password_hash"].sort()).toEqual(Object.keys(all!).sort());
    const store = await createStore(location, KEY);
    const row = await store.users.findById(id);
    expect(Object.keys(row!).sort()).toEqual([...USER_COLUMNS].sort());
    expect(row).not.toHaveProperty("password_hash");
    expect(await store.users.findByLogin("dee@x.test")).toMatchObject({ id, password_hash: "h" });
    expect(await store.users.passwordHashOf(id)).toBe("h");
    await store.close();
  });
});
