import { SQL } from "bun";
import type { Database, Params, Statement, Transaction, TransactionOptions } from "../database.ts";
import { isRetryable } from "../retry.ts";
import { Availability, DatabaseUnavailableError, isUnavailable } from "../availability.ts";
import { StorageHealth } from "../storage-full.ts";
import { postgresDialect } from "./dialect.ts";
import { orderedParams, toPostgresPlaceholders } from "./placeholders.ts";

interface PostgresStatement<Row, P extends Params> extends Statement<Row, P> {
  /** The text with `$1..$n`; Bun prepares it once per connection (named prepared statements). */
  readonly text: string;
  readonly names: string[] | null;
}

/** Bun's client for the pool, a reserved connection, a transaction or a savepoint. */
type Client = Pick<SQL, "unsafe">;

/** A result as Bun's client gives it: rows plus the columns' type OIDs. */
type Result = Record<string, unknown>[] & { columns?: { name: string; type: number }[]; count?: number };

const INT8 = 20;
const NUMERIC = 1700;
const BOOL = 16;
const JSON_TYPE = 114;
const JSONB = 3802;

/**
 * Rows read the same as on SQLite, so the domain never knows which database it runs on:
 * `bigint` (seconds, milliseconds, permission bits, counts) comes back as a number (every
 * integer Hearth stores is below 2^53), a boolean expression as 0/1, and a `jsonb` column as the
 * JSON text the repositories wrote (Bun parses it; the domain parses the text itself).
 */
function normalize(rows: Result): Record<string, unknown>[] {
  const columns = rows.columns;
  if (!columns) return rows;
  const changed = columns.filter((c) => c.type === INT8 || c.type === NUMERIC || c.type === BOOL || c.type === JSON_TYPE || c.type === JSONB);
  if (changed.length === 0) return rows;
  for (const row of rows) {
    for (const { name, type } of changed) {
      const value = row[name];
      if (value === null || value === undefined) continue;
      if (type === JSON_TYPE || type === JSONB) row[name] = JSON.stringify(value);
      else if (type === BOOL) row[name] = value ? 1 : 0;
      else row[name] = Number(value);
    }
  }
  return rows;
}

/**
 * PostgreSQL text cannot hold U+0000 (SQLite's can): in a parameter it becomes U+FFFD, so a
 * lookup with it finds nothing and a write keeps the rest of the text, instead of an error.
 */
const withoutNul = (value: unknown) => (typeof value === "string" && value.includes("\0") ? value.replaceAll("\0", "\uFFFD") : value);

const statementOf = <Row, P extends Params>(statement: Statement<Row, P>) => statement as PostgresStatement<Row, P>;

/** Statements on one client: the pool, or one transaction's connection. */
class PostgresQueries implements Transaction {
  private savepoints = 0;

  constructor(private readonly client: Client) {}

  private async query(statement: PostgresStatement<unknown, Params>, params: unknown[]): Promise<Result> {
    const values = orderedParams(statement.names, params, statement.sql).map(withoutNul);
    return (await this.client.unsafe(statement.text, values as never[])) as Result;
  }

  async get<Row, P extends Params>(statement: Statement<Row, P>, ...params: P): Promise<Row | null> {
    const rows = normalize(await this.query(statementOf(statement), params));
    return (rows[0] as Row | undefined) ?? null;
  }

  async all<Row, P extends Params>(statement: Statement<Row, P>, ...params: P): Promise<Row[]> {
    return normalize(await this.query(statementOf(statement), params)) as Row[];
  }

  async run<P extends Params>(statement: Statement<unknown, P>, ...params: P): Promise<number> {
    return (await this.query(statementOf(statement), params)).count ?? 0;
  }

  async exec(sql: string): Promise<void> {
    await this.client.unsafe(sql);
  }

