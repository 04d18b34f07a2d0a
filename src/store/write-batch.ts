import type { Database, Transaction } from "./database.ts";
import { isRetryable } from "./retry.ts";

/** Writes committed in one transaction at most. */
export const MAX_BATCH_ITEMS = 256;

interface Item {
  work: (tx: Transaction) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Thrown inside a pass without savepoints to roll it back: an item failed with `error`. */
class ItemFailed {
  constructor(readonly error: unknown) {}
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Group commit. Writes that arrive together (in the same turn of the event loop: the requests
 * Bun hands us in one I/O pass) are committed in ONE transaction, then each caller is answered.
 *
 * - `run(work)` queues `work` (statements on the transaction it is given) and answers its result
 *   only after the transaction holding it has committed, so nothing built on the answer (an
 *   HTTP 201, a gateway event) can run before the write is durable. See docs/operations.md,
 *   "Durability".
 * - Each item runs inside its own savepoint: an item that throws (a constraint error, a check
 *   that refuses) is rolled back alone and rejects only its own caller; the others commit.
 * - The queue flushes on `setImmediate`, never on a timer: a lone write waits for nothing but
 *   the rest of the current event-loop turn. At most `maxItems` go into one transaction; the
 *   rest follow, in arrival order. One batch is in flight at a time (on PostgreSQL, on the
 *   connection the database keeps for it): what arrives meanwhile forms the next batch.
 * - Items run in arrival order, one after another, so an item sees every write queued before it
 *   (a check-then-write inside an item is atomic within this process; across processes it takes
 *   its scope's lock, `Transaction.lock`).
 * - A batch whose transaction lost a deadlock is run again whole: no caller has heard anything yet.
 */
export class WriteBatch {
  private queue: Item[] = [];
  private scheduled = false;
  private inFlight: Promise<void> | null = null;
  private committed = 0;
  /** Told each committed batch's size and how long its transaction took (the metrics, src/ops/metrics.ts). */
  onCommit: ((items: number, seconds: number) => void) | null = null;

  constructor(
    private readonly db: Database,
    private readonly maxItems = MAX_BATCH_ITEMS,
  ) {}

  /** Writes waiting for their transaction. */
  get pending(): number {
    return this.queue.length;
  }

  /** Transactions committed so far (each holding one or more writes). */
  get transactions(): number {
    return this.committed;
  }

  /** Queues `work`; answers its result once its transaction has committed. */
  run<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      // The queue holds items of every result type; each resolve gets back what its work returned.
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  /** Commits everything queued, and waits for the batch in flight (before closing the database). */
  async drain(): Promise<void> {
    while (this.inFlight || this.queue.length) {
      if (this.inFlight) await this.inFlight;
      else await this.flushTurn();
    }
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight) return;
    this.scheduled = true;
    setImmediate(() => void this.flushTurn());
  }

  private flushTurn(): Promise<void> {
    this.scheduled = false;
    if (this.inFlight || this.queue.length === 0) return this.inFlight ?? Promise.resolve();
    const flight = this.commitBatch(this.queue.splice(0, this.maxItems)).finally(() => {
      this.inFlight = null;
      if (this.queue.length) this.schedule();
    });
    this.inFlight = flight;
    return flight;
  }

  private async commitBatch(batch: Item[]): Promise<void> {
    const begun = performance.now();
    let outcomes: Outcome[];
    try {
      // Most batches fail nowhere: the first pass runs without a savepoint per item. A failed
      // item rolls that whole pass back; then a lone item has its answer, and a batch of several
      // is run again with each item in its own savepoint, so the failure stays its own.
      const first = await this.pass(batch, false, begun);
      if (first instanceof ItemFailed) outcomes = batch.length === 1 ? [{ ok: false, error: first.error }] : ((await this.pass(batch, true, begun)) as Outcome[]);
      else outcomes = first;
    } catch (error) {
      // The transaction itself failed (BEGIN, COMMIT, a deferred constraint, a lost connection):
      // nothing in it was written, so every caller hears the error.
      for (const item of batch) item.reject(error);
      return;
    }
    // Committed (or, for a lone failed item, rolled back): only now does anyone hear back.
    batch.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
  }

  /**
   * One transaction over the batch, answering each item's outcome once it has committed.
   * `isolated`: each item in its own savepoint, rolled back alone when it throws. Without: the
   * first item that throws rolls the whole transaction back, answered as `ItemFailed`.
   * Savepoints are not free: two more statements per item, and an FTS5 write inside one writes
   * the index's pending entries out as a new segment at its RELEASE (a large share of a send's
   * CPU). A lost deadlock is thrown on, for the
   * database to run the transaction again.
   */
  private async pass(batch: Item[], isolated: boolean, begun: number): Promise<Outcome[] | ItemFailed> {
    try {
      const outcomes = await this.db.transaction(
        async (tx) => {
          const done: Outcome[] = []; // a transaction run again starts over
          for (const item of batch) {
            try {
              done.push({ ok: true, value: isolated ? await tx.savepoint((sp) => item.work(sp)) : await item.work(tx) });
            } catch (error) {
              // A lost deadlock dooms the whole transaction: it is run again, every item with it.
              if (isRetryable(error)) throw error;
              // A full disk met by one item is the store's outage all the same (counted once, answered 507).
              const failure = this.db.storage.refused(error);
              if (!isolated) throw new ItemFailed(failure);
              done.push({ ok: false, error: failure });
            }
          }
          return done;
        },
        { writer: true },
      );
      this.committed++;
      this.onCommit?.(batch.length, (performance.now() - begun) / 1000);
      return outcomes;
    } catch (error) {
      if (error instanceof ItemFailed) return error;
      throw error;
    }
  }
}
