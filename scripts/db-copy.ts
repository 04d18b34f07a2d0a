/**
 * `npm run db:copy -- --from <sqlite file> --to <postgres url>`: moves an installation from
 * SQLite to PostgreSQL (docs/operations.md, "Moving to PostgreSQL"). Stop Hearth first.
 *
 * - The SQLite file is brought to this build's schema (as a start would), then read in one read
 *   transaction: a consistent snapshot.
 * - The PostgreSQL database is migrated and must hold no data yet; every table is copied in
 *   one transaction, parents before children, 1,000 rows per statement, and the row counts of
 *   every table (and the platform counters) are compared before it commits: on any difference
 *   nothing is written.
 * - Secrets stay sealed as they are (their authenticated data names table, column and row, which
 *   do not change): the new server uses the same secrets key (SECRETS_KEY or DATA_DIR's
 *   secrets.key). Uploads stay in DATA_DIR: nothing in them is touched.
 */
import type { Database as Sqlite } from "bun:sqlite";
import { existsSync } from "node:fs";
import type { Database } from "../src/store/database.ts";
import { isPostgresUrl, openMigratedDatabase } from "../src/store/store.ts";
import type { SqliteDatabase } from "../src/store/sqlite/sqlite-database.ts";

const USAGE = "Usage: npm run db:copy -- --from <sqlite file> --to <postgres://user:password@host:5432/database>";
/**
 * Kept by each database for itself: the migrations it ran, and what its triggers maintain as the
 * rows are copied in (the platform counters, each channel's and DM's newest message id).
 */
const NOT_COPIED = new Set(["schema_migrations", "platform_counters", "channel_last_messages", "dm_last_messages"]);
const ROWS_PER_STATEMENT = 1000;

export interface CopyReport {
  tables: { table: string; rows: number }[];
}

/** Parents before children, from PostgreSQL's foreign keys. */
async function copyOrder(target: Database, tables: string[]): Promise<string[]> {
  const edges = await target.all(
    target.prepare<{ child: string; parent: string }, []>(
      `SELECT conrelid::regclass::text AS child, confrelid::regclass::text AS parent
       FROM pg_constraint WHERE contype = 'f' AND connamespace = current_schema()::regnamespace`,
    ),
  );
  const ordered: string[] = [];
  const visit = (table: string, path: Set<string>) => {
    if (ordered.includes(table) || path.has(table)) return;
    path.add(table);
    for (const { child, parent } of edges) if (child === table && parent !== table) visit(parent, path);
    ordered.push(table);
  };
  for (const table of tables) visit(table, new Set());
  return ordered.filter((table) => tables.includes(table));
}

/** PostgreSQL text cannot hold U+0000; it becomes U+FFFD, as the store does for every write. */
const clean = (value: unknown) => (typeof value === "string" && value.includes("\0") ? value.replaceAll("\0", "\uFFFD") : value);

export async function copySqliteToPostgres(from: string, to: string, log: (line: string) => void = () => {}): Promise<CopyReport> {
  const source = (await openMigratedDatabase(from)) as SqliteDatabase;
  const target = await openMigratedDatabase(to);
  try {
    const native: Sqlite = source.native;
    const targetTables = new Set(await target.tables());
    // FTS5 tables and their shadow tables are SQLite's own search index; PostgreSQL indexes the content itself.
    const tables = (await source.tables()).filter((table) => targetTables.has(table) && !NOT_COPIED.has(table));
    const jsonColumns = await target.all(
      target.prepare<{ table_name: string; column_name: string }, []>(
        `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() AND data_type = 'jsonb'`,
      ),
    );
    const isJson = (table: string, column: string) => jsonColumns.some((c) => c.table_name === table && c.column_name === column);
    const report: CopyReport = { tables: [] };
    await target.transaction(async (tx) => {
      const held = await tx.get(target.prepare<{ n: number }, []>("SELECT count(*) AS n FROM users"));
      if ((held?.n ?? 0) > 0) throw new Error("The PostgreSQL database already holds data: copy into a new, empty database.");
      // One snapshot of the source for the whole copy (SQLite WAL: readers see one state).
      native.exec("BEGIN");
      try {
        for (const table of await copyOrder(target, tables)) {
          const columns = native.query<{ name: string }, []>(`SELECT name FROM pragma_table_info('${table}')`).all().map((c) => c.name);
          const list = columns.join(", ");
          // `rowid` order keeps the insertion order that PostgreSQL's identity columns (pins) take up.
          const definition = native.query<{ sql: string }, [string]>("SELECT sql FROM sqlite_schema WHERE name = ?").get(table)?.sql ?? "";
          const order = /WITHOUT ROWID/i.test(definition) ? "" : " ORDER BY rowid";
          const rows = native.query<Record<string, unknown>, []>(`SELECT ${list} FROM ${table}${order}`);
          const insert = target.prepare(
            `INSERT INTO ${table} (${list}) SELECT ${list} FROM json_populate_recordset(NULL::${table}, CAST(CAST(? AS text) AS json))`,
          );
          let batch: Record<string, unknown>[] = [];
          let copied = 0;
          const flush = async () => {
            if (batch.length === 0) return;
            await tx.run(insert, JSON.stringify(batch));
            copied += batch.length;
            batch = [];
          };
          for (const row of rows.iterate()) {
            const out: Record<string, unknown> = {};
            for (const column of columns) {
              const value = row[column];
              out[column] = isJson(table, column) && typeof value === "string" ? JSON.parse(value) : clean(value);
            }
            batch.push(out);
            if (batch.length >= ROWS_PER_STATEMENT) await flush();
          }
          await flush();
          const expected = native.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()!.n;
          const stored = (await tx.get(target.prepare<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`)))!.n;
          if (copied !== expected || stored !== expected) {
            throw new Error(`${table}: ${expected} rows in SQLite, ${stored} in PostgreSQL: nothing was copied.`);
          }
          report.tables.push({ table, rows: stored });
          log(`${table}: ${stored} rows`);
        }
        const counters = (db: Record<string, unknown>[]) => Object.fromEntries(db.map((r) => [r.name, Number(r.value)]));
        const before = counters(native.query<Record<string, unknown>, []>("SELECT name, value FROM platform_counters").all());
        const after = counters(await tx.all(target.prepare<Record<string, unknown>, []>("SELECT name, value FROM platform_counters")));
        if (JSON.stringify(Object.entries(before).sort()) !== JSON.stringify(Object.entries(after).sort())) {
          throw new Error(`The platform counters differ (SQLite ${JSON.stringify(before)}, PostgreSQL ${JSON.stringify(after)}): nothing was copied.`);
        }
      } finally {
        native.exec("COMMIT");
      }
    });
    return report;
  } finally {
    await source.close();
    await target.close();
  }
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const arg = (name: string) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const from = arg("from");
  const to = arg("to");
  if (!from || !to || isPostgresUrl(from) || !isPostgresUrl(to)) {
    console.error(USAGE);
    process.exit(2);
  }
  if (!existsSync(from)) {
    console.error(`${from}: no such SQLite file`);
    process.exit(1);
  }
  try {
    const report = await copySqliteToPostgres(from, to, (line) => console.log(line));
    const rows = report.tables.reduce((sum, t) => sum + t.rows, 0);
    console.log(`Copied ${report.tables.length} tables, ${rows} rows; every count matches. Start Hearth with DATABASE_URL set and the same DATA_DIR and secrets key.`);
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
}