  async lock(scope: string): Promise<void> {
    await this.client.unsafe("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [scope]);
  }

  async savepoint<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    const name = `sp${++this.savepoints}`;
    await this.client.unsafe(`SAVEPOINT ${name}`);
    try {
      const result = await work(this);
      await this.client.unsafe(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (error) {
      // A lost deadlock dooms the whole transaction; anything else undoes this savepoint only.
      if (!isRetryable(error)) {
        await this.client.unsafe(`ROLLBACK TO SAVEPOINT ${name}`);
        await this.client.unsafe(`RELEASE SAVEPOINT ${name}`);
      }
      throw error;
    } finally {
      this.savepoints--;
    }
  }
}

/** Tries of a transaction that keeps losing deadlocks, before its error is answered. */
const MAX_ATTEMPTS = 8;

/**
 * PostgreSQL through Bun's built-in client: a pool of connections (`max` in the URL, default 10)
 * plus one reserved for the group commit of message sends. Transactions run at READ COMMITTED;
 * their check-then-writes are serialized by advisory locks (`Transaction.lock`), which hold
 * across every process sharing the database. Nothing authoritative is kept in this process.
 */
export class PostgresDatabase implements Database {
  readonly dialect = postgresDialect;
  private readonly pool: PostgresQueries;
  private writer: Promise<ReturnType<SQL["reserve"]> extends Promise<infer R> ? R : never> | null = null;
  /**
   * Operations running now, by connection: on the pool (statements and transactions, each holding
   * one of its connections or waiting for one) and on the writer's reserved connection. Bun's
   * client exposes no pool counts, so these are counted here (the `/metrics` pool gauges).
   */
  readonly inFlight = { pool: 0, writer: 0 };
  /** Whether the server can be reached, as the last operations found (src/store/availability.ts). */
  readonly availability = new Availability();
  /**
   * Whether writes are stored (src/store/storage-full.ts): the server's disk full (SQLSTATE
   * 53100) is a 507, said once. Reads never count as the recovery (they succeed on a full disk).
   */
  readonly storage = new StorageHealth();
  private readonly onlyRead = () => false;

  private constructor(private readonly sql: SQL) {
    this.pool = new PostgresQueries(sql);
    // The writer's connection died with the server too, but nothing may have used it during the
    // outage (sends fail on their reads first): kept, the first group commit after the recovery
    // would fail on it (a 503, and the outage logged again). One in use is dropped by its failure.
    this.availability.onChange((available) => {
      if (!available && this.inFlight.writer === 0) this.dropWriter();
    });
  }

  /** Connects (and checks the connection with one query), so a wrong URL fails at start. */
  static async connect(url: string): Promise<PostgresDatabase> {
    const sql = new SQL(url);
    try {
      await sql.unsafe("SELECT 1");
    } catch (error) {
      await sql.close({ timeout: 0 });
      throw error;
    }
    return new PostgresDatabase(sql);
  }

  prepare<Row = unknown, P extends Params = Params>(sql: string): Statement<Row, P> {
    const { text, names } = toPostgresPlaceholders(sql);
    const statement: PostgresStatement<Row, P> = { sql, text, names };
    return statement;
  }

  get<Row, P extends Params>(statement: Statement<Row, P>, ...params: P): Promise<Row | null> {
    return this.storage.guard(() => this.counted("pool", () => this.pool.get(statement, ...params)), this.onlyRead);
  }

  all<Row, P extends Params>(statement: Statement<Row, P>, ...params: P): Promise<Row[]> {
    return this.storage.guard(() => this.counted("pool", () => this.pool.all(statement, ...params)), this.onlyRead);
  }

  run<P extends Params>(statement: Statement<unknown, P>, ...params: P): Promise<number> {
    return this.storage.guard(() => this.counted("pool", () => this.pool.run(statement, ...params)));
  }

  exec(sql: string): Promise<void> {
    return this.storage.guard(() => this.counted("pool", () => this.pool.exec(sql)));
  }

  transaction<T>(work: (tx: Transaction) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    return this.storage.guard(() => this.retried(work, options));
  }

  private async retried<T>(work: (tx: Transaction) => Promise<T>, options: TransactionOptions): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        const box = await this.counted(options.writer ? "writer" : "pool", async () => {
          const client = options.writer ? await this.writerConnection() : this.sql;
          // Boxed: Bun would take an array returned from the callback for queries to pipeline.
          return client.begin(async (tx) => ({ value: await work(new PostgresQueries(tx)) }));
        });
        return box.value;
      } catch (error) {
        if (options.writer && isUnavailable(error)) this.dropWriter();
        if (!isRetryable(error) || attempt >= MAX_ATTEMPTS) throw error;
        // Lost a deadlock: both sides were rolled back; wait a little, at random, and go again.
        await Bun.sleep(Math.random() * 5 * attempt);
      }
    }
  }

  private async counted<T>(connection: "pool" | "writer", operation: () => Promise<T>): Promise<T> {
    this.inFlight[connection]++;
    const ticket = this.availability.begin();
    try {
      const result = await operation();
      this.availability.answered(ticket);
      return result;
    } catch (error) {
      if (!isUnavailable(error)) throw error;
      this.availability.failed(ticket);
      throw error instanceof DatabaseUnavailableError ? error : new DatabaseUnavailableError(error);
    } finally {
      this.inFlight[connection]--;
    }
  }

  /** The connection kept for the group commit, reserved at first use and again after it was lost. */
  private writerConnection() {
    this.writer ??= this.sql.reserve();
    return this.writer;
  }

  /** Closes the writer's connection (never handed back to the pool: it may be dead); the next commit reserves another. */
  private dropWriter(): void {
    const writer = this.writer;
    this.writer = null;
    void writer?.then((connection) => connection.close()).catch(() => {});
  }

  /**
   * The pool's configured size (`max` in the URL, Bun's default 10), not counting the writer's
   * reserved connection. Bun's client exposes no live counts (busy, idle, waiting): `inFlight`
   * counts the operations instead, and pg_stat_activity shows the server's side
   * (docs/operations.md, "Metrics").
   */
  get poolMax(): number {
    return this.sql.options.max ?? 10;
  }

  async tables(): Promise<string[]> {
    const rows = (await this.sql.unsafe(
      "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename",
    )) as { tablename: string }[];
    return rows.map((row) => row.tablename);
  }

  async close(): Promise<void> {
    const writer = this.writer;
    this.writer = null;
    if (writer) (await writer.catch(() => null))?.release();
    await this.sql.close({ timeout: 5 });
  }
}

