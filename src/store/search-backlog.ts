import type { Database } from "./database.ts";
import type { WriteBatch } from "./write-batch.ts";

/** How long after a send its message waits for the search index at most (unless a search comes first). */
export const INDEX_DELAY_MS = 250;

/**
 * Messages waiting for the search index (SQLite: a `*_fts_pending` table filled by the INSERT's
 * trigger, sqlite/migrations.ts versions 13 and 14; nothing on PostgreSQL, whose INSERT
 * maintains its index). An FTS5 write inside a transaction flushes the index's pending entries
 * to a new segment at every statement, so indexing each message by its own INSERT cost a flush
 * per message; here the backlog is indexed in one statement, in one transaction of the group
 * commit, a moment after sends (`INDEX_DELAY_MS`) and before every search, so a search always
 * sees every message sent before it.
 */
export class SearchBacklog {
  private readonly statements;
  /** Messages may be waiting (true at start: a previous run's backlog). */
  private unindexed = true;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    db: Database,
    private readonly writes: WriteBatch,
    /** The statements that index the backlog and empty it; none: nothing to do. */
    sql: string[],
  ) {
    this.statements = sql.map((text) => db.prepare(text));
  }

  /** A message was just added to the backlog: index it a moment later. */
  added(): void {
    if (!this.statements.length) return;
    this.unindexed = true;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      // A failure leaves the backlog in place: the next search runs it again, and answers its error.
      this.index().catch(() => {});
    }, INDEX_DELAY_MS);
    this.timer.unref?.();
  }

  /** Before a search: whatever is still waiting is indexed first. */
  async caughtUp(): Promise<void> {
    if (this.unindexed) await this.index();
  }

  /** Indexes what is waiting now. */
  async index(): Promise<void> {
    if (!this.statements.length) return;
    this.unindexed = false;
    const statements = this.statements;
    try {
      await this.writes.run(async (tx) => {
        for (const statement of statements) await tx.run(statement);
      });
    } catch (error) {
      this.unindexed = true; // the backlog is still there
      throw error;
    }
  }

  /** No more indexing a moment later (the database is closing; the backlog stays, indexed at the next search). */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.statements.length = 0;
  }
}
