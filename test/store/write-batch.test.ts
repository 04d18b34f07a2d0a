import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/store/database.ts";
import { MAX_BATCH_ITEMS, WriteBatch } from "../../src/store/write-batch.ts";

let dir: string;
let db: Database;
/** A second connection to the same file: sees only what has committed. */
let reader: Database;
let batch: WriteBatch;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "hearth-write-batch-"));
  db = openDatabase(join(dir, "t.db"));
  db.exec("CREATE TABLE parent (id INTEGER PRIMARY KEY)");
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL UNIQUE)");
  db.exec("CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER NOT NULL REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)");
  reader = new Database(join(dir, "t.db"), { readonly: true });
  batch = new WriteBatch(db);
});
afterEach(() => {
  reader.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const insert = (v: string) => () => db.query<{ id: number }, [string]>("INSERT INTO t (v) VALUES (?) RETURNING id").get(v)!.id;
const committedCount = () => reader.query<{ n: number }, []>("SELECT count(*) AS n FROM t").get()!.n;

describe("WriteBatch", () => {
  test("writes queued in one turn commit in one transaction, and are answered only after the commit", async () => {
    const seenAtAnswer: number[] = [];
    const writes = Array.from({ length: 50 }, (_, i) =>
      batch.run(insert(`v${i}`)).then((id) => {
        // By the time anyone hears back, another connection sees every write of the batch.
        expect(db.inTransaction).toBe(false);
        seenAtAnswer.push(committedCount());
        return id;
      }),
    );
    expect(batch.pending).toBe(50);
    expect(committedCount()).toBe(0);
    const ids = await Promise.all(writes);
    expect(batch.transactions).toBe(1);
    expect(seenAtAnswer.every((n) => n === 50)).toBe(true);
    // Arrival order is execution order.
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  test("a failing write fails alone: its savepoint is rolled back, the others commit", async () => {
    const results = await Promise.allSettled([
      batch.run(insert("a")),
      batch.run(() => {
        db.query("INSERT INTO t (v) VALUES ('half')").run(); // written, then undone with its item
        db.query("INSERT INTO t (v) VALUES ('a')").run(); // UNIQUE violation
      }),
      batch.run(() => {
        throw new Error("refused by a check");
      }),
      batch.run(insert("b")),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "rejected", "fulfilled"]);
    expect(String((results[1] as PromiseRejectedResult).reason)).toContain("UNIQUE");
    expect(String((results[2] as PromiseRejectedResult).reason)).toContain("refused by a check");
    expect(reader.query<{ v: string }, []>("SELECT v FROM t ORDER BY id").all().map((r) => r.v)).toEqual(["a", "b"]);
    expect(batch.transactions).toBe(1);
  });

  test("a later write in the batch sees the earlier ones (check-then-write stays atomic)", async () => {
    const insertUnlessTaken = (v: string) => () => {
      if (db.query("SELECT 1 FROM t WHERE v = ?").get(v)) throw new Error("taken");
      db.query("INSERT INTO t (v) VALUES (?)").run(v);
    };
    const results = await Promise.allSettled([batch.run(insertUnlessTaken("x")), batch.run(insertUnlessTaken("x"))]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected"]);
  });

  test("when the commit itself fails, nobody is told their write succeeded and nothing is written", async () => {
    // A deferred foreign key is checked at COMMIT: the whole transaction is refused.
    const results = await Promise.allSettled([
      batch.run(insert("ok")),
      batch.run(() => db.query("INSERT INTO child (parent_id) VALUES (42)").run()),
    ]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect(db.inTransaction).toBe(false);
    expect(committedCount()).toBe(0);
    // The batch carries on with the next writes.
    expect(await batch.run(insert("after"))).toBeGreaterThan(0);
    expect(committedCount()).toBe(1);
  });

  test(`at most ${MAX_BATCH_ITEMS} writes per transaction; the rest follow in order`, async () => {
    const n = MAX_BATCH_ITEMS * 2 + 10;
    const ids = await Promise.all(Array.from({ length: n }, (_, i) => batch.run(insert(`v${i}`))));
    expect(batch.transactions).toBe(3);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(committedCount()).toBe(n);
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

  test("flush() commits what is queued at once (store close)", async () => {
    const pending = batch.run(insert("queued"));
    batch.flush();
    expect(committedCount()).toBe(1);
    expect(await pending).toBeGreaterThan(0);
  });
});
