import type { Migration } from "../migrate.ts";

/**
 * SQLite's schema: numbered migrations, applied in order at start and recorded in
 * `schema_migrations` (store/migrate.ts). store/postgres/migrations.ts has the same numbers.
 * Never edit a migration that has shipped: add the next number.
 */
/**
 * The FTS5 index of `table` (`<table>_fts`) filled from a backlog (`<table>_fts_pending`), not by
 * each INSERT (versions 13 and 14; src/store/search-backlog.ts): the INSERT notes the row; the
 * repository indexes the backlog in one statement. A row still pending was never indexed, so
 * deleting or editing it leaves the index alone. Safe to run again.
 */
const ftsBacklog = (table: "messages" | "dm_messages") => `
      CREATE TABLE IF NOT EXISTS ${table}_fts_pending (message_rowid INTEGER PRIMARY KEY);
      DROP TRIGGER IF EXISTS ${table}_fts_insert;
      DROP TRIGGER IF EXISTS ${table}_fts_delete;
      DROP TRIGGER IF EXISTS ${table}_fts_update;
      CREATE TRIGGER ${table}_fts_insert AFTER INSERT ON ${table} BEGIN
        INSERT INTO ${table}_fts_pending (message_rowid) VALUES (NEW.rowid);
      END;
      CREATE TRIGGER ${table}_fts_delete AFTER DELETE ON ${table} BEGIN
        INSERT INTO ${table}_fts (${table}_fts, rowid, content) SELECT 'delete', OLD.rowid, OLD.content
          WHERE NOT EXISTS (SELECT 1 FROM ${table}_fts_pending WHERE message_rowid = OLD.rowid);
        DELETE FROM ${table}_fts_pending WHERE message_rowid = OLD.rowid;
      END;
      CREATE TRIGGER ${table}_fts_update AFTER UPDATE OF content ON ${table}
        WHEN NOT EXISTS (SELECT 1 FROM ${table}_fts_pending WHERE message_rowid = OLD.rowid) BEGIN
        INSERT INTO ${table}_fts (${table}_fts, rowid, content) VALUES ('delete', OLD.rowid, OLD.content);
        INSERT INTO ${table}_fts (rowid, content) VALUES (NEW.rowid, NEW.content);
      END;
    `;

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
  {
    version: 2,
    name: "communities",
    sql: `
      CREATE TABLE servers (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        icon TEXT,
        banner TEXT,
        banner_offset INTEGER NOT NULL DEFAULT 0,
        owner_id TEXT NOT NULL REFERENCES users (id),
        vanity_code TEXT,
        verified INTEGER NOT NULL DEFAULT 0,
        settings TEXT NOT NULL DEFAULT '{}',
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE UNIQUE INDEX servers_vanity ON servers (vanity_code COLLATE NOCASE) WHERE vanity_code IS NOT NULL;
      CREATE TRIGGER servers_count_insert AFTER INSERT ON servers BEGIN
        UPDATE platform_counters SET value = value + 1 WHERE name = 'servers';
      END;
      CREATE TRIGGER servers_count_delete AFTER DELETE ON servers BEGIN
        UPDATE platform_counters SET value = value - 1 WHERE name = 'servers';
      END;

      CREATE TABLE server_members (
        server_id TEXT NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        role TEXT NOT NULL DEFAULT 'member',
        list_position INTEGER NOT NULL DEFAULT 0,
        timeout_until INTEGER,
        muted_until INTEGER,
        muted INTEGER NOT NULL DEFAULT 0,
        last_read_at INTEGER,
        joined_at INTEGER NOT NULL,
        PRIMARY KEY (server_id, user_id)
      ) WITHOUT ROWID;
      CREATE INDEX server_members_user ON server_members (user_id, list_position);

      CREATE TABLE roles (
        id TEXT PRIMARY KEY,
        server_id TEXT NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        color TEXT NOT NULL DEFAULT '#99AAB5',
        position INTEGER NOT NULL DEFAULT 0,
        permissions INTEGER NOT NULL DEFAULT 0,
        hoist INTEGER NOT NULL DEFAULT 0,
        is_default INTEGER NOT NULL DEFAULT 0,
        managed_bot_id TEXT,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX roles_server ON roles (server_id, position);
      CREATE UNIQUE INDEX roles_default ON roles (server_id) WHERE is_default = 1;

      CREATE TABLE member_roles (
        server_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        role_id TEXT NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
        PRIMARY KEY (server_id, user_id, role_id),
        FOREIGN KEY (server_id, user_id) REFERENCES server_members (server_id, user_id) ON DELETE CASCADE
      ) WITHOUT ROWID;
      CREATE INDEX member_roles_role ON member_roles (role_id);

      CREATE TABLE categories (
        id TEXT PRIMARY KEY,
        server_id TEXT NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        position INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX categories_server ON categories (server_id, position);

      CREATE TABLE channels (
        id TEXT PRIMARY KEY,
        server_id TEXT NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        type TEXT NOT NULL CHECK (type IN ('text', 'voice')),
        category_id TEXT REFERENCES categories (id) ON DELETE SET NULL,
        position INTEGER NOT NULL DEFAULT 0,
        topic TEXT,
        slowmode INTEGER NOT NULL DEFAULT 0,
        nsfw INTEGER NOT NULL DEFAULT 0,
        is_meeting INTEGER NOT NULL DEFAULT 0,
        chat_enabled INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX channels_server ON channels (server_id, position);
      CREATE INDEX channels_category ON channels (category_id);

      CREATE TABLE channel_overrides (
        channel_id TEXT NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
        role_id TEXT NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
        allow INTEGER NOT NULL DEFAULT 0,
        deny INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (channel_id, role_id)
      ) WITHOUT ROWID;
      CREATE INDEX channel_overrides_role ON channel_overrides (role_id);

      CREATE TABLE category_overrides (
        category_id TEXT NOT NULL REFERENCES categories (id) ON DELETE CASCADE,
        role_id TEXT NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
        allow INTEGER NOT NULL DEFAULT 0,
        deny INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (category_id, role_id)
      ) WITHOUT ROWID;
      CREATE INDEX category_overrides_role ON category_overrides (role_id);

      CREATE TABLE invites (
        id TEXT PRIMARY KEY,
        server_id TEXT NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
        code TEXT NOT NULL UNIQUE,
        max_uses INTEGER,
        uses INTEGER NOT NULL DEFAULT 0,
        expires_at INTEGER,
        is_primary INTEGER NOT NULL DEFAULT 0,
        created_by TEXT REFERENCES users (id) ON DELETE SET NULL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX invites_server ON invites (server_id, created_at);

      CREATE TABLE invite_uses (
        id TEXT PRIMARY KEY,
        invite_id TEXT NOT NULL REFERENCES invites (id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        used_at INTEGER NOT NULL
      );
      CREATE INDEX invite_uses_invite ON invite_uses (invite_id, used_at);

      CREATE TABLE bans (
        server_id TEXT NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        reason TEXT,
        banned_by TEXT REFERENCES users (id) ON DELETE SET NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (server_id, user_id)
      ) WITHOUT ROWID;

      CREATE TABLE audit_log (
        id TEXT PRIMARY KEY,
        server_id TEXT NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
        actor_id TEXT REFERENCES users (id) ON DELETE SET NULL,
        action TEXT NOT NULL,
        target_type TEXT,
        target_id TEXT,
        changes TEXT NOT NULL DEFAULT '{}',
        created_at INTEGER NOT NULL
      );
      CREATE INDEX audit_log_server ON audit_log (server_id, created_at, id);

      CREATE TABLE server_gifs (
        id TEXT PRIMARY KEY,
        server_id TEXT NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('gif', 'sticker')),
        file_path TEXT NOT NULL,
        mime_type TEXT NOT NULL,
        size INTEGER NOT NULL,
        uploaded_by TEXT REFERENCES users (id) ON DELETE SET NULL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX server_gifs_server ON server_gifs (server_id, created_at);
    `,
  },
  {
    version: 3,
    name: "messaging",
    sql: `
      CREATE TABLE messages (
        id TEXT PRIMARY KEY,
        channel_id TEXT NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
        server_id TEXT NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        content TEXT NOT NULL DEFAULT '',
        embeds TEXT NOT NULL DEFAULT '[]',
        reply_to TEXT,
        webhook_id TEXT,
        webhook_username TEXT,
        webhook_avatar TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER
      );
      -- Keyset pages (id < ?) per channel, and the slowmode check (last message of a member).
      CREATE INDEX messages_channel ON messages (channel_id, id);
      CREATE INDEX messages_channel_author ON messages (channel_id, user_id, id);
      CREATE TRIGGER messages_count_insert AFTER INSERT ON messages BEGIN
        UPDATE platform_counters SET value = value + 1 WHERE name = 'messages';
      END;
      CREATE TRIGGER messages_count_delete AFTER DELETE ON messages BEGIN
        UPDATE platform_counters SET value = value - 1 WHERE name = 'messages';
      END;

      CREATE VIRTUAL TABLE messages_fts USING fts5 (content, content = 'messages', content_rowid = 'rowid');
      CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
        INSERT INTO messages_fts (rowid, content) VALUES (NEW.rowid, NEW.content);
      END;
      CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
        INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', OLD.rowid, OLD.content);
      END;
      CREATE TRIGGER messages_fts_update AFTER UPDATE OF content ON messages BEGIN
        INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', OLD.rowid, OLD.content);
        INSERT INTO messages_fts (rowid, content) VALUES (NEW.rowid, NEW.content);
      END;

      CREATE TABLE attachments (
        id TEXT PRIMARY KEY,
        message_id TEXT NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
        filename TEXT NOT NULL,
        original_name TEXT NOT NULL,
        mime_type TEXT NOT NULL,
        size INTEGER NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX attachments_message ON attachments (message_id);

      CREATE TABLE reactions (
        message_id TEXT NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
        emoji TEXT NOT NULL,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (message_id, emoji, user_id)
      ) WITHOUT ROWID;

      CREATE TABLE pins (
        message_id TEXT PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
        channel_id TEXT NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
        pinned_by TEXT REFERENCES users (id) ON DELETE SET NULL,
        pinned_at INTEGER NOT NULL
      );
      CREATE INDEX pins_channel ON pins (channel_id, pinned_at);

      CREATE TABLE channel_read_states (
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        channel_id TEXT NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
        last_read_message_id TEXT,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (user_id, channel_id)
      ) WITHOUT ROWID;

      -- Custom emojis (the emoji routes arrive with their own feature; messages and reactions
      -- validate <:name:id> against this table).
      CREATE TABLE emojis (
        id TEXT PRIMARY KEY,
        server_id TEXT NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        file_path TEXT NOT NULL,
        original_name TEXT NOT NULL,
        mime_type TEXT NOT NULL,
        size INTEGER NOT NULL,
        uploaded_by TEXT REFERENCES users (id) ON DELETE SET NULL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX emojis_server ON emojis (server_id, created_at);

      -- Direct messages: a 1:1 DM and a group DM are both conversations.
      CREATE TABLE conversations (
        id TEXT PRIMARY KEY,
        type TEXT NOT NULL CHECK (type IN ('dm', 'group')),
        name TEXT,
        icon TEXT,
        owner_id TEXT REFERENCES users (id) ON DELETE SET NULL,
        -- For a 1:1 DM, the two user ids sorted and joined with ':', so there is one per pair.
        dm_key TEXT UNIQUE,
        last_message_at INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );

      CREATE TABLE conversation_members (
        conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        last_read_message_id TEXT,
        joined_at INTEGER NOT NULL,
        PRIMARY KEY (conversation_id, user_id)
      ) WITHOUT ROWID;
      CREATE INDEX conversation_members_user ON conversation_members (user_id, conversation_id);

      CREATE TABLE dm_messages (
        id TEXT PRIMARY KEY,
        conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        content TEXT NOT NULL DEFAULT '',
        embeds TEXT NOT NULL DEFAULT '[]',
        reply_to TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER
      );
      CREATE INDEX dm_messages_conversation ON dm_messages (conversation_id, id);
      CREATE TRIGGER dm_messages_count_insert AFTER INSERT ON dm_messages BEGIN
        UPDATE platform_counters SET value = value + 1 WHERE name = 'messages';
      END;
      CREATE TRIGGER dm_messages_count_delete AFTER DELETE ON dm_messages BEGIN
        UPDATE platform_counters SET value = value - 1 WHERE name = 'messages';
      END;

      CREATE VIRTUAL TABLE dm_messages_fts USING fts5 (content, content = 'dm_messages', content_rowid = 'rowid');
      CREATE TRIGGER dm_messages_fts_insert AFTER INSERT ON dm_messages BEGIN
        INSERT INTO dm_messages_fts (rowid, content) VALUES (NEW.rowid, NEW.content);
      END;
      CREATE TRIGGER dm_messages_fts_delete AFTER DELETE ON dm_messages BEGIN
        INSERT INTO dm_messages_fts (dm_messages_fts, rowid, content) VALUES ('delete', OLD.rowid, OLD.content);
      END;
      CREATE TRIGGER dm_messages_fts_update AFTER UPDATE OF content ON dm_messages BEGIN
        INSERT INTO dm_messages_fts (dm_messages_fts, rowid, content) VALUES ('delete', OLD.rowid, OLD.content);
        INSERT INTO dm_messages_fts (rowid, content) VALUES (NEW.rowid, NEW.content);
      END;

      CREATE TABLE dm_attachments (
        id TEXT PRIMARY KEY,
        message_id TEXT NOT NULL REFERENCES dm_messages (id) ON DELETE CASCADE,
        filename TEXT NOT NULL,
        original_name TEXT NOT NULL,
        mime_type TEXT NOT NULL,
        size INTEGER NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX dm_attachments_message ON dm_attachments (message_id);

      CREATE TABLE dm_reactions (
        message_id TEXT NOT NULL REFERENCES dm_messages (id) ON DELETE CASCADE,
        emoji TEXT NOT NULL,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (message_id, emoji, user_id)
      ) WITHOUT ROWID;

      CREATE TABLE dm_pins (
        message_id TEXT PRIMARY KEY REFERENCES dm_messages (id) ON DELETE CASCADE,
        conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        pinned_by TEXT REFERENCES users (id) ON DELETE SET NULL,
        pinned_at INTEGER NOT NULL
      );
      CREATE INDEX dm_pins_conversation ON dm_pins (conversation_id, pinned_at);

      -- Friendships: one row per pair (user_low < user_high); pending until the other accepts.
      CREATE TABLE friendships (
        user_low TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        user_high TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        requester_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        status TEXT NOT NULL CHECK (status IN ('pending', 'accepted')),
        created_at INTEGER NOT NULL,
        accepted_at INTEGER,
        PRIMARY KEY (user_low, user_high),
        CHECK (user_low < user_high)
      ) WITHOUT ROWID;
      CREATE INDEX friendships_high ON friendships (user_high, user_low);
    `,
  },
  {
    version: 4,
    name: "premium",
    // Premium subscribers get the larger attachment limit (set by administrators later).
    sql: `
      ALTER TABLE users ADD COLUMN premium INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 5,
    name: "bot-platform",
    sql: `
      CREATE TABLE applications (
        id TEXT PRIMARY KEY,
        owner_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        bot_user_id TEXT NOT NULL UNIQUE REFERENCES users (id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        client_secret TEXT NOT NULL,
        default_permissions INTEGER NOT NULL DEFAULT 8895488,
        invite_permission_locked INTEGER NOT NULL DEFAULT 0,
        public_invite INTEGER NOT NULL DEFAULT 1,
        avatar TEXT,
        banner TEXT,
        banner_offset INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX applications_owner ON applications (owner_id, created_at);

      -- Slash commands: global (server_id NULL) or scoped to one server; names unique per scope.
      CREATE TABLE commands (
        id TEXT PRIMARY KEY,
        application_id TEXT NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
        server_id TEXT REFERENCES servers (id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        options TEXT NOT NULL DEFAULT '[]',
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE UNIQUE INDEX commands_name ON commands (application_id, coalesce(server_id, ''), name);
      CREATE INDEX commands_name_lookup ON commands (name);

      -- Interactions delivered to bots, so a response can be checked against what was asked.
      CREATE TABLE interactions (
        id TEXT PRIMARY KEY,
        application_id TEXT NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
        bot_user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        type TEXT NOT NULL,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        server_id TEXT REFERENCES servers (id) ON DELETE CASCADE,
        channel_id TEXT REFERENCES channels (id) ON DELETE CASCADE,
        message_id TEXT,
        data TEXT NOT NULL DEFAULT '{}',
        created_at INTEGER NOT NULL,
        responded_at INTEGER
      );
      CREATE INDEX interactions_bot ON interactions (bot_user_id, created_at);
    `,
  },
  {
    version: 6,
    name: "webhooks",
    // Channel webhooks. The token is the execute credential; managers see it, so it is
    // stored as is. server_id lets the channel's server be known without a join.
    sql: `
      CREATE TABLE webhooks (
        id TEXT PRIMARY KEY,
        channel_id TEXT NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
        server_id TEXT NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        avatar TEXT,
        token TEXT NOT NULL,
        created_by TEXT REFERENCES users (id) ON DELETE SET NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX webhooks_channel ON webhooks (channel_id, created_at);
    `,
  },
  {
    version: 7,
    name: "soundboard",
    // Soundboard sounds: a server's short audio clips (docs/soundboard.md). The file lives under
    // /uploads/sounds; the icon is one Unicode emoji.
    sql: `
      CREATE TABLE soundboard_sounds (
        id TEXT PRIMARY KEY,
        server_id TEXT NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        icon TEXT NOT NULL,
        file_path TEXT NOT NULL,
        original_name TEXT NOT NULL,
        mime_type TEXT NOT NULL,
        size INTEGER NOT NULL,
        uploaded_by TEXT REFERENCES users (id) ON DELETE SET NULL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX soundboard_sounds_server ON soundboard_sounds (server_id, created_at);
    `,
  },
  {
    version: 8,
    name: "platform-admin",
    // Platform administrators (docs/admin.md): the first human account, and whoever an
    // administrator promotes. Platform settings are JSON values by key, each feature owning its
    // keys and defaults; the platform log records every administrator action.
    sql: `
      ALTER TABLE users ADD COLUMN platform_admin INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE users ADD COLUMN disabled_at INTEGER;
      UPDATE users SET platform_admin = 1
        WHERE id = (SELECT id FROM users WHERE is_bot = 0 ORDER BY created_at, id LIMIT 1);

      CREATE TABLE platform_settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL,
        updated_by TEXT REFERENCES users (id) ON DELETE SET NULL,
        updated_at INTEGER NOT NULL
      ) WITHOUT ROWID;

      CREATE TABLE platform_log (
        id TEXT PRIMARY KEY,
        actor_id TEXT REFERENCES users (id) ON DELETE SET NULL,
        action TEXT NOT NULL,
        target_type TEXT,
        target_id TEXT,
        changes TEXT NOT NULL DEFAULT '{}',
        created_at INTEGER NOT NULL
      );
      CREATE INDEX platform_log_time ON platform_log (created_at, id);
    `,
  },
  {
    version: 9,
    name: "reports",
    // Reports of a message or a user, filed by users and resolved by platform administrators
    // (docs/reports.md). A message report keeps a snapshot of the message, so the evidence
    // outlives an edit or a delete; one open report per reporter and target.
    sql: `
      CREATE TABLE reports (
        id TEXT PRIMARY KEY,
        reporter_id TEXT REFERENCES users (id) ON DELETE SET NULL,
        target_type TEXT NOT NULL CHECK (target_type IN ('message', 'user')),
        target_id TEXT NOT NULL,
        target_user_id TEXT REFERENCES users (id) ON DELETE SET NULL,
        message_server_id TEXT,
        message_channel_id TEXT,
        message_conversation_id TEXT,
        message_content TEXT,
        message_created_at INTEGER,
        reason TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved', 'dismissed')),
        action TEXT,
        note TEXT,
        resolved_by TEXT REFERENCES users (id) ON DELETE SET NULL,
        resolved_at INTEGER,
        created_at INTEGER NOT NULL
      );
      CREATE UNIQUE INDEX reports_open_once ON reports (reporter_id, target_type, target_id) WHERE status = 'open';
      CREATE INDEX reports_reporter ON reports (reporter_id, id);
      CREATE INDEX reports_status ON reports (status, id);
      CREATE INDEX reports_target_user ON reports (target_user_id, status);
    `,
  },
  {
    version: 10,
    name: "ai-assistant",
    // The AI assistant (docs/ai.md). Provider keys are set by administrators and never leave the
    // server; `models` is the JSON list of models a key serves. Conversations and their messages
    // belong to one user; uploads are the user's files for the next turn; usage counts the turns
    // a user sent per UTC day (the daily quota).
    sql: `
      CREATE TABLE ai_keys (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        base_url TEXT NOT NULL,
        api_key TEXT NOT NULL DEFAULT '',
        models TEXT NOT NULL DEFAULT '[]',
        enabled INTEGER NOT NULL DEFAULT 1,
        created_by TEXT REFERENCES users (id) ON DELETE SET NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );

      CREATE TABLE ai_conversations (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        title TEXT,
        model_id TEXT,
        -- The id of the latest message (or the conversation's own id): orders the list by activity.
        activity_id TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX ai_conversations_user ON ai_conversations (user_id, activity_id);

      CREATE TABLE ai_messages (
        id TEXT PRIMARY KEY,
        conversation_id TEXT NOT NULL REFERENCES ai_conversations (id) ON DELETE CASCADE,
        role TEXT NOT NULL,
        content TEXT NOT NULL,
        model_id TEXT,
        status TEXT NOT NULL,
        attachments TEXT NOT NULL DEFAULT '[]',
        images TEXT NOT NULL DEFAULT '[]',
        created_at INTEGER NOT NULL
      );
      CREATE INDEX ai_messages_conversation ON ai_messages (conversation_id, id);

      CREATE TABLE ai_uploads (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        url TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        mime_type TEXT NOT NULL,
        size INTEGER NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX ai_uploads_user ON ai_uploads (user_id, created_at);

      CREATE TABLE ai_usage (
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        day TEXT NOT NULL,
        messages INTEGER NOT NULL,
        PRIMARY KEY (user_id, day)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 11,
    name: "secrets-at-rest",
    // Secrets are stored encrypted (AES-256-GCM, src/store/secret-box.ts, docs/operations.md
    // "Secrets at rest"): TOTP secrets, webhook tokens, application client secrets and AI
    // provider keys. The key lives outside the database; this row, sealed with it, tells a
    // wrong key at start. Rows still in plaintext are sealed at start (prepareSecrets).
    sql: `
      CREATE TABLE secrets_key_check (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        sealed TEXT NOT NULL
      );
    `,
  },
  {
    version: 12,
    name: "stored-files",
    // Uploaded files' bytes when UPLOAD_STORAGE=database (the default in cluster mode: every
    // node serves every file; src/domain/shared/file-storage.ts, docs/operations.md "Uploaded
    // files"). Keyed by the path under /uploads the records store.
    sql: `
      CREATE TABLE stored_files (
        path TEXT PRIMARY KEY,
        bytes BLOB NOT NULL,
        created_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 13,
    name: "search-index-backlog",
    // A channel message is added to the FTS5 index in batches, not by its own INSERT (docs/messages.md,
    // "Search"): an FTS5 write inside a transaction flushes the index's pending entries to a new
    // segment at every statement, which costs a lone send more than the rest of its insert.
    // The INSERT records the row in messages_fts_pending (in the same transaction); the
    // repository indexes what is pending in one statement a moment later, and before any search.
    // A row still pending was never indexed: deleting or editing it leaves the index alone.
    // Written to run again safely (a test re-applies migrations from 11 on).
    sql: ftsBacklog("messages"),
  },
  {
    version: 14,
    name: "dm-search-index-backlog",
    // DM messages reach their FTS5 index in batches too, as channel messages since version 13
    // (src/store/search-backlog.ts): the INSERT records the row in dm_messages_fts_pending; the
    // repository indexes the backlog in one statement a moment later, and before any DM search.
    // Rows already there were indexed by the old trigger, so nothing is pending at first.
    sql: ftsBacklog("dm_messages"),
  },
  {
    version: 15,
    name: "message-attachment-flag",
    // Whether a message was stored with attachments (1) or not (0), so a page of messages without
    // any skips the attachment lookup.
    // Set by the message's INSERT, with its attachments, in one transaction; attachments are never
    // added to a stored message nor removed from one (only deleted with it, by ON DELETE CASCADE),
    // so the flag stays true for the message's life. Existing rows are filled from the table.
    sql: `
      ALTER TABLE messages ADD COLUMN has_attachments INTEGER NOT NULL DEFAULT 0;
      UPDATE messages SET has_attachments = 1 WHERE id IN (SELECT message_id FROM attachments);
    `,
  },
  {
    version: 16,
    name: "access-version",
    // One number that changes with every write to what a channel permission check reads (servers,
    // their members, roles, member roles, categories, channels, and both kinds of overrides),
    // by triggers in the writing statement's own transaction; FK cascades fire them too. The
    // message page and the send cache their access decisions while it stays the same
    // (src/domain/access/access.ts, `requireChannel`; docs/architecture.md, "Access
    // decisions cached while nothing they read changes").
    // A random value rather than a count: a rolled-back write puts the old value back, and the
    // next write must still give a value no cached decision was made under.
    // Written to run again safely (tests re-apply migrations from 11 and 15 on).
    sql: `
      CREATE TABLE IF NOT EXISTS access_version (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        version INTEGER NOT NULL
      );
      INSERT OR REPLACE INTO access_version (id, version) VALUES (1, (random() & 9007199254740991));
      ${["servers", "server_members", "roles", "member_roles", "categories", "channels", "channel_overrides", "category_overrides"]
        .flatMap((table) =>
          ["INSERT", "UPDATE", "DELETE"].map(
            (op) => `DROP TRIGGER IF EXISTS access_version_${table}_${op.toLowerCase()};
      CREATE TRIGGER access_version_${table}_${op.toLowerCase()} AFTER ${op} ON ${table} BEGIN
        UPDATE access_version SET version = (random() & 9007199254740991) WHERE id = 1;
      END;`,
          ),
        )
        .join("\n      ")}
    `,
  },
  {
    version: 17,
    name: "two-factor-recovery-codes-and-token-revocation",
    // Recovery codes (docs/auth.md, "Recovery codes"): only their SHA-256 is kept, one row per
    // code, deleted when it is used. Revoked tokens (logout): one row per token id (its `jti`)
    // until the token would have expired anyway; `token_revocations` counts an account's
    // revocations so a node re-checks a token it verified earlier only when the count moved
    // (src/domain/accounts/token-revocations.ts), and sees another node's logout at once.
    sql: `
      CREATE TABLE two_factor_recovery_codes (
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        code_hash TEXT NOT NULL,
        PRIMARY KEY (user_id, code_hash)
      );
      CREATE TABLE revoked_tokens (
        token_id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        expires_at INTEGER NOT NULL
      );
      CREATE INDEX revoked_tokens_user ON revoked_tokens (user_id);
      CREATE INDEX revoked_tokens_expiry ON revoked_tokens (expires_at);
      ALTER TABLE users ADD COLUMN token_revocations INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 18,
    name: "kept-server-mute",
    // A member's server mute and deafen (voice moderation) are kept per member of the server, so
    // leaving voice and joining again does not lift them; only a moderator does (docs/voice.md,
    // "Server mute and deafen").
    sql: `
      ALTER TABLE server_members ADD COLUMN server_muted INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE server_members ADD COLUMN server_deafened INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 19,
    name: "read-states",
    // Read states (docs/read-states.md): the newest message id per channel and per DM, kept by
    // triggers on insert and delete ('' once the last message is gone), and one mention row per
    // (message, kind, target): kind 'user' (a user id: <@id> or a reply), 'role' (a role id) or
    // 'everyone' (the server's id: @everyone and @here), so an @everyone is one row, not one per
    // member. Counts are joined per user at read time through their memberships and roles.
    sql: `
      CREATE TABLE channel_last_messages (
        channel_id TEXT PRIMARY KEY REFERENCES channels (id) ON DELETE CASCADE,
        last_message_id TEXT NOT NULL
      ) WITHOUT ROWID;
      INSERT INTO channel_last_messages (channel_id, last_message_id) SELECT channel_id, max(id) FROM messages GROUP BY channel_id;
      CREATE TRIGGER messages_last_insert AFTER INSERT ON messages BEGIN
        INSERT INTO channel_last_messages (channel_id, last_message_id) VALUES (NEW.channel_id, NEW.id)
          ON CONFLICT (channel_id) DO UPDATE SET last_message_id = excluded.last_message_id
          WHERE excluded.last_message_id > channel_last_messages.last_message_id;
      END;
      CREATE TRIGGER messages_last_delete AFTER DELETE ON messages BEGIN
        UPDATE channel_last_messages SET last_message_id = COALESCE((SELECT max(id) FROM messages WHERE channel_id = OLD.channel_id), '')
          WHERE channel_id = OLD.channel_id AND last_message_id = OLD.id;
      END;
      CREATE TABLE dm_last_messages (
        conversation_id TEXT PRIMARY KEY REFERENCES conversations (id) ON DELETE CASCADE,
        last_message_id TEXT NOT NULL
      ) WITHOUT ROWID;
      INSERT INTO dm_last_messages (conversation_id, last_message_id) SELECT conversation_id, max(id) FROM dm_messages GROUP BY conversation_id;
      CREATE TRIGGER dm_messages_last_insert AFTER INSERT ON dm_messages BEGIN
        INSERT INTO dm_last_messages (conversation_id, last_message_id) VALUES (NEW.conversation_id, NEW.id)
          ON CONFLICT (conversation_id) DO UPDATE SET last_message_id = excluded.last_message_id
          WHERE excluded.last_message_id > dm_last_messages.last_message_id;
      END;
      CREATE TRIGGER dm_messages_last_delete AFTER DELETE ON dm_messages BEGIN
        UPDATE dm_last_messages SET last_message_id = COALESCE((SELECT max(id) FROM dm_messages WHERE conversation_id = OLD.conversation_id), '')
          WHERE conversation_id = OLD.conversation_id AND last_message_id = OLD.id;
      END;
      CREATE TABLE channel_mentions (
        kind TEXT NOT NULL,
        target_id TEXT NOT NULL,
        message_id TEXT NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
        channel_id TEXT NOT NULL,
        author_id TEXT NOT NULL,
        PRIMARY KEY (kind, target_id, message_id)
      ) WITHOUT ROWID;
      CREATE INDEX channel_mentions_message ON channel_mentions (message_id);
    `,
  },
  {
    version: 20,
    name: "attachment-dimensions-and-notification-overrides",
    // An image attachment's width and height in pixels, read from its header at upload
    // (docs/messages.md, "Objects"), so a client can reserve its space before it loads.
    // NULL for every other file, and for attachments stored before this version (their
    // files are not read again). And a user's notification settings per server, channel and
    // DM (docs/users.md, "Notification settings per server, channel and DM"): a row only for
    // a target whose setting is not the default; no foreign key to the target (three tables),
    // so a row of a deleted channel stays, unread, until the user is deleted.
    sql: `
      ALTER TABLE attachments ADD COLUMN width INTEGER;
      ALTER TABLE attachments ADD COLUMN height INTEGER;
      ALTER TABLE dm_attachments ADD COLUMN width INTEGER;
      ALTER TABLE dm_attachments ADD COLUMN height INTEGER;
      CREATE TABLE notification_overrides (
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        target_type TEXT NOT NULL,
        target_id TEXT NOT NULL,
        level TEXT NOT NULL,
        muted INTEGER NOT NULL DEFAULT 0,
        muted_until INTEGER,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (user_id, target_type, target_id)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 21,
    name: "member-count-and-member-search",
    // A server's member count is kept on its row (docs/servers.md, "Members"), not counted per
    // read. And each membership keeps its user's username with the letters A-Z lowered
    // (SQLite's lower(), what its NOCASE compares), so the member search (a username prefix) is
    // one range of the (server_id, username_lower) index, whatever the server's or the
    // platform's size. Both are kept by the repositories that write what they derive from, in
    // the same transaction, not by triggers (src/store/member-derived-columns.ts), and are
    // back-filled here.
    sql: `
      ALTER TABLE servers ADD COLUMN member_count INTEGER NOT NULL DEFAULT 0;
      UPDATE servers SET member_count = (SELECT count(*) FROM server_members m WHERE m.server_id = servers.id);
      ALTER TABLE server_members ADD COLUMN username_lower TEXT NOT NULL DEFAULT '';
      UPDATE server_members SET username_lower = coalesce((SELECT lower(u.username) FROM users u WHERE u.id = server_members.user_id), '');
      CREATE INDEX server_members_name ON server_members (server_id, username_lower, user_id);
    `,
  },
  {
    version: 22,
    name: "background-deletes",
    // Deleting a server or a channel, and a ban's "delete the member's recent messages", are
    // done in the background in bounded batches (docs/servers.md, "Deleting a server";
    // src/domain/community/deletions.ts): the request marks the server or channel deleted
    // (`deleted_at`: every read leaves it out from then on) and queues a job; the job deletes the
    // children 1,000 rows per transaction and the row itself last. A job survives a restart; a
    // file whose row is gone waits in deletion_files until it is removed.
    // And an index on every foreign key those deletes follow (test/store/foreign-key-indexes.test.ts):
    // a message's server (and its author within it, newest first, for the ban), a read state's
    // and an interaction's channel, the server of interactions, commands and webhooks.
    // The platform's server count (GET /stats) drops when a server is marked deleted, not when
    // its row goes.
    sql: `
      ALTER TABLE servers ADD COLUMN deleted_at INTEGER;
      ALTER TABLE channels ADD COLUMN deleted_at INTEGER;
      DROP TRIGGER servers_count_delete;
      CREATE TRIGGER servers_count_delete AFTER DELETE ON servers WHEN OLD.deleted_at IS NULL BEGIN
        UPDATE platform_counters SET value = value - 1 WHERE name = 'servers';
      END;
      CREATE TRIGGER servers_count_hide AFTER UPDATE OF deleted_at ON servers WHEN OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL BEGIN
        UPDATE platform_counters SET value = value - 1 WHERE name = 'servers';
      END;
      CREATE TABLE deletion_jobs (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('server', 'channel', 'member_messages')),
        server_id TEXT NOT NULL,
        channel_id TEXT,
        user_id TEXT,
        since INTEGER,
        lease_until INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX deletion_jobs_queue ON deletion_jobs (lease_until, created_at);
      CREATE TABLE deletion_files (
        path TEXT PRIMARY KEY,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX messages_server ON messages (server_id);
      CREATE INDEX messages_user_server ON messages (user_id, server_id, created_at);
      CREATE INDEX channel_read_states_channel ON channel_read_states (channel_id);
      CREATE INDEX interactions_channel ON interactions (channel_id);
      CREATE INDEX interactions_server ON interactions (server_id);
      CREATE INDEX commands_server ON commands (server_id);
      CREATE INDEX webhooks_server ON webhooks (server_id);
    `,
  },
  {
    version: 23,
    name: "custom-status",
    // A person's custom status (docs/users.md, "Custom status"): its text, an optional emoji
    // and when it clears itself (NULL: never). It lives on the user's row because every read
    // that shows a user already reads that row. The partial index serves the expiry sweep,
    // which clears the rows past their time (UsersRepo.clearExpiredCustomStatuses).
    sql: `
      ALTER TABLE users ADD COLUMN custom_status_text TEXT;
      ALTER TABLE users ADD COLUMN custom_status_emoji TEXT;
      ALTER TABLE users ADD COLUMN custom_status_expires_at INTEGER;
      CREATE INDEX users_custom_status_expiry ON users (custom_status_expires_at) WHERE custom_status_expires_at IS NOT NULL;
    `,
  },
  {
    version: 24,
    name: "privacy-settings",
    // Who may reach a user (docs/users.md, "Privacy"): who may open or keep writing a 1:1 DM
    // (friends and people sharing a server, or friends only) and who may send a friend request
    // (everyone, people sharing a server or a friend, nobody). A user without a row keeps the
    // defaults, which are the rules from before this version, so nothing is back-filled.
    sql: `
      CREATE TABLE privacy_settings (
        user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
        dms_from TEXT NOT NULL CHECK (dms_from IN ('server_members', 'friends')),
        friend_requests_from TEXT NOT NULL CHECK (friend_requests_from IN ('everyone', 'mutual', 'nobody')),
        updated_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 25,
    name: "message-nonces",
    // Idempotent sends (docs/messages.md, "Idempotent sends"): a send with `enforce_nonce` keeps
    // its (scope, nonce) here for a few minutes, written in the message's own transaction, so a
    // retry finds the first message instead of storing a second one. `scope` names the sender
    // and where it posted (a channel or a DM). The created_at index serves the purge of expired keys.
    sql: `
      CREATE TABLE message_nonces (
        scope TEXT NOT NULL,
        nonce TEXT NOT NULL,
        message_id TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (scope, nonce)
      );
      CREATE INDEX message_nonces_created ON message_nonces (created_at);
    `,
  },
  {
    version: 26,
    name: "channel-order-index",
    // A server's channels are read whole, in their order (position, then creation, then id), by
    // the channel list, a reorder, a server-wide search and joining every channel room. With
    // (server_id, position) alone SQLite sorted the rows of each position in a temporary B-tree
    // on every read (a third to two thirds of the read at the 500-channel cap); the whole order
    // in the key hands them out sorted. Its leading columns are the old index's, so it serves
    // everything that did (the channel counts, the next position).
    sql: `
      DROP INDEX channels_server;
      CREATE INDEX channels_server ON channels (server_id, position, created_at, id);
    `,
  },
  {
    version: 27,
    name: "server-search-index",
    // A server-wide search of a reader who may read every channel (the owner, an administrator,
    // any member of a server whose overrides hide nothing from them) is scoped by the server, not
    // by the list of its channels (docs/servers.md, "Search"; src/store/message-search.ts): the
    // check that the newest matches found are the newest by id reads one range of the server's
    // messages by id, where a list of channels read one range per channel (500 at the cap), and
    // PostgreSQL walks the server's newest messages instead of every server's. The id in the key
    // (and, on SQLite, the rowid every index holds) serves both without reading the table; the
    // key's first column serves what (server_id) did (a server's deletion batches). The channels
    // being deleted, whose messages the search leaves out until their job removes them, are read
    // from their own small index, not from every channel of the server.
    sql: `
      DROP INDEX messages_server;
      CREATE INDEX messages_server ON messages (server_id, id);
      CREATE INDEX channels_deleting ON channels (server_id) WHERE deleted_at IS NOT NULL;
    `,
  },
];
