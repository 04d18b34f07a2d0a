import { Database as Sqlite, type Statement as SqliteStatement } from "bun:sqlite";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import type { Database, Params, SqlValue, Statement, Transaction, TransactionOptions } from "../database.ts";
import { sqliteDialect } from "./dialect.ts";

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
}

const native = <Row, P extends Params>(statement: Statement<Row, P>) => (statement as SqliteStatementHandle<Row, P>).native;

/** Statements run at once, on the one connection (inside a transaction: by that transaction). */
class Direct implements Transaction {
  private savepoints = 0;

  constructor(private readonly db: Sqlite) {}

  async get<Row, P extends Params>(statement: Statement<Row, P>, ...params: P): Promise<Row | null> {
    return (native(statement).get(...(params as unknown as never[])) as Row | null) ?? null;
  }

  async all<Row, P extends Params>(statement: Statement<Row, P>, ...params: P): Promise<Row[]> {
    return native(statement).all(...(params as unknown as never[])) as Row[];
  }

  async run<P extends Params>(statement: Statement<unknown, P>, ...params: P): Promise<number> {
    return native(statement).run(...(params as unknown as never[])).changes;
  }

  async exec(sql: string): Promise<void> {
    this.db.exec(sql);
  }

  async lock(): Promise<void> {
    // Transactions on this connection already run one at a time (SqliteDatabase.transaction).
  }

  async savepoint<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    const name = `sp${++this.savepoints}`;
    this.db.run(`SAVEPOINT ${name}`);
    try {
      const result = await work(this);
      this.db.run(`RELEASE ${name}`);
      return result;
    } catch (error) {
      if (this.db.inTransaction) {
        this.db.run(`ROLLBACK TO ${name}`);
        this.db.run(`RELEASE ${name}`);
      }
      throw error;
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
 */
export class SqliteDatabase implements Database {
  readonly dialect = sqliteDialect;
  private readonly direct: Direct;
  private readonly beginStmt;
  private readonly commitStmt;
  private readonly rollbackStmt;
  /** A transaction is open on the connection. */
  private busy = false;
  private waiting: (() => void)[] = [];

  constructor(readonly native: Sqlite) {
    this.direct = new Direct(native);
    // IMMEDIATE takes the write lock up front (busy_timeout covers another process, e.g. the admin CLI).
    this.beginStmt = native.prepare("BEGIN IMMEDIATE");
    this.commitStmt = native.prepare("COMMIT");
    this.rollbackStmt = native.prepare("ROLLBACK");
  }

  static open(file: string): SqliteDatabase {
    return new SqliteDatabase(openSqliteFile(file));
  }

  prepare<Row = unknown, P extends Params = Params>(sql: string): Statement<Row, P> {
    const handle: SqliteStatementHandle<Row, P> = { sql, native: this.native.prepare(sql) };
    return handle;
  }

  /** Runs `query` now, or once the open transaction has ended. */
  private whenFree<T>(query: () => Promise<T>): Promise<T> {
    return this.busy ? this.turn().then(() => this.whenFree(query)) : query();
  }

  /** Resolves when the open transaction has ended. */
  private turn(): Promise<void> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  get<Row, P extends Params>(statement: Statement<Row, P>, ...params: P): Promise<Row | null> {
    return this.whenFree(() => this.direct.get(statement, ...params));
  }

  all<Row, P extends Params>(statement: Statement<Row, P>, ...params: P): Promise<Row[]> {
    return this.whenFree(() => this.direct.all(statement, ...params));
  }

  run<P extends Params>(statement: Statement<unknown, P>, ...params: P): Promise<number> {
    return this.whenFree(() => this.direct.run(statement, ...params));
  }

  async transaction<T>(work: (tx: Transaction) => Promise<T>, _options?: TransactionOptions): Promise<T> {
    while (this.busy) await this.turn();
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
    } finally {
      this.busy = false;
      const waiting = this.waiting;
      this.waiting = [];
      for (const resume of waiting) resume();
    }
  }

  exec(sql: string): Promise<void> {
    return this.whenFree(() => this.direct.exec(sql));
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
    try {
      this.native.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    } finally {
      this.native.close();
    }
  }
}
