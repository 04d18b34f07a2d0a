import { Database as Sqlite, type Statement as SqliteStatement } from "bun:sqlite";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import type { Database, Params, SqlValue, Statement, Transaction, TransactionOptions } from "../database.ts";
import { sqliteDialect } from "./dialect.ts";
import { StorageHealth } from "../storage-full.ts";

/**
 * The database file is readable by its owner only (0600; its folder, when created here, 0700).
 * SQLite gives the WAL and shared-memory files the database file's mode, so they are 0600 too
 * whenever they are created; existing ones are narrowed here as well.
 */
function makePrivate(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  closeSync(openSync(file, "a", 0o600));
  for (const path of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(path)) chmodSync(path, 0o600);
}

/** Opens the file (or `:memory:`) in WAL mode with the pragmas the store relies on. */
export function openSqliteFile(file: string): Sqlite {
  if (file !== ":memory:") makePrivate(file);
  const db = new Sqlite(file, { create: true, strict: true });
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA foreign_keys = ON");
  db.exec("PRAGMA busy_timeout = 5000");
  return db;
}

interface SqliteStatementHandle<Row, P extends Params> extends Statement<Row, P> {
  readonly native: SqliteStatement;
  /** SQLite's own word (`sqlite3_stmt_readonly`): the statement writes nothing, so it may run in a turn's read snapshot. */
  readonly readOnly: boolean;
}

const handle = <Row, P extends Params>(statement: Statement<Row, P>) => statement as SqliteStatementHandle<Row, P>;
const native = <Row, P extends Params>(statement: Statement<Row, P>) => handle(statement).native;

/** Statements run at once, on the one connection (inside a transaction: by that transaction). */
class Direct implements Transaction {
  private savepoints = 0;
  private readonly savepointStatements: { open: SqliteStatement; release: SqliteStatement; undo: SqliteStatement }[] = [];

  /** A statement's failure for want of storage is an InsufficientStorageError (507) wherever it surfaces, an item of a group commit included. */
  constructor(
    private readonly db: Sqlite,
    private readonly storage: StorageHealth,
  ) {}

  // Not `async`: a resolved promise without the async function's machinery, as these run for
  // every statement (a throw becomes a rejected promise all the same).
  get<Row, P extends Params>(statement: Statement<Row, P>, ...params: P): Promise<Row | null> {
    try {
      return Promise.resolve((native(statement).get(...(params as unknown as never[])) as Row | null) ?? null);
    } catch (error) {
      return Promise.reject(this.storage.refused(error));
    }
  }

  all<Row, P extends Params>(statement: Statement<Row, P>, ...params: P): Promise<Row[]> {
    try {
      return Promise.resolve(native(statement).all(...(params as unknown as never[])) as Row[]);
    } catch (error) {
      return Promise.reject(this.storage.refused(error));
    }
  }

  run<P extends Params>(statement: Statement<unknown, P>, ...params: P): Promise<number> {
    try {
      return Promise.resolve(native(statement).run(...(params as unknown as never[])).changes);
    } catch (error) {
      return Promise.reject(this.storage.refused(error));
    }
  }

  async exec(sql: string): Promise<void> {
    try {
      this.db.exec(sql);
    } catch (error) {
      throw this.storage.refused(error);
    }
  }

  async lock(): Promise<void> {
    // Transactions on this connection already run one at a time (SqliteDatabase.transaction).
  }

  async savepoint<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    const depth = ++this.savepoints;
    // Prepared once per nesting depth: the group commit opens one per message.
    const sp = (this.savepointStatements[depth] ??= {
      open: this.db.prepare(`SAVEPOINT sp${depth}`),
      release: this.db.prepare(`RELEASE sp${depth}`),
      undo: this.db.prepare(`ROLLBACK TO sp${depth}`),
    });
    try {
      sp.open.run();
    } catch (error) {
      this.savepoints--;
      throw this.storage.refused(error);
    }
    try {
      const result = await work(this);
      sp.release.run();
      return result;
    } catch (error) {
      if (this.db.inTransaction) {
        sp.undo.run();
        sp.release.run();
      }
      throw this.storage.refused(error);
    } finally {
      this.savepoints--;
    }
  }
}

/**
 * bun:sqlite behind the store's async interface. Statements run synchronously; the one thing the
 * async interface adds is that a transaction's work can await, so while a transaction is open,
 * statements of anyone else wait for its end instead of running inside it (on SQLite's single
 * connection they would otherwise join it), and transactions run one after another.
 *
 * Reads share a snapshot per event-loop turn: the first read outside a transaction opens a
 * read transaction (`BEGIN`, deferred), and it ends at the next `setImmediate` or before
 * anything that may write: `run`, `exec`, `transaction`, `close`, and a `get` or `all` of a
 * statement SQLite does not call read-only (an `INSERT ... RETURNING`). In WAL mode every read on its
 * own takes and drops SQLite's shared-memory read lock (two `fcntl` calls and the snapshot's
 * setup, a cost paid per statement, and a page read runs four); a turn that serves many
 * requests does that once. What a read
 * sees: every write of this connection (a write ends the snapshot first, so it is never held
 * in one), and other processes' writes (the admin CLI) committed before the turn's first read,
 * as if the turn's reads had all run at that moment.
 */
