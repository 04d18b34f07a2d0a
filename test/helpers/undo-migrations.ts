/**
 * Schema changes taken back, for the tests that re-apply migrations to a database of an older
 * version (test/store/migrations.test.ts, test/store/secret-box.test.ts).
 */

/** Back to a database of version 22: the custom status columns and their index gone (the same on both databases). */
export const UNDO_MIGRATION_23 =
  "DROP INDEX users_custom_status_expiry; ALTER TABLE users DROP COLUMN custom_status_text; " +
  "ALTER TABLE users DROP COLUMN custom_status_emoji; ALTER TABLE users DROP COLUMN custom_status_expires_at; ";

/** Back to a database of version 21, as far as version 22 goes: its tables, columns, indexes and triggers gone, the ones before back. */
export const undoMigration22 = (dialect: "sqlite" | "postgres") => {
  const indexes = "DROP INDEX channel_read_states_channel; DROP INDEX interactions_channel; DROP INDEX interactions_server; DROP INDEX commands_server; DROP INDEX webhooks_server; DROP INDEX messages_user_server; ";
  const tables = "DROP TABLE deletion_jobs; DROP TABLE deletion_files; ALTER TABLE servers DROP COLUMN deleted_at; ALTER TABLE channels DROP COLUMN deleted_at; ";
  if (dialect === "sqlite") {
    return (
      "DROP TRIGGER servers_count_hide; DROP TRIGGER servers_count_delete; " +
      "CREATE TRIGGER servers_count_delete AFTER DELETE ON servers BEGIN UPDATE platform_counters SET value = value - 1 WHERE name = 'servers'; END; " +
      "DROP INDEX messages_server; " + indexes + tables
    );
  }
  const rowTrigger = (name: string, table: string, fn: string) => `CREATE TRIGGER ${name} AFTER INSERT OR DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${fn}; `;
  return (
    "DROP TRIGGER servers_count_insert ON servers; DROP TRIGGER servers_count_delete ON servers; DROP TRIGGER servers_count_hide ON servers; " +
    rowTrigger("servers_count", "servers", "platform_count('servers')") +
    "DROP TRIGGER messages_count_insert ON messages; DROP TRIGGER messages_count_delete ON messages; " +
    "DROP TRIGGER dm_messages_count_insert ON dm_messages; DROP TRIGGER dm_messages_count_delete ON dm_messages; DROP FUNCTION platform_count_statement; " +
    rowTrigger("messages_count", "messages", "platform_count('messages')") +
    rowTrigger("dm_messages_count", "dm_messages", "platform_count('messages')") +
    "DROP TRIGGER messages_last_insert ON messages; DROP TRIGGER messages_last_delete ON messages; " +
    "DROP TRIGGER dm_messages_last_insert ON dm_messages; DROP TRIGGER dm_messages_last_delete ON dm_messages; " +
    "DROP FUNCTION hearth_channel_last_message_statement; DROP FUNCTION hearth_dm_last_message_statement; " +
    rowTrigger("messages_last_message", "messages", "hearth_channel_last_message()") +
    rowTrigger("dm_messages_last_message", "dm_messages", "hearth_dm_last_message()") +
    indexes + "CREATE INDEX messages_user ON messages (user_id); " + tables
  );
};

/** Back to a database of version 23, as far as version 24 goes: the privacy settings gone. */
export const UNDO_MIGRATION_24 = "DROP TABLE privacy_settings; ";

/** Back to a database of version 24: the message nonces gone. */
export const UNDO_MIGRATION_25 = "DROP TABLE message_nonces; ";

/** Back to a database of version 26: the server's messages indexed by server alone, no index of the channels being deleted. */
export const UNDO_MIGRATION_27 = "DROP INDEX channels_deleting; DROP INDEX messages_server; CREATE INDEX messages_server ON messages (server_id); ";
