/**
 * SQLite: a turn's reads share one read transaction (SqliteDatabase, "Reads share a snapshot per
 * event-loop turn"). Writes are never held in it (`run`, `exec`, `transaction`, and a writing
 * statement run by `get` or `all`), this connection's writes are seen at once, other
 * connections' from the next turn, and the turn's end leaves no transaction open.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Database as Sqlite } from "bun:sqlite";
import type { Statement } from "../../src/store/database.ts";
import { SqliteDatabase } from "../../src/store/sqlite/sqlite-database.ts";
import { freshDatabase, onPostgres, type TestDatabase } from "../helpers/database.ts";

let database: TestDatabase;
let db: SqliteDatabase;
/** Another connection to the file, outside the store (as the admin CLI or `sqlite3` would be). */
let other: Sqlite;
let valueStmt: Statement<{ v: string }, [number]>;
let setStmt: Statement<unknown, [string, number]>;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
const otherValue = () => other.query<{ v: string }, []>("SELECT v FROM t WHERE id = 1").get()!.v;
const value = async () => (await db.get(valueStmt, 1))!.v;

beforeEach(async () => {
  if (onPostgres) return;
  database = await freshDatabase({ file: true, migrated: false });
  db = SqliteDatabase.open(database.location);
  await db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL); INSERT INTO t VALUES (1, 'a')");
  valueStmt = db.prepare("SELECT v FROM t WHERE id = ?");
  setStmt = db.prepare("UPDATE t SET v = ? WHERE id = ?");
  other = new Sqlite(database.location);
});
afterEach(async () => {
  if (onPostgres) return;
  other.close();
  await db.close();
  await database.drop();
});

describe.skipIf(onPostgres)("SQLite read snapshot per turn", () => {
  test("a read whose snapshot cannot be opened (a closed connection) answers a promise, never a throw", async () => {
    const lone = SqliteDatabase.open(":memory:");
    const one = lone.prepare<{ x: number }, []>("SELECT 1 AS x");
    expect(await lone.get(one)).toEqual({ x: 1 });
    await nextTurn();
    // bun:sqlite refuses the connection's own calls from here ("Database has closed"); SQLite
    // keeps a closed connection's prepared statements usable until they are finalized.
    lone.native.close();
    const settled = (read: () => Promise<unknown>) => read().then((value) => ({ value }), (error: unknown) => ({ error: String(error) }));
    expect(await settled(() => lone.get(one))).toEqual({ value: { x: 1 } });
    expect(await settled(() => lone.all(one))).toEqual({ value: [{ x: 1 }] });
  });

  test("a write after a read in the same turn is committed at once, and the next read sees it", async () => {
    expect(await value()).toBe("a");
    expect(db.native.inTransaction).toBe(true);
    expect(await db.run(setStmt, "b", 1)).toBe(1);
    // Committed: another connection sees it before this turn ends.
    expect(db.native.inTransaction).toBe(false);
    expect(otherValue()).toBe("b");
    expect(await value()).toBe("b");
  });

  test("a transaction after a read in the same turn is its own transaction, committed at its end", async () => {
    expect(await value()).toBe("a");
    await db.transaction(async (tx) => {
      await tx.run(setStmt, "c", 1);
    });
    expect(otherValue()).toBe("c");
    expect(await value()).toBe("c");
    // A failing one rolls back alone; what was committed before stays.
    await expect(
      db.transaction(async (tx) => {
        await tx.run(setStmt, "d", 1);
        throw new Error("no");
      }),
    ).rejects.toThrow("no");
    expect(otherValue()).toBe("c");
    expect(await value()).toBe("c");
  });

  test("a write answered through get or all (INSERT ... RETURNING) after a read is committed at once", async () => {
    expect(await value()).toBe("a");
    const insert = db.prepare<{ id: number }, [number, string]>("INSERT INTO t (id, v) VALUES (?, ?) RETURNING id");
    const update = db.prepare<{ v: string }, [string, number]>("UPDATE t SET v = ? WHERE id = ? RETURNING v");
    expect((await db.get(insert, 2, "g"))!.id).toBe(2);
    expect(db.native.inTransaction).toBe(false);
    expect(other.query<{ v: string }, []>("SELECT v FROM t WHERE id = 2").get()!.v).toBe("g");
    expect(await value()).toBe("a");
    expect(await db.all(update, "h", 1)).toEqual([{ v: "h" }]);
    expect(db.native.inTransaction).toBe(false);
    expect(otherValue()).toBe("h");
  });

  test("exec after a read is not held in the snapshot", async () => {
    expect(await value()).toBe("a");
    await db.exec("UPDATE t SET v = 'e' WHERE id = 1");
    expect(otherValue()).toBe("e");
  });

  test("another connection's commit is seen from the next turn; within a turn the reads agree", async () => {
    expect(await value()).toBe("a");
    other.run("UPDATE t SET v = 'x' WHERE id = 1");
    expect(await value()).toBe("a");
    await nextTurn();
    expect(db.native.inTransaction).toBe(false);
    expect(await value()).toBe("x");
  });

  test("the turn's end leaves nothing open: another connection can write and checkpoint the whole WAL", async () => {
    for (let i = 0; i < 20; i++) expect(await value()).toBe("a");
    await nextTurn();
    expect(db.native.inTransaction).toBe(false);
    other.run("UPDATE t SET v = 'y' WHERE id = 1");
    const checkpoint = other.query<{ busy: number }, []>("PRAGMA wal_checkpoint(TRUNCATE)").get()!;
    expect(checkpoint.busy).toBe(0);
    expect(await value()).toBe("y");
  });

  test("a read waiting for an open transaction runs after its commit and sees it", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const writing = db.transaction(async (tx) => {
      await tx.run(setStmt, "z", 1);
      await held;
    });
    const read = value();
    release();
    await writing;
    expect(await read).toBe("z");
  });
});