export class SqliteDatabase implements Database {
  readonly dialect = sqliteDialect;
  private readonly direct: Direct;
  private readonly beginStmt;
  private readonly commitStmt;
  private readonly rollbackStmt;
  private readonly snapshotStmt;
  /** A transaction is open on the connection. */
  private busy = false;
  /** The turn's read snapshot is open (`snapshotStmt` ran and `endSnapshot` has not). */
  private snapshot = false;
  private readonly endSnapshot = (): void => {
    if (!this.snapshot) return;
    this.snapshot = false;
    // SQLite may have ended it itself after an error (I/O, out of memory). Ending a read can
    // fail only in such a state too; it then rolls back, and never throws out of setImmediate.
    if (!this.native.inTransaction) return;
    try {
      this.commitStmt.run();
    } catch {
      if (this.native.inTransaction) this.rollbackStmt.run();
    }
  };
  private waiting: (() => void)[] = [];
  /** Whether writes are stored (src/store/storage-full.ts): a full disk or unwritable file is a 507, said once. */
  readonly storage = new StorageHealth();
  private readonly totalChangesStmt;

  constructor(readonly native: Sqlite) {
    this.totalChangesStmt = native.prepare<{ n: number }, []>("SELECT total_changes() AS n");
    this.direct = new Direct(native, this.storage);
    // IMMEDIATE takes the write lock up front (busy_timeout covers another process, e.g. the admin CLI).
    this.beginStmt = native.prepare("BEGIN IMMEDIATE");
    this.commitStmt = native.prepare("COMMIT");
    this.rollbackStmt = native.prepare("ROLLBACK");
    this.snapshotStmt = native.prepare("BEGIN DEFERRED");
  }

  /**
   * The connection for a statement outside a transaction: for a read-only one, inside the turn's
   * read snapshot (opened here if none is); for any other, with the snapshot ended first, so its
   * write commits at once, on its own.
   */
  private connectionFor<Row, P extends Params>(statement: Statement<Row, P>): Direct {
    if (!handle(statement).readOnly) {
      this.endSnapshot();
      return this.direct;
    }
    // (A transaction left open by a failure, which should not happen: reads join it.)
    if (!this.snapshot) {
      try {
        if (!this.native.inTransaction) {
          this.snapshotStmt.run();
          this.snapshot = true;
          setImmediate(this.endSnapshot);
        }
      } catch {
        // No snapshot (a closed connection, SQLite out of memory): the statement runs as a read
        // of its own, and its own failure is the promise it rejects, never
        // a throw out of `get` or `all`.
      }
    }
    return this.direct;
  }

  /**
   * A write, watched for the end of a storage outage. Failures are converted and counted where
   * SQLite raises them (Direct, runTransaction), so while writes are stored this costs one
   * check; while they are failing, only a write that changed rows counts as the recovery
   * (total_changes() compared).
   */
  private write<T>(work: () => T): T {
    if (!this.storage.failingAt("database")) return work();
    const before = this.totalChanges();
    return this.storage.guard(work, () => this.totalChanges() !== before);
  }

  private totalChanges(): number {
    return this.totalChangesStmt.get()?.n ?? 0;
  }

  static open(file: string): SqliteDatabase {
    return new SqliteDatabase(openSqliteFile(file));
  }

  prepare<Row = unknown, P extends Params = Params>(sql: string): Statement<Row, P> {
    const statement = this.native.prepare(sql);
    const prepared: SqliteStatementHandle<Row, P> = { sql, native: statement, readOnly: statement.readonly };
    return prepared;
  }

  /** Resolves when the open transaction has ended. */
  private turn(): Promise<void> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  get<Row, P extends Params>(statement: Statement<Row, P>, ...params: P): Promise<Row | null> {
    if (this.busy) return this.turn().then(() => this.get(statement, ...params));
    const connection = this.connectionFor(statement);
    return handle(statement).readOnly ? connection.get(statement, ...params) : this.write(() => connection.get(statement, ...params));
  }

  all<Row, P extends Params>(statement: Statement<Row, P>, ...params: P): Promise<Row[]> {
    if (this.busy) return this.turn().then(() => this.all(statement, ...params));
    const connection = this.connectionFor(statement);
    return handle(statement).readOnly ? connection.all(statement, ...params) : this.write(() => connection.all(statement, ...params));
  }

  run<P extends Params>(statement: Statement<unknown, P>, ...params: P): Promise<number> {
    if (this.busy) return this.turn().then(() => this.run(statement, ...params));
    this.endSnapshot();
    return this.write(() => this.direct.run(statement, ...params));
  }

  transaction<T>(work: (tx: Transaction) => Promise<T>, _options?: TransactionOptions): Promise<T> {
    return this.write(() => this.runTransaction(work));
  }

  private async runTransaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    while (this.busy) await this.turn();
    this.endSnapshot();
    this.busy = true;
    try {
      this.beginStmt.run();
      try {
        const result = await work(this.direct);
        this.commitStmt.run();
        return result;
      } catch (error) {
        // SQLite rolls back by itself after some errors (I/O, a full disk).
        if (this.native.inTransaction) this.rollbackStmt.run();
        throw error;
      }
    } catch (error) {
      // BEGIN or COMMIT refused for want of space (a statement's own failure is converted by Direct).
      throw this.storage.refused(error);
    } finally {
      this.busy = false;
      const waiting = this.waiting;
      this.waiting = [];
      for (const resume of waiting) resume();
    }
  }

  exec(sql: string): Promise<void> {
    if (this.busy) return this.turn().then(() => this.exec(sql));
    this.endSnapshot();
    return this.write(() => this.direct.exec(sql));
  }

  async tables(): Promise<string[]> {
    return this.native
      .query<{ name: string }, []>("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .all()
      .map((row) => row.name);
  }

  /** Checkpoints the WAL into the file, so after a clean stop the file is complete on its own. */
  async close(): Promise<void> {
    while (this.busy) await this.turn();
    this.endSnapshot();
    try {
      this.native.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    } finally {
      this.native.close();
    }
  }
}
