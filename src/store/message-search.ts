import type { Database, SearchScope, SqlValue, Statement } from "./database.ts";

/** The columns of a search's answer: the message and its author's. */
const COLUMNS = "m.*, u.username, u.avatar, u.is_bot";

/**
 * SQLite: the messages read to make sure that the messages found first by rowid are the newest
 * by id, per message of the answer (`MessageSearch.sqlite`). 25,000 index entries for a page of
 * 25 take about 1.5 ms.
 */
export const CHECK_SPAN_PER_RESULT = 1000;
/**
 * PostgreSQL: the newest messages tested one by one before anything else, per message of the
 * answer (`MessageSearch.postgres`): 250 for a page of 25, about a millisecond (a tokenization
 * is a few microseconds). A word in every tenth message or more is answered from them.
 */
export const WINDOW_PER_RESULT = 10;
/**
 * PostgreSQL: the longest second walk, per message of the answer: 4,000 for a page of 25. Taken
 * when the first window held some matches but too few, and at the rate it held them the rest
 * of the answer is within this walk, and shorter than the text index's read (the word's
 * matches at that rate; a tokenization costs about what a match read from the index does);
 * it walks twice what that rate says at most. For a page of 25 in a table of 1,000,000
 * messages: a word in about 0.6% to 10% of them; of 10,000, none (the index reads fewer).
 */
export const SECOND_WINDOW_MAX_PER_RESULT = 160;

/**
 * How a search was answered (`MessageSearch.answers` counts them; the tests check each way is
 * taken): SQLite `all_read` (fewer matches than asked: the scan read them all), `newer_checked`
 * and `older_checked` (the rowid order held, by either side of the check), `sorted` (every
 * match read and sorted by id); PostgreSQL `window`, `second_window`, `text_index`.
 */
export type SearchAnswer = "all_read" | "newer_checked" | "older_checked" | "sorted" | "window" | "second_window" | "text_index";

/** A message of the answer (the repository's row: messages-repo.ts `MessageRow`); the search reads its id. */
interface Row {
  id: string;
}
/** A row as a statement answers it, with the search's own columns (removed before it is answered). */
type Found<R extends Row> = R & { search_rowid?: number; search_window_low?: string | null; search_window_size?: number; search_table_rows?: number };

/** The statements of one scope (one channel, or several). */
interface ScopeStatements<R extends Row> {
  sqlite?: {
    newest: Statement<Found<R>, [SqlValue, SqlValue, number]>;
    newer: Statement<{ n: number; low: number | null }, [SqlValue, string, number]>;
    older: Statement<{ n: number; newer: number }, [SqlValue, string, number, number]>;
    all: Statement<R, [SqlValue, SqlValue, number]>;
    top: Statement<{ top: number | null }, []>;
  };
  postgres?: {
    window: Statement<Found<R>, [SqlValue, SqlValue, number, number, string]>;
    rest: Statement<R, [SqlValue, SqlValue, number, string]>;
    settings: string;
  };
}

