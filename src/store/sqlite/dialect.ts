import type { Dialect, SearchScope } from "../database.ts";

/**
 * Each word as an FTS5 phrase (inner quotes doubled), so FTS5 syntax in a word (`"`, `*`, `OR`,
 * `NEAR(`, `-`, `:`, column filters) is matched as text and never parsed; the phrases are ANDed.
 */
export const toFtsMatch = (words: string[]): string => words.map((word) => `"${word.replaceAll('"', '""')}"`).join(" ");

/** `= ?` one channel, or `IN` the JSON array of channel ids (`channelIds`). */
const inScope = (param: string, scope: SearchScope) => (scope === "channel" ? `= ${param}` : `IN (SELECT value FROM json_each(${param}))`);

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
    // FTS5 (unicode61 tokenizer, diacritics removed) over the content; the join goes through the
    // message's rowid (the index's, an external-content table's: sqlite/migrations.ts, version 3).
    newestFirst: {
      kind: "rowid",
      // FTS5 serves ORDER BY rowid DESC itself, reading its doclists from the end: the scan stops
      // at the LIMIT-th message of the scope, however many match before it.
      newest: (columns, scope) =>
        `SELECT ${columns}, f.rowid AS search_rowid FROM messages_fts f JOIN messages m ON m.rowid = f.rowid JOIN users u ON u.id = m.user_id
         WHERE messages_fts MATCH ?1 AND m.channel_id ${inScope("?2", scope)} ORDER BY f.rowid DESC LIMIT ?3`,
      // Both read one range of an index: (channel_id, id), which holds the rowid; the table's rowids.
      newer: (scope) =>
        `SELECT count(*) AS n, min(r) AS low FROM (SELECT rowid AS r FROM messages WHERE channel_id ${inScope("?1", scope)} AND id > ?2 LIMIT ?3)`,
      older: (scope) =>
        `SELECT count(*) AS n, coalesce(max(channel_id ${inScope("?1", scope)} AND id > ?2), 0) AS newer
         FROM (SELECT channel_id, id FROM messages WHERE rowid < ?3 ORDER BY rowid DESC LIMIT ?4)`,
      all: (columns, scope) =>
        `SELECT ${columns} FROM messages_fts f JOIN messages m ON m.rowid = f.rowid JOIN users u ON u.id = m.user_id
         WHERE messages_fts MATCH ?1 AND m.channel_id ${inScope("?2", scope)} ORDER BY m.id DESC LIMIT ?3`,
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
