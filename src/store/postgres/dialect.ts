import type { Dialect, SearchScope } from "../database.ts";

/** The server of a "server" scope's parameter (`serverScope`: its first id). */
const scopeServer = "(CAST(?2 AS text[]))[1]";

/** The condition of the window's walk along an index: one channel's, a server's, or every message's (several channels), then `AND`. */
const walked = (scope: SearchScope): string =>
  scope === "channel" ? "channel_id = ?2 AND " : scope === "server" ? `server_id = ${scopeServer} AND ` : "";

/**
 * That a message of table or alias `m` is in the scope `?2`: one channel; a list of channels;
 * or a server's messages but those of the closed channels listed after its id and of the
 * channels being deleted (`channels_deleting`: a few rows, not every channel of the server).
 */
const kept = (m: string, scope: SearchScope): string => {
  if (scope === "channel") return `${m}.channel_id = ?2`;
  if (scope === "channels") return `${m}.channel_id = ANY(CAST(?2 AS text[]))`;
  return `${m}.server_id = ${scopeServer} AND NOT (${m}.channel_id = ANY((CAST(?2 AS text[]))[2:]))
    AND ${m}.channel_id NOT IN (SELECT id FROM channels WHERE server_id = ${scopeServer} AND deleted_at IS NOT NULL)`;
};

/**
 * PostgreSQL's side of the SQL that differs (see `Dialect`). Search runs on an expression GIN
 * index over `hearth_search_vector(content)` (store/postgres/migrations.ts, version 3), queried
 * with `hearth_search_query(words)`: every word a phrase, all of them required.
 */
export const postgresDialect: Dialect = {
  name: "postgres",
  nocase: "",
  // lower() would follow the database's locale past A-Z; SQLite's changes A-Z only.
  asciiLower: (text) => `translate(CAST(${text} AS text), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')`,
  instr: (haystack, needle) => `strpos(${haystack}, ${needle})`,
  // Cast through text: a parameter Bun sees as jsonb would be stored as a JSON string.
  json: (param) => `CAST(CAST(${param} AS text) AS jsonb)`,
  inJsonArray: (param) => `IN (SELECT value FROM json_array_elements_text(CAST(CAST(${param} AS text) AS json)))`,
  inIdList: (param) => `= ANY(CAST(${param} AS text[]))`,
  idList: (ids) => ids,
  search: {
    param: (words) => words,
    channelIds: (ids) => ids,
    serverScope: (serverId, closed) => [serverId, ...closed],
    newestFirst: {
      kind: "window",
      // The window is read newest first along an index, (channel_id, id) for one channel,
      // (server_id, id) for a server, the primary key for several channels (an index of each
      // channel cannot give their messages in one order), and each message of it is tested as it
      // comes: the LIMIT stops the read at the last match needed. The query is made once, a
      // subquery (a generic plan would make it again for every message, for words not known
      // when it was planned). The window's lowest id and size come from the same statement (one
      // snapshot), from the index alone; and the table's row count as its statistics have it
      // (-1 before the first ANALYZE).
      window: (columns, scope) => {
        const newest = `FROM messages WHERE ${walked(scope)}id < ?5 ORDER BY id DESC LIMIT ?4`;
        const inScope = scope === "channel" ? "" : ` AND ${kept("w", scope)}`;
        return `WITH bound AS (SELECT min(id) AS low, count(*) AS size FROM (SELECT id ${newest}) b)
         SELECT hit.*, bound.low AS search_window_low, bound.size AS search_window_size,
           (SELECT reltuples FROM pg_class WHERE oid = CAST('messages' AS regclass)) AS search_table_rows
         FROM bound LEFT JOIN LATERAL (
           SELECT ${columns} FROM (
             SELECT w.* FROM (SELECT * ${newest}) w
             WHERE hearth_search_vector(w.content) @@ (SELECT hearth_search_query(CAST(?1 AS text[])))${inScope}
             ORDER BY w.id DESC LIMIT ?3
           ) m JOIN users u ON u.id = m.user_id
         ) hit ON true
         ORDER BY hit.id DESC`;
      },
      // Every match below the window, from the GIN index (the MATERIALIZED CTE is a fence: no
      // plan may walk the channel newest first and tokenize each message, which for a word of
      // old messages, or a rare one, is every message of the channel), then the newest of them.
      rest: (columns, scope) =>
        `WITH hits AS MATERIALIZED (
           SELECT id FROM messages
           WHERE ${kept("messages", scope)} AND id < ?4
             AND hearth_search_vector(content) @@ hearth_search_query(CAST(?1 AS text[])))
         SELECT ${columns} FROM (SELECT id FROM hits ORDER BY id DESC LIMIT ?3) t JOIN messages m ON m.id = t.id JOIN users u ON u.id = m.user_id
         ORDER BY m.id DESC`,
      // A plan for these values every time: a prepared statement's generic plan (from its sixth
      // run on a connection) knows neither the channel's size nor the words' frequency, and may
      // read a channel of a million messages through (channel_id, id) to tokenize each.
      restSettings: "SET LOCAL plan_cache_mode = force_custom_plan",
    },
    dmMessages: (columns) =>
      `SELECT ${columns} FROM dm_messages m JOIN users u ON u.id = m.user_id
         CROSS JOIN hearth_search_query(CAST(?1 AS text[])) AS q
       WHERE m.conversation_id = ?2 AND hearth_search_vector(m.content) @@ q
       ORDER BY ts_rank(hearth_search_vector(m.content), q) DESC, m.id DESC LIMIT ?3`,
    // The expression index is maintained by the INSERT.
    indexPendingMessages: [],
    indexPendingDmMessages: [],
  },
};