/**
 * The newest-first full-text search of channel messages (docs/messages.md, "Search"): the `limit`
 * newest messages (by id) of a channel, or of several, that hold every word. A word common in
 * the channel fills the answer from its newest messages, so the search reads about as many of
 * them as the answer needs; a rare word reads its few matches from the text index. Neither
 * reads every match of a common word, or every message of the channel for a rare one
 * (bench/search.ts measures both).
 *
 * - **SQLite** (FTS5): FTS5 hands out its matches by rowid, highest first, one at a time, and
 *   stops at the LIMIT: the first `limit` matches of the scope are read, whatever the total.
 *   Rowids follow the order of the inserts, as ids do (a UUIDv7 made at the insert), so these
 *   are the newest by id, but nothing in the schema promises it (a copied or imported message
 *   may hold an old id in a new row). So it is checked: the answer is the newest by id when no
 *   message of the scope with an id above the lowest id found has a rowid below the lowest
 *   rowid found. Either side of that is one index range read up to a bound
 *   (`CHECK_SPAN_PER_RESULT` a result): the scope's messages newer than that id, or all
 *   messages below that rowid, the one likely to read fewer first (a word of new messages:
 *   the newer; of old ones only: the older). When both run past the bound (a word of
 *   middle-aged messages only) or the check fails, every match is read and sorted by id, as
 *   before.
 * - **PostgreSQL** (GIN over `hearth_search_vector(content)`): the index gives every match at
 *   once, unordered, so a common word read from it costs its every match, and a walk of the
 *   channel newest first costs a tokenization a message, every message for a rare word. So the
 *   newest `WINDOW_PER_RESULT x limit` messages are walked first, testing each, in one
 *   statement that also answers the window's lowest id (and, when the matches it held say a
 *   walk of at most `SECOND_WINDOW_MAX_PER_RESULT x limit`, shorter than the index's read,
 *   would finish the answer, a second window below it, twice as long as that); if the windows
 *   held fewer matches than needed, the rest come from the text index, below the lowest id
 *   walked, in a plan made for the values (`restSettings`: a generic plan knows neither the
 *   channel's size nor the words).
 */
export class MessageSearch<R extends Row> {
  private readonly scopes: Record<SearchScope, ScopeStatements<R>>;
  /** Searches answered each way since the store opened (see `SearchAnswer`). */
  readonly answers: Record<SearchAnswer, number> = {
    all_read: 0,
    newer_checked: 0,
    older_checked: 0,
    sorted: 0,
    window: 0,
    second_window: 0,
    text_index: 0,
  };

  constructor(private readonly db: Database) {
    const sql = db.dialect.search.newestFirst;
    const scope = (which: SearchScope): ScopeStatements<R> =>
      sql.kind === "rowid"
        ? {
            sqlite: {
              newest: db.prepare(sql.newest(COLUMNS, which)),
              newer: db.prepare(sql.newer(which)),
              older: db.prepare(sql.older(which)),
              all: db.prepare(sql.all(COLUMNS, which)),
              top: db.prepare(sql.top),
            },
          }
        : { postgres: { window: db.prepare(sql.window(COLUMNS, which)), rest: db.prepare(sql.rest(COLUMNS, which)), settings: sql.restSettings } };
    this.scopes = { channel: scope("channel"), channels: scope("channels"), server: scope("server") };
  }

  /**
   * The newest `limit` messages of `channel` (an id; a `channelIds` list for "channels", a
   * `serverScope` list for "server") holding every one of `words`.
   */
  async run(scope: SearchScope, channel: SqlValue, words: string[], limit: number): Promise<R[]> {
    const match = this.db.dialect.search.param(words);
    const statements = this.scopes[scope];
    return statements.sqlite ? this.sqlite(statements.sqlite, channel, match, limit) : this.postgres(statements.postgres!, channel, match, limit);
  }

  private async sqlite(s: NonNullable<ScopeStatements<R>["sqlite"]>, channel: SqlValue, match: SqlValue, limit: number): Promise<R[]> {
    const found = await this.db.all(s.newest, match, channel, limit);
    // Fewer than asked: every match of the scope was read.
    const answer = found.length < limit ? "all_read" : await this.newestById(s, channel, found, limit);
    this.answers[answer]++;
    if (answer === "sorted") return this.db.all(s.all, match, channel, limit);
    found.sort(byIdNewestFirst);
    for (const row of found) delete row.search_rowid;
    return found;
  }

