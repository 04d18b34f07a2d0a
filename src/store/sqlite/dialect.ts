import type { Dialect } from "../database.ts";

/**
 * Each word as an FTS5 phrase (inner quotes doubled), so FTS5 syntax in a word (`"`, `*`, `OR`,
 * `NEAR(`, `-`, `:`, column filters) is matched as text and never parsed; the phrases are ANDed.
 */
export const toFtsMatch = (words: string[]): string => words.map((word) => `"${word.replaceAll('"', '""')}"`).join(" ");

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
    // FTS5 (unicode61 tokenizer, diacritics removed) over the content; the join goes through
    // the channel's messages.
    channelMessages: (columns) =>
      `SELECT ${columns} FROM messages_fts f JOIN messages m ON m.rowid = f.rowid JOIN users u ON u.id = m.user_id
       WHERE messages_fts MATCH ?1 AND m.channel_id = ?2 ORDER BY m.id DESC LIMIT ?3`,
    channelIds: (ids) => JSON.stringify(ids),
    channelsMessages: (columns) =>
      `SELECT ${columns} FROM messages_fts f JOIN messages m ON m.rowid = f.rowid JOIN users u ON u.id = m.user_id
       WHERE messages_fts MATCH ?1 AND m.channel_id IN (SELECT value FROM json_each(?2)) ORDER BY m.id DESC LIMIT ?3`,
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
