import type { Database, Statement } from "bun:sqlite";

/** Writes committed in one transaction at most. */
export const MAX_BATCH_ITEMS = 256;

interface Item {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit. Writes that arrive together (in the same turn of the event loop: the requests
 * Bun hands us in one I/O pass) are committed in ONE transaction, then each caller is answered.
 *
 * - `run(work)` queues `work` (synchronous statements on this database) and answers its result
 *   only after the transaction holding it has committed, so nothing built on the answer (an
 *   HTTP 201, a gateway event) can run before the write is in the WAL. See docs/operations.md,
 *   "Durability", for what that survives with `synchronous = NORMAL`.
 * - Each item runs inside its own SAVEPOINT: an item that throws (a constraint error, a check
 *   that refuses) is rolled back alone and rejects only its own caller; the others commit.
 * - The queue flushes on `setImmediate`, never on a timer: a lone write waits for nothing but
 *   the rest of the current event-loop turn. At most `maxItems` go into one transaction; the
 *   rest follow in the next turn, in arrival order.
 * - Items run in arrival order, one after another on the one connection, so an item sees
 *   every write queued before it (a check-then-write inside an item is atomic).
 */
export class WriteBatch {
  private queue: Item[] = [];
  private scheduled = false;
  private committed = 0;
  private readonly begin: Statement;
  private readonly commit: Statement;
  private readonly rollback: Statement;
  private readonly savepoint: Statement;
  private readonly release: Statement;
  private readonly rollbackTo: Statement;

  constructor(
    private readonly db: Database,
    private readonly maxItems = MAX_BATCH_ITEMS,
  ) {
    this.begin = db.prepare("BEGIN IMMEDIATE");
    this.commit = db.prepare("COMMIT");
    this.rollback = db.prepare("ROLLBACK");
    this.savepoint = db.prepare("SAVEPOINT write_batch_item");
    this.release = db.prepare("RELEASE write_batch_item");
    this.rollbackTo = db.prepare("ROLLBACK TO write_batch_item");
  }

  /** Writes waiting for their transaction. */
  get pending(): number {
    return this.queue.length;
  }

  /** Transactions committed so far (each holding one or more writes). */
  get transactions(): number {
    return this.committed;
  }

  /** Queues `work`; answers its result once its transaction has committed. */
  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      // The queue holds items of every result type; each resolve gets back what its work returned.
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flushTurn());
      }
    });
  }

  /** Commits everything queued now, synchronously (before closing the database). */
  flush(): void {
    while (this.queue.length) this.commitBatch(this.queue.splice(0, this.maxItems));
  }

  private flushTurn(): void {
    this.scheduled = false;
    if (this.queue.length === 0) return;
    this.commitBatch(this.queue.splice(0, this.maxItems));
    if (this.queue.length && !this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flushTurn());
    }
  }

  private commitBatch(batch: Item[]): void {
    if (batch.length === 0) return;
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    try {
      // Everything else on this connection runs to completion synchronously, so no other
      // transaction can be open here; IMMEDIATE takes the write lock up front (busy_timeout
      // covers another process, e.g. the admin CLI).
      this.begin.run();
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    try {
      for (const item of batch) {
        this.savepoint.run();
        try {
          const value = item.work();
          this.release.run();
          outcomes.push({ ok: true, value });
        } catch (error) {
          this.rollbackTo.run();
          this.release.run();
          outcomes.push({ ok: false, error });
        }
      }
      this.commit.run();
      this.committed++;
    } catch (error) {
      // The transaction itself failed (COMMIT, or a savepoint that could not be rolled back):
      // nothing in it was written, so every caller hears the error.
      try {
        if (this.db.inTransaction) this.rollback.run();
      } catch {
        // The connection already rolled back on its own (SQLite does so for I/O and full-disk errors).
      }
      for (const item of batch) item.reject(error);
      return;
    }
    // Committed: only now does anyone hear back.
    batch.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
  }
}
