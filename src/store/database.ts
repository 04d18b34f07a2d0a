import type { StorageHealth } from "./storage-full.ts";

/**
 * The one interface every repository is written against, implemented twice: bun:sqlite
 * (store/sqlite/, the zero-configuration default) and PostgreSQL through Bun's SQL client
 * (store/postgres/, for several nodes sharing one database). Repositories prepare their
 * statements once and run them through a `Database` (or the `Transaction` of a check-then-write);
 * the few places where the two SQL dialects differ are the `Dialect` fragments.
 */

/** A value bound to a statement parameter. */
export type SqlValue = string | number | bigint | null | Uint8Array | string[];

/** Parameters: positional values (`?`, `?1`), or one object for `$name` placeholders. */
export type Params = unknown[];

/**
 * A prepared statement of one database: SQL in SQLite's placeholder syntax (`?`, `?1`, `$name`),
 * which the PostgreSQL side rewrites to `$1..$n` once, when it is prepared. `Row` and `P` only
 * type the calls.
 */
export interface Statement<Row = unknown, P extends Params = Params> {
  readonly sql: string;
  /** Never set: carries the row and parameter types. */
  readonly types?: { row: Row; params: P };
}

/** Running statements: on the database (any connection) or inside one transaction. */
export interface Queries {
  /** The first row, or null. */
  get<Row, P extends Params>(statement: Statement<Row, P>, ...params: P): Promise<Row | null>;
  all<Row, P extends Params>(statement: Statement<Row, P>, ...params: P): Promise<Row[]>;
  /** Runs a write; answers the number of rows it changed. */
  run<P extends Params>(statement: Statement<unknown, P>, ...params: P): Promise<number>;
  /** Several statements without parameters (migrations, tests). */
  exec(sql: string): Promise<void>;
}

/** Statements inside one transaction. */
export interface Transaction extends Queries {
  /**
   * Serializes this transaction with every other one that locks the same `scope` (e.g.
   * `emojis:<server id>`) until it ends: a check-then-write takes its scope's lock before the
   * check. PostgreSQL: a transaction-scoped advisory lock, so it holds across processes and
   * nodes. SQLite: nothing to do, its transactions already run one at a time.
   */
  lock(scope: string): Promise<void>;
  /** Runs `work` in a savepoint: when it throws, only its own writes are undone. */
  savepoint<T>(work: (tx: Transaction) => Promise<T>): Promise<T>;
}

export interface TransactionOptions {
  /**
   * Run on the connection kept for the group commit of message sends (PostgreSQL: one reserved
   * connection, so a batch never waits for the pool; SQLite has only one connection).
   */
  writer?: boolean;
}

