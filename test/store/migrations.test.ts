import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrate, openDatabase, SchemaTooNewError } from "../../src/store/database.ts";
import { migrations } from "../../src/store/migrations.ts";
import { createStore } from "../../src/store/store.ts";

/** The secrets key of these throw-away databases. */
const KEY = crypto.getRandomValues(new Uint8Array(32));

const dirs: string[] = [];
const tempFile = () => {
  const dir = mkdtempSync(join(tmpdir(), "hearth-db-"));
  dirs.push(dir);
  return join(dir, "nested", "hearth.db");
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("migrations", () => {
  test("are applied once, recorded, and a second start applies nothing", () => {
    const file = tempFile();
    const db = openDatabase(file);
    expect(migrate(db)).toEqual(migrations.map((m) => m.version));
    expect(migrate(db)).toEqual([]);
    const recorded = db.query("SELECT version, name FROM schema_migrations ORDER BY version").all();
    expect(recorded).toEqual(migrations.map(({ version, name }) => ({ version, name })));
    db.close();
    const reopened = openDatabase(file);
    expect(migrate(reopened)).toEqual([]);
    reopened.close();
  });

  test("the database runs in WAL mode with foreign keys on", () => {
    const db = openDatabase(tempFile());
    expect(db.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()?.journal_mode).toBe("wal");
    expect(db.query<{ foreign_keys: number }, []>("PRAGMA foreign_keys").get()?.foreign_keys).toBe(1);
    db.close();
  });

  test("a database from a newer version is refused with a clear message", () => {
    const file = tempFile();
    const db = openDatabase(file);
    migrate(db);
    db.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, 'future', 0)");
    db.close();
    expect(() => createStore(file, KEY)).toThrow(SchemaTooNewError);
    expect(() => createStore(file, KEY)).toThrow(/schema version 9999, newer than this Hearth build supports/);
  });

  test("a failing migration leaves nothing half-applied", () => {
    const db = openDatabase(tempFile());
    const broken = [
      ...migrations,
      { version: 1000, name: "broken", sql: "CREATE TABLE half_done (id TEXT); THIS IS NOT SQL;" },
    ];
    expect(() => migrate(db, broken)).toThrow();
    expect(db.query("SELECT name FROM sqlite_master WHERE name = 'half_done'").all()).toEqual([]);
    expect(db.query("SELECT MAX(version) AS v FROM schema_migrations").get()).toEqual({ v: migrations.at(-1)!.version });
    db.close();
  });
});

describe("users repository", () => {
  test("create is atomic about uniqueness and counts users and bots", async () => {
    const store = createStore(":memory:", KEY);
    const a = await store.users.create({ username: "Ann", email: "ann@x.test", passwordHash: "h", isBot: false });
    expect(a.ok).toBe(true);
    expect(await store.users.create({ username: "ANN", email: "other@x.test", passwordHash: "h", isBot: false })).toEqual({ ok: false, taken: "username" });
    expect(await store.users.create({ username: "Bo", email: "ANN@x.test", passwordHash: "h", isBot: false })).toEqual({ ok: false, taken: "email" });
    // Bots are named after their application and may share a name.
    expect((await store.users.create({ username: "Ann", email: null, passwordHash: null, isBot: true })).ok).toBe(true);
    expect((await store.users.create({ username: "Ann", email: null, passwordHash: null, isBot: true })).ok).toBe(true);
    expect(await store.stats.counts()).toEqual({ users: 1, bots: 2, servers: 0, messages: 0 });
    store.close();
  });

  test("a password change bumps the token version", async () => {
    const store = createStore(":memory:", KEY);
    const created = await store.users.create({ username: "Cy", email: "cy@x.test", passwordHash: "h1", isBot: false });
    if (!created.ok) throw new Error("create failed");
    expect(created.user.token_version).toBe(0);
    const changed = await store.users.setPassword(created.user.id, "h2");
    expect(changed?.token_version).toBe(1);
    expect(changed?.password_hash).toBe("h2");
    store.close();
  });
});
