/**
 * Many messages in one channel, inserted through the store's database in one statement (one
 * transaction): the fixture of a big delete. Ids are `<prefix>-0000-7000-8000-<n as 12 hex
 * digits>` with a prefix below any UUIDv7 of today, one range per call, in the order of `n`;
 * each message was written `age` seconds ago (plus n seconds, so the last is the newest).
 */
import type { Database } from "../../src/store/database.ts";
import type { TestServer } from "./server.ts";

/** A test server, or any holder of a store's database (a real process's file, opened while it is stopped). */
type WithDatabase = { app: { store: { db: Database } } };

let batches = 0;

export interface BulkMessages {
  /** The n-th message's id (1-based). */
  idOf(n: number): string;
}

export async function addBulkMessages(
  server: WithDatabase,
  target: { serverId: string; channelId: string; userId: string },
  count: number,
  age = 0,
): Promise<BulkMessages> {
  const db = server.app.store.db;
  const prefix = `018f${(++batches + (process.pid % 4096) * 16).toString(16).padStart(4, "0")}`;
  const sqlite = db.dialect.name === "sqlite";
  const numbers = sqlite ? "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?2)" : "WITH n(i) AS (SELECT generate_series(1, ?2::int))";
  const id = sqlite ? "printf('%s-0000-7000-8000-%012x', ?1, i)" : "?1 || '-0000-7000-8000-' || lpad(to_hex(i), 12, '0')";
  const created = sqlite ? "?6 - ?2 + i" : "?6::bigint - ?2::int + i";
  await db.run(
    db.prepare<unknown, [string, number, string, string, string, number]>(
      `${numbers} INSERT INTO messages (id, channel_id, server_id, user_id, content, created_at) SELECT ${id}, ?3, ?4, ?5, 'bulk message ' || i, ${created} FROM n`,
    ),
    prefix,
    count,
    target.channelId,
    target.serverId,
    target.userId,
    Math.floor(Date.now() / 1000) - age,
  );
  return { idOf: (n) => `${prefix}-0000-7000-8000-${n.toString(16).padStart(12, "0")}` };
}

/** Rows of `table` whose `column` is `value` (through the store's database). */
export async function countRows(server: TestServer, table: string, column: string, value: string): Promise<number> {
  const db = server.app.store.db;
  const row = await db.get(db.prepare<{ n: number }, [string]>(`SELECT count(*) AS n FROM ${table} WHERE ${column} = ?`), value);
  return Number(row?.n ?? 0);
}