export interface Database extends Queries {
  readonly dialect: Dialect;
  /** Whether writes are being stored, or fail for want of space (src/store/storage-full.ts). */
  readonly storage: StorageHealth;
  /** Prepares once; the statement is then run any number of times. */
  prepare<Row = unknown, P extends Params = Params>(sql: string): Statement<Row, P>;
  /**
   * Runs `work` in one transaction: committed when it resolves, rolled back when it throws.
   * On PostgreSQL (READ COMMITTED) a transaction that lost a deadlock is run again from the
   * start, so `work` must have no effect outside the database.
   */
  transaction<T>(work: (tx: Transaction) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** Tables of the schema (for checks and the copy to PostgreSQL). */
  tables(): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * The SQL that differs between the two databases, as fragments the repositories put in their
 * statements. Everything else is written once, in SQL both accept.
 */
export interface Dialect {
  readonly name: "sqlite" | "postgres";
  /**
   * After a comparison or ORDER BY of a case-insensitive name column (username, email, vanity
   * code): SQLite `COLLATE NOCASE`; on PostgreSQL those columns are `citext`, so nothing.
   */
  readonly nocase: string;
  /**
   * `text` with the letters A-Z lowered and every other character as it is (SQLite's `lower()`,
   * PostgreSQL's `translate()`): the same value on both, and the same as `asciiLower` in
   * store/name-prefix.ts, so a prefix range computed in TypeScript matches stored keys.
   */
  asciiLower(text: string): string;
  /** 1-based position of `needle` in `haystack`, 0 when absent (SQLite `instr`, PostgreSQL `strpos`). */
  instr(haystack: string, needle: string): string;
  /** A parameter holding JSON text, written to a JSON column (PostgreSQL: `jsonb`). */
  json(param: string): string;
  /** `IN (...)` over a parameter holding a JSON array of strings. */
  inJsonArray(param: string): string;
  /**
   * `IN` a parameter holding `idList(ids)`: on PostgreSQL `= ANY` of a text array, which is an
   * index condition of the column itself, whatever the join order the planner picks (an
   * `inJsonArray` subquery is a join it may take last); SQLite's `IN (SELECT ... json_each)`
   * already is one.
   */
  inIdList(param: string): string;
  /** The parameter of `inIdList`. */
  idList(ids: string[]): SqlValue;
  /** Full-text search: the statements and the parameter built from the words (docs/messages.md, search). */
  readonly search: SearchDialect;
}

/**
 * Full-text search of channel and DM messages. Both sides tokenize alike (letters and digits,
 * case and accents ignored, punctuation separates words: docs/messages.md) and require every
 * word of the query, each word as a phrase of its tokens.
 */
interface SearchDialect {
  /** The parameter of the MATCH / `@@` test for these words (never empty). */
  param(words: string[]): SqlValue;
  /** The parameter of a search over several channels (`SearchScope` "channels"): a list of channel ids as this database takes one. */
  channelIds(ids: string[]): SqlValue;
  /**
   * The parameter of a search over a server's channels but `closed` (`SearchScope` "server"):
   * one list of ids, the server's first, as this database takes one.
   */
  serverScope(serverId: string, closed: string[]): SqlValue;
  /** How this database runs a channel search newest first (src/store/message-search.ts). */
  readonly newestFirst: NewestFirstSql;
  /** `SELECT <columns>` of DM messages matching `?1` in DM `?2`, best match first, then newest, `LIMIT ?3`. */
  dmMessages(columns: string): string;
  /**
   * Statements that add the channel messages not yet indexed to the index, run in one
   * transaction before a search and a moment after sends (SQLite: the messages_fts_pending
   * backlog, sqlite/migrations.ts version 13; src/store/search-backlog.ts); empty where the
   * INSERT maintains the index.
   */
  indexPendingMessages: string[];
  /** The same for DM messages (SQLite: dm_messages_fts_pending, version 14). */
  indexPendingDmMessages: string[];
}

/** What a channel search covers: one channel (its id), or several (`SearchDialect.channelIds`, a server's search). */
/**
 * Where a channel search looks: one channel; a list of channels; or a server's messages, but
 * those of a list of channels and of the channels being deleted (a server-wide search of a
 * reader who may read all or most of them: its cost does not follow the server's channels).
 */
export type SearchScope = "channel" | "channels" | "server";

/**
 * The statements of a newest-first channel search, in `SearchScope`'s two forms (the scope's
 * parameter where the statement says). Each database answers it its own way
 * (src/store/message-search.ts says why): `rowid` on SQLite, whose FTS5 index hands out its
 * matches in rowid order, newest first and one at a time; `window` on PostgreSQL, whose GIN index
 * hands out every match at once, in no order.
 */
export type NewestFirstSql =
  | {
      readonly kind: "rowid";
      /**
       * `SELECT <columns>, <rowid> AS search_rowid`: the first `?3` messages of the scope `?2`
       * matching `?1`, by the index's rowid, highest first (read as far as they go, no further).
       */
      newest(columns: string, scope: SearchScope): string;
      /**
       * `SELECT n, low`: how many of the scope's (`?1`) messages have an id above `?2`, counting
       * `?3` at most, and the lowest rowid among those counted.
       */
      newer(scope: SearchScope): string;
      /**
       * `SELECT n, newer`: of the messages (of any channel) with a rowid below `?3`, highest
       * first, `?4` at most: how many were read, and 1 when one of them is the scope's (`?1`) with
       * an id above `?2`.
       */
      older(scope: SearchScope): string;
      /** `SELECT <columns>` of every match of `?1` in the scope `?2`, sorted by id, newest first, `LIMIT ?3`. */
      all(columns: string, scope: SearchScope): string;
      /** `SELECT top`: the highest rowid of the messages (how many rows `newer` may have to read at most, of all channels). */
      top: string;
    }
  | {
      readonly kind: "window";
      /**
       * `SELECT <columns>, search_window_low, search_window_size, search_table_rows`: the
       * scope's (`?2`) newest `?4` messages with an id below `?5` (one channel's; all channels'
       * for "channels"; the server's, closed channels' included, for "server"), the first `?3` of them that match `?1`, newest first; every row carries
       * the lowest id of those `?4`, their number and the messages' row count in the table's
       * statistics (negative: none yet), and a window without a match answers one row of them
       * alone (its message columns null).
       */
      window(columns: string, scope: SearchScope): string;
      /**
       * `SELECT <columns>`: the newest `?3` messages of the scope `?2` matching `?1` with an id
       * below `?4`, read from the text index first, whatever the words.
       */
      rest(columns: string, scope: SearchScope): string;
      /** Run in the transaction of `rest`, before it. */
      restSettings: string;
    };

/** The database holds a schema newer than this build's migrations: the server must not start. */
export class SchemaTooNewError extends Error {}
