import type { Dialect, SearchScope } from "../database.ts";

/**
 * Each word as an FTS5 phrase (inner quotes doubled), so FTS5 syntax in a word (`"`, `*`, `OR`,
 * `NEAR(`, `-`, `:`, column filters) is matched as text and never parsed; the phrases are ANDed.
 */
export const toFtsMatch = (words: string[]): string => words.map((word) => `"${word.replaceAll('"', '""')}"`).join(" ");

/**
 * The condition that a message `m` (an alias, or "" for the table itself) is in the scope given
 * by `param`: one channel (`= ?`); the JSON array of channel ids (`channelIds`); or, for
 * "server", the JSON array `[server id, closed channel ids...]` (`serverScope`): the server's
 * messages, read by `messages_server (server_id, id)`, but those of the closed channels and of
 * the channels being deleted (`channels_deleting`: a few rows, not every channel of the server).
 */
const inScope = (m: string, param: string, scope: SearchScope): string => {
  const col = (name: string) => (m ? `${m}.${name}` : name);
  if (scope === "channel") return `${col("channel_id")} = ${param}`;
  if (scope === "channels") return `${col("channel_id")} IN (SELECT value FROM json_each(${param}))`;
  return `${col("server_id")} = json_extract(${param}, '$[0]')
    AND ${col("channel_id")} NOT IN (SELECT value FROM json_each(${param}) WHERE key > 0)
    AND ${col("channel_id")} NOT IN (SELECT id FROM channels WHERE server_id = json_extract(${param}, '$[0]') AND deleted_at IS NOT NULL)`;
};
/**
 * The scope the newest-first check reads (`newer`, `older`): the scope itself, or for "server"
 * every message of the server. A check over more messages than the scope's is only stricter
 * (a message of a closed channel newer than the oldest found, below the lowest rowid found,
 * sends the search to its sorted read: still the right answer), and reads one range of
 * (server_id, id) with no lookup of each row's channel.
 */
const checkScope = (m: string, param: string, scope: SearchScope): string =>
  scope === "server" ? `${m ? `${m}.` : ""}server_id = json_extract(${param}, '$[0]')` : inScope(m, param, scope);

/** SQLite's side of the SQL that differs (see `Dialect`). */
export const sqliteDialect: Dialect = {
  name: "sqlite",
  nocase: " COLLATE NOCASE",
  // Without ICU (as Bun's SQLite is built), lower() changes A-Z only.
  asciiLower: (text) => `lower(${text})`,
  instr: (haystack, needle) => `instr(${haystack}, ${needle})`,
  json: (param) => param,
  inJsonArray: (param) => `IN (SELECT value FROM json_each(${param}))`,
  inIdList: (param) => `IN (SELECT value FROM json_each(${param}))`,
  idList: (ids) => JSON.stringify(ids),
  search: {
    param: toFtsMatch,
    channelIds: (ids) => JSON.stringify(ids),
    serverScope: (serverId, closed) => JSON.stringify([serverId, ...closed]),
    // FTS5 (unicode61 tokenizer, diacritics removed) over the content; the join goes through the
    // message's rowid (the index's, an external-content table's: sqlite/migrations.ts, version 3).
    newestFirst: {
      kind: "rowid",
      // FTS5 serves ORDER BY rowid DESC itself, reading its doclists from the end: the scan stops
      // at the LIMIT-th message of the scope, however many match before it.
      newest: (columns, scope) =>
        `SELECT ${columns}, f.rowid AS search_rowid FROM messages_fts f JOIN messages m ON m.rowid = f.rowid JOIN users u ON u.id = m.user_id
         WHERE messages_fts MATCH ?1 AND ${inScope("m", "?2", scope)} ORDER BY f.rowid DESC LIMIT ?3`,
      // Both read one range of an index: (channel_id, id) or (server_id, id), which hold the rowid; the table's rowids.
      newer: (scope) =>
        `SELECT count(*) AS n, min(r) AS low FROM (SELECT rowid AS r FROM messages WHERE ${checkScope("", "?1", scope)} AND id > ?2 LIMIT ?3)`,
      older: (scope) =>
        `SELECT count(*) AS n, coalesce(max(${checkScope("", "?1", scope)} AND id > ?2), 0) AS newer
         FROM (SELECT channel_id, server_id, id FROM messages WHERE rowid < ?3 ORDER BY rowid DESC LIMIT ?4)`,
      all: (columns, scope) =>
        `SELECT ${columns} FROM messages_fts f JOIN messages m ON m.rowid = f.rowid JOIN users u ON u.id = m.user_id
         WHERE messages_fts MATCH ?1 AND ${inScope("m", "?2", scope)} ORDER BY m.id DESC LIMIT ?3`,
      top: "SELECT max(rowid) AS top FROM messages",
    },
    dmMessages: (columns) =>
      `SELECT ${columns} FROM dm_messages_fts f JOIN dm_messages m ON m.rowid = f.rowid JOIN users u ON u.id = m.user_id
       WHERE dm_messages_fts MATCH ?1 AND m.conversation_id = ?2 ORDER BY f.rank, m.id DESC LIMIT ?3`,
    // One FTS5 statement for the whole backlog: one flush of the index's pending entries.
    indexPendingMessages: [
      `INSERT INTO messages_fts (rowid, content)
       SELECT m.rowid, m.content FROM messages_fts_pending p JOIN messages m ON m.rowid = p.message_rowid`,
      "DELETE FROM messages_fts_pending",
    ],
    indexPendingDmMessages: [
      `INSERT INTO dm_messages_fts (rowid, content)
       SELECT m.rowid, m.content FROM dm_messages_fts_pending p JOIN dm_messages m ON m.rowid = p.message_rowid`,
      "DELETE FROM dm_messages_fts_pending",
    ],
  },
};