  /**
   * Whether `found` (the scope's first matches by rowid, down to the lowest) are its newest by
   * id: no message of the scope newer than the oldest found sits below the lowest rowid found.
   * "sorted" when that is not so, or could not be told within the bound.
   */
  private async newestById(s: NonNullable<ScopeStatements<R>["sqlite"]>, channel: SqlValue, found: Found<R>[], limit: number): Promise<SearchAnswer> {
    const span = CHECK_SPAN_PER_RESULT * limit;
    let oldest = found[0]!.id;
    let lowest = found[0]!.search_rowid!;
    for (const row of found) {
      if (row.id < oldest) oldest = row.id;
      if (row.search_rowid! < lowest) lowest = row.search_rowid!;
    }
    // Each side reads at most `span` rows; the one that reads fewer first. Of the newer side's
    // (the scope's messages above `oldest`) the rows above `lowest` are a bound, of all
    // channels; the older side reads the rows below `lowest`, about `lowest` of them.
    const top = (await this.db.get(s.top))?.top ?? lowest;
    const newerSide = async (): Promise<SearchAnswer | null> => {
      const newer = (await this.db.get(s.newer, channel, oldest, span))!;
      if (newer.n === span) return null;
      return newer.n === 0 || newer.low! >= lowest ? "newer_checked" : "sorted";
    };
    const olderSide = async (): Promise<SearchAnswer | null> => {
      const older = (await this.db.get(s.older, channel, oldest, lowest, span))!;
      if (older.n === span) return null;
      return older.newer === 0 ? "older_checked" : "sorted";
    };
    const [first, second] = top - lowest <= lowest ? [newerSide, olderSide] : [olderSide, newerSide];
    return (await first()) ?? (await second()) ?? "sorted";
  }

  private async postgres(s: NonNullable<ScopeStatements<R>["postgres"]>, channel: SqlValue, match: SqlValue, limit: number): Promise<R[]> {
    const first = WINDOW_PER_RESULT * limit;
    const found: R[] = [];
    // Every id is below "g" (UUIDs are lower-case hex): the first window has no upper bound.
    let window = await this.window(s, channel, match, limit, first, "g", found);
    if (window.complete) {
      this.answers.window++;
      return found;
    }
    // A word the first window held a few of: a second walk, as long as those few say it takes,
    // when that is shorter than the text index's read at that rate (its matches among all the
    // messages: a channel's own are fewer, so the walk is favoured where the channel is small
    // in a large table; it is bounded all the same).
    const seen = found.length;
    const needed = seen > 0 ? Math.ceil(((limit - seen) * first) / seen) : Number.POSITIVE_INFINITY;
    const indexReads = window.tableRows > 0 ? (seen / first) * window.tableRows : Number.POSITIVE_INFINITY;
    if (needed <= SECOND_WINDOW_MAX_PER_RESULT * limit && needed < indexReads) {
      window = await this.window(s, channel, match, limit - seen, Math.min(SECOND_WINDOW_MAX_PER_RESULT * limit, 2 * needed), window.low, found);
      if (window.complete) {
        this.answers.second_window++;
        return found;
      }
    }
    this.answers.text_index++;
    const low = window.low;
    const rest = await this.db.transaction(async (tx) => {
      await tx.exec(s.settings);
      return tx.all(s.rest, match, channel, limit - found.length, low);
    });
    return found.concat(rest);
  }

  /**
   * One window: its matches are added to `found`; `complete` when the answer is full or the
   * window held every message left (nothing older to read), else `low` is its lowest id.
   */
  private async window(
    s: NonNullable<ScopeStatements<R>["postgres"]>,
    channel: SqlValue,
    match: SqlValue,
    wanted: number,
    size: number,
    below: string,
    found: R[],
  ): Promise<{ complete: boolean; low: string; tableRows: number }> {
    const rows = await this.db.all(s.window, match, channel, wanted, size, below);
    const low = rows[0]?.search_window_low ?? null;
    const read = rows[0]?.search_window_size ?? 0;
    const tableRows = rows[0]?.search_table_rows ?? -1;
    let hits = 0;
    for (const row of rows) {
      delete row.search_window_low;
      delete row.search_window_size;
      delete row.search_table_rows;
      if (row.id !== null) {
        found.push(row);
        hits++;
      }
    }
    return { complete: hits === wanted || read < size || low === null, low: low ?? "", tableRows };
  }
}

const byIdNewestFirst = (a: { id: string }, b: { id: string }) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
