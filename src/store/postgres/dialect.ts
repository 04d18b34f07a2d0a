import type { Dialect } from "../database.ts";

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
    channelMessages: (columns) =>
      `SELECT ${columns} FROM messages m JOIN users u ON u.id = m.user_id
       WHERE m.channel_id = ?2 AND hearth_search_vector(m.content) @@ hearth_search_query(CAST(?1 AS text[]))
       ORDER BY m.id DESC LIMIT ?3`,
    channelIds: (ids) => ids,
    channelsMessages: (columns) =>
      `SELECT ${columns} FROM messages m JOIN users u ON u.id = m.user_id
       WHERE m.channel_id = ANY(CAST(?2 AS text[])) AND hearth_search_vector(m.content) @@ hearth_search_query(CAST(?1 AS text[]))
       ORDER BY m.id DESC LIMIT ?3`,
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
