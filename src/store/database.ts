import { Database } from "bun:sqlite";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { migrations as allMigrations, type Migration } from "./migrations.ts";

export class SchemaTooNewError extends Error {}

/**
 * The database file is readable by its owner only (0600; its folder, when created here, 0700).
 * SQLite gives the WAL and shared-memory files the database file's mode, so they are 0600 too
 * whenever they are created; existing ones are narrowed here as well.
 */
function makePrivate(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  closeSync(openSync(file, "a", 0o600));
  for (const path of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(path)) chmodSync(path, 0o600);
}

/** Opens the database in WAL mode with the pragmas the store relies on. */
export function openDatabase(file: string): Database {
  if (file !== ":memory:") makePrivate(file);
  const db = new Database(file, { create: true, strict: true });
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA foreign_keys = ON");
  db.exec("PRAGMA busy_timeout = 5000");
  return db;
}

/**
 * Applies the migrations not yet recorded, each in its own transaction, and returns the
 * versions applied. A database written by a newer build is refused rather than guessed at.
 */
export function migrate(db: Database, migrations: Migration[] = allMigrations): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at INTEGER NOT NULL
  )`);
  const row = db.query<{ version: number | null }, []>("SELECT MAX(version) AS version FROM schema_migrations").get();
  const current = row?.version ?? 0;
  const latest = migrations.reduce((max, m) => Math.max(max, m.version), 0);
  if (current > latest) {
    throw new SchemaTooNewError(
      `The database is at schema version ${current}, newer than this Hearth build supports (${latest}). ` +
        "Run a newer Hearth, or restore a backup taken before the upgrade.",
    );
  }
  const applied: number[] = [];
  const record = db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)");
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    if (migration.version <= current) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      record.run(migration.version, migration.name, Math.floor(Date.now() / 1000));
    })();
    applied.push(migration.version);
  }
  return applied;
}
