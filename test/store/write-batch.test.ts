import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Database as Sqlite } from "bun:sqlite";
import type { Database, Statement, Transaction } from "../../src/store/database.ts";
import { openDatabase } from "../../src/store/store.ts";
import { MAX_BATCH_ITEMS, WriteBatch } from "../../src/store/write-batch.ts";
import { freshDatabase, onPostgres, type TestDatabase } from "../helpers/database.ts";

let database: TestDatabase;
let db: Database;
/** A second connection to the same database: sees only what has committed. */
let reader: Database;
/**
 * On SQLite, a plain connection as well, for the counts: the store's reads share one snapshot per
 * event-loop turn (SqliteDatabase), and the counts must see each commit at once.
 */
let plain: Sqlite | null = null;
let batch: WriteBatch;
let insertStmt: Statement<{ id: number }, [string]>;
let countStmt: Statement<{ n: number }, []>;

beforeEach(async () => {
  database = await freshDatabase({ file: true, migrated: false });
  db = await openDatabase(database.location);
  const id = db.dialect.name === "postgres" ? "id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY" : "id INTEGER PRIMARY KEY";
  await db.exec(`CREATE TABLE parent (${id});
    CREATE TABLE t (${id}, v TEXT NOT NULL UNIQUE);
    CREATE TABLE child (${id}, parent_id INTEGER NOT NULL REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)`);
  reader = await openDatabase(database.location);
  plain = onPostgres ? null : new Sqlite(database.location);
  batch = new WriteBatch(db);
  insertStmt = db.prepare("INSERT INTO t (v) VALUES (?) RETURNING id");
  countStmt = reader.prepare("SELECT count(*) AS n FROM t");
});
afterEach(async () => {
  plain?.close();
  await reader.close();
  await db.close();
  await database.drop();
});

const insert = (v: string) => async (tx: Transaction) => (await tx.get(insertStmt, v))!.id;
const committedCount = async () => (plain ? plain.query<{ n: number }, []>("SELECT count(*) AS n FROM t").get()! : (await reader.get(countStmt))!).n;
const sql = (text: string) => db.prepare(text);

describe("WriteBatch", () => {
  test("writes queued in one turn commit in one transaction, and are answered only after the commit", async () => {
    const seenAtAnswer: Promise<number>[] = [];
    const writes = Array.from({ length: 50 }, (_, i) =>
      batch.run(insert(`v${i}`)).then((id) => {
        // By the time anyone hears back, another connection sees every write of the batch.
        seenAtAnswer.push(committedCount());
        return id;
      }),
    );
    expect(batch.pending).toBe(50);
    expect(await committedCount()).toBe(0);
    const ids = await Promise.all(writes);
    expect(batch.transactions).toBe(1);
    expect((await Promise.all(seenAtAnswer)).every((n) => n === 50)).toBe(true);
    // Arrival order is execution order.
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  test("a failing write fails alone: its savepoint is rolled back, the others commit", async () => {
    const half = sql("INSERT INTO t (v) VALUES ('half')");
    const duplicate = sql("INSERT INTO t (v) VALUES ('a')");
    const results = await Promise.allSettled([
      batch.run(insert("a")),
      batch.run(async (tx) => {
        await tx.run(half); // written, then undone with its item
        await tx.run(duplicate); // UNIQUE violation
      }),
      batch.run(async () => {
        throw new Error("refused by a check");
      }),
      batch.run(insert("b")),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "rejected", "fulfilled"]);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/UNIQUE|unique/);
    expect(String((results[2] as PromiseRejectedResult).reason)).toContain("refused by a check");
    expect((await reader.all(reader.prepare<{ v: string }, []>("SELECT v FROM t ORDER BY id"))).map((r) => r.v)).toEqual(["a", "b"]);
    expect(batch.transactions).toBe(1);
  });

  test("a later write in the batch sees the earlier ones (check-then-write stays atomic)", async () => {
    const taken = sql("SELECT 1 AS one FROM t WHERE v = ?");
    const write = sql("INSERT INTO t (v) VALUES (?)");
    const insertUnlessTaken = (v: string) => async (tx: Transaction) => {
      if (await tx.get(taken, v)) throw new Error("taken");
      await tx.run(write, v);
    };
    const results = await Promise.allSettled([batch.run(insertUnlessTaken("x")), batch.run(insertUnlessTaken("x"))]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected"]);
  });

  test("when the commit itself fails, nobody is told their write succeeded and nothing is written", async () => {
    // A deferred foreign key is checked at COMMIT: the whole transaction is refused.
    const orphan = sql("INSERT INTO child (parent_id) VALUES (42)");
    const results = await Promise.allSettled([batch.run(insert("ok")), batch.run(async (tx) => tx.run(orphan))]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect(await committedCount()).toBe(0);
    // The batch carries on with the next writes.
    expect(await batch.run(insert("after"))).toBeGreaterThan(0);
    expect(await committedCount()).toBe(1);
  });

  test(`at most ${MAX_BATCH_ITEMS} writes per transaction; the rest follow in order`, async () => {
    const n = MAX_BATCH_ITEMS * 2 + 10;
    const ids = await Promise.all(Array.from({ length: n }, (_, i) => batch.run(insert(`v${i}`))));
    expect(batch.transactions).toBe(3);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(await committedCount()).toBe(n);
  });

  test("a lone write is not held back by a timer", async () => {
    await batch.run(insert("warm"));
    // Counted, not timed (a loaded machine makes any time bound flaky): no timer is set while
    // 20 sequential writes commit, each in its own transaction.
    const setTimer = globalThis.setTimeout;
    let timers = 0;
    globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
      timers++;
      return setTimer(...args);
    }) as typeof setTimeout;
    try {
      for (let i = 0; i < 20; i++) await batch.run(insert(`lone${i}`));
    } finally {
      globalThis.setTimeout = setTimer;
    }
    expect(batch.transactions).toBe(21);
    expect(timers).toBe(0);
  });

  test("drain() commits what is queued before the database closes", async () => {
    const pending = batch.run(insert("queued"));
    await batch.drain();
    expect(await committedCount()).toBe(1);
    expect(await pending).toBeGreaterThan(0);
  });
});
