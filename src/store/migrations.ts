/**
 * Numbered schema migrations, applied in order at start and recorded in `schema_migrations`.
 * Never edit a migration that has shipped: add the next number.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const migrations: Migration[] = [
  {
    version: 1,
    name: "accounts",
    sql: `
      CREATE TABLE users (
        id TEXT PRIMARY KEY,
        username TEXT NOT NULL,
        email TEXT,
        password_hash TEXT,
        avatar TEXT,
        banner TEXT,
        banner_offset INTEGER NOT NULL DEFAULT 0,
        bio TEXT NOT NULL DEFAULT '',
        status TEXT NOT NULL DEFAULT 'offline',
        preferred_status TEXT NOT NULL DEFAULT 'online',
        is_bot INTEGER NOT NULL DEFAULT 0,
        token_version INTEGER NOT NULL DEFAULT 0,
        totp_secret TEXT,
        totp_pending_secret TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      -- Human usernames are unique regardless of case; bot users are named after their
      -- application and may share a name.
      CREATE UNIQUE INDEX users_username ON users (username COLLATE NOCASE) WHERE is_bot = 0;
      CREATE UNIQUE INDEX users_email ON users (email COLLATE NOCASE) WHERE email IS NOT NULL;

      CREATE TABLE notification_settings (
        user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
        message_notifications TEXT NOT NULL,
        dm_notifications INTEGER NOT NULL,
        friend_request_notifications INTEGER NOT NULL,
        sounds INTEGER NOT NULL,
        desktop INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );

      CREATE TABLE user_connections (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        type TEXT NOT NULL,
        name TEXT NOT NULL,
        url TEXT,
        visible INTEGER NOT NULL DEFAULT 1,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX user_connections_user ON user_connections (user_id, id);

      CREATE TABLE muted_users (
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        target_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (user_id, target_id)
      ) WITHOUT ROWID;

      -- O(1) public statistics: each table that is counted keeps its counter by trigger,
      -- so GET /stats never scans a large table.
      CREATE TABLE platform_counters (
        name TEXT PRIMARY KEY,
        value INTEGER NOT NULL
      ) WITHOUT ROWID;
      INSERT INTO platform_counters (name, value) VALUES ('users', 0), ('bots', 0), ('servers', 0), ('messages', 0);
      CREATE TRIGGER users_count_insert AFTER INSERT ON users BEGIN
        UPDATE platform_counters SET value = value + 1 WHERE name = CASE NEW.is_bot WHEN 1 THEN 'bots' ELSE 'users' END;
      END;
      CREATE TRIGGER users_count_delete AFTER DELETE ON users BEGIN
        UPDATE platform_counters SET value = value - 1 WHERE name = CASE OLD.is_bot WHEN 1 THEN 'bots' ELSE 'users' END;
      END;
    `,
  },
];
