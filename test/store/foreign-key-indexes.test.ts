/**
 * Every foreign key that a server, channel or message delete follows has an index that starts
 * with its columns (docs/servers.md, "Deleting a server"): the batches of a background delete
 * find a parent's children by it, and the last delete of the parent row checks (and cascades
 * to) every child table by it. Without one, each of those is a scan of the child table.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Database } from "../../src/store/database.ts";
import { createStore, type Store } from "../../src/store/store.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";

/** The tables a server, channel or message delete removes rows of: foreign keys to them are followed. */
const DELETED_PARENTS = new Set(["servers", "channels", "categories", "roles", "server_members", "invites", "messages"]);

interface ForeignKey {
  table: string;
  columns: string[];
  parent: string;
}

async function sqliteForeignKeys(db: Database): Promise<{ keys: ForeignKey[]; indexes: Map<string, string[][]> }> {
  const tables = (await db.tables()).filter((t) => !/_fts/.test(t));
  const keys: ForeignKey[] = [];
  const indexes = new Map<string, string[][]>();
  for (const table of tables) {
    const rows = await db.all(db.prepare<{ id: number; seq: number; table: string; from: string }, []>(`SELECT id, seq, "table", "from" FROM pragma_foreign_key_list('${table}')`));
    for (const id of new Set(rows.map((r) => r.id))) {
      const parts = rows.filter((r) => r.id === id).sort((a, b) => a.seq - b.seq);
      keys.push({ table, columns: parts.map((p) => p.from), parent: parts[0]!.table });
    }
    const list = await db.all(db.prepare<{ name: string }, []>(`SELECT name FROM pragma_index_list('${table}')`));
    const columns: string[][] = [];
    for (const { name } of list) {
      columns.push((await db.all(db.prepare<{ name: string }, []>(`SELECT name FROM pragma_index_info('${name}') ORDER BY seqno`))).map((c) => c.name));
    }
    indexes.set(table, columns);
  }
  return { keys, indexes };
}

async function postgresForeignKeys(db: Database): Promise<{ keys: ForeignKey[]; indexes: Map<string, string[][]> }> {
  const keys = await db.all(
    db.prepare<{ table: string; columns: string; parent: string }, []>(
      `SELECT c.conrelid::regclass::text AS table, c.confrelid::regclass::text AS parent,
         (SELECT string_agg(a.attname, ',' ORDER BY k.n) FROM unnest(c.conkey) WITH ORDINALITY AS k(attnum, n)
            JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum) AS columns
       FROM pg_constraint c WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace`,
    ),
  );
  const rows = await db.all(
    db.prepare<{ table: string; columns: string }, []>(
      `SELECT i.indrelid::regclass::text AS table,
         (SELECT string_agg(a.attname, ',' ORDER BY k.n) FROM unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, n)
            JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum) AS columns
       FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid WHERE t.relnamespace = current_schema()::regnamespace`,
    ),
  );
  const indexes = new Map<string, string[][]>();
  for (const row of rows) indexes.set(row.table, [...(indexes.get(row.table) ?? []), (row.columns ?? "").split(",")]);
  return { keys: keys.map((k) => ({ table: k.table, parent: k.parent, columns: k.columns.split(",") })), indexes };
}

let database: TestDatabase;
let store: Store;
beforeAll(async () => {
  database = await freshDatabase();
  store = await createStore(database.location, crypto.getRandomValues(new Uint8Array(32)));
});
afterAll(async () => {
  await store.close();
  await database.drop();
});

test("every foreign key to a table that server, channel and message deletes remove rows of is the start of an index", async () => {
  const db = store.db;
  const { keys, indexes } = db.dialect.name === "sqlite" ? await sqliteForeignKeys(db) : await postgresForeignKeys(db);
  const followed = keys.filter((k) => DELETED_PARENTS.has(k.parent));
  // The check sees the keys: messages' channel and server, attachments' message, member roles' membership...
  expect(followed.length).toBeGreaterThan(30);
  const unserved = followed.filter((k) => !(indexes.get(k.table) ?? []).some((index) => k.columns.every((column, i) => index[i] === column)));
  expect(unserved.map((k) => `${k.table} (${k.columns.join(", ")}) -> ${k.parent}`)).toEqual([]);
});
