import { SchemaTooNewError, type Database } from "./database.ts";
import { nowSeconds } from "./time.ts";

/**
 * A numbered schema migration. Each database has its own list (store/sqlite/migrations.ts,
 * store/postgres/migrations.ts) with the same numbers and names: version N is the same change
 * on both. Never edit a migration that has shipped: add the next number to both lists.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * Applies the migrations not yet recorded in `schema_migrations`, each in its own transaction,
 * and returns the versions applied. A database written by a newer build is refused
 * (SchemaTooNewError) rather than guessed at. Several processes may start at once on one
 * PostgreSQL: each step holds the `migrations` lock and reads the recorded version again.
 */
export async function migrate(db: Database, migrations: Migration[]): Promise<number[]> {
  const latest = migrations.reduce((max, m) => Math.max(max, m.version), 0);
  await db.transaction(async (tx) => {
    await tx.lock("migrations");
    await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      applied_at BIGINT NOT NULL
    )`);
  });
  const current = db.prepare<{ version: number | null }, []>("SELECT max(version) AS version FROM schema_migrations");
  const record = db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)");
  const start = (await db.get(current))?.version ?? 0;
  if (start > latest) {
    throw new SchemaTooNewError(
      `The database is at schema version ${start}, newer than this Hearth build supports (${latest}). ` +
        "Run a newer Hearth, or restore a backup taken before the upgrade.",
    );
  }
  const applied: number[] = [];
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    if (migration.version <= start) continue;
    const done = await db.transaction(async (tx) => {
      await tx.lock("migrations");
      if (((await tx.get(current))?.version ?? 0) >= migration.version) return false; // another process applied it
      await tx.exec(migration.sql);
      await tx.run(record, migration.version, migration.name, nowSeconds());
      return true;
    });
    if (done) applied.push(migration.version);
  }
  return applied;
}
