import type { Migration } from "../migrate.ts";

/**
 * PostgreSQL's schema: the same numbered migrations as store/sqlite/migrations.ts (same
 * versions, same names, same tables and columns, so a row reads the same on both), written with
 * PostgreSQL's types:
 * - ids are `hearth_id`, text compared byte by byte (`COLLATE "C"`, like SQLite's BINARY), so
 *   keyset pages by UUIDv7 id order as on SQLite whatever the database's locale;
 * - times are `bigint` unix seconds (as on SQLite), permission bits `bigint`;
 * - flags are `flag`, a smallint that is 0 or 1 (the rows the domain reads carry 0/1 on both);
 * - usernames, emails and vanity codes are `citext`: compared, ordered and unique regardless of
 *   case (SQLite: COLLATE NOCASE);
 * - JSON columns are `jsonb`; row counters are kept by trigger functions;
 * - full-text search is an expression GIN index, not a shadow table (version 3).
 * Never edit a migration that has shipped: add the next number to both lists.
 */
export const migrations: Migration[] = [
  {
    version: 1,
    name: "accounts",
    sql: `
      CREATE EXTENSION IF NOT EXISTS citext;
      CREATE DOMAIN hearth_id AS text COLLATE "C";
      CREATE DOMAIN flag AS smallint CHECK (VALUE IN (0, 1));

      CREATE TABLE users (
        id hearth_id PRIMARY KEY,
        username citext NOT NULL,
        email citext,
        password_hash text,
        avatar text,
        banner text,
        banner_offset integer NOT NULL DEFAULT 0,
        bio text NOT NULL DEFAULT '',
        status text NOT NULL DEFAULT 'offline',
        preferred_status text NOT NULL DEFAULT 'online',
        is_bot flag NOT NULL DEFAULT 0,
        token_version integer NOT NULL DEFAULT 0,
        totp_secret text,
        totp_pending_secret text,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL
      );
      -- Human usernames are unique regardless of case; bot users are named after their
      -- application and may share a name.
      CREATE UNIQUE INDEX users_username ON users (username) WHERE is_bot = 0;
      CREATE UNIQUE INDEX users_email ON users (email) WHERE email IS NOT NULL;

      CREATE TABLE notification_settings (
        user_id hearth_id PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
        message_notifications text NOT NULL,
        dm_notifications flag NOT NULL,
        friend_request_notifications flag NOT NULL,
        sounds flag NOT NULL,
        desktop flag NOT NULL,
        updated_at bigint NOT NULL
      );

      CREATE TABLE user_connections (
        id hearth_id PRIMARY KEY,
        user_id hearth_id NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        type text NOT NULL,
        name text NOT NULL,
        url text,
        visible flag NOT NULL DEFAULT 1,
        created_at bigint NOT NULL
      );
      CREATE INDEX user_connections_user ON user_connections (user_id, id);

      CREATE TABLE muted_users (
        user_id hearth_id NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        target_id hearth_id NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        created_at bigint NOT NULL,
        PRIMARY KEY (user_id, target_id)
      );

      -- O(1) public statistics: each table that is counted keeps its counter by trigger,
      -- so GET /stats never scans a large table.
      CREATE TABLE platform_counters (
        name text PRIMARY KEY,
        value bigint NOT NULL
      );
      INSERT INTO platform_counters (name, value) VALUES ('users', 0), ('bots', 0), ('servers', 0), ('messages', 0);
      -- The counter named by the trigger's argument follows the table's inserts and deletes.
      CREATE FUNCTION platform_count() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE platform_counters SET value = value + CASE TG_OP WHEN 'INSERT' THEN 1 ELSE -1 END WHERE name = TG_ARGV[0];
        RETURN NULL;
      END $$;
      CREATE FUNCTION platform_count_users() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          UPDATE platform_counters SET value = value + 1 WHERE name = CASE NEW.is_bot WHEN 1 THEN 'bots' ELSE 'users' END;
        ELSE
          UPDATE platform_counters SET value = value - 1 WHERE name = CASE OLD.is_bot WHEN 1 THEN 'bots' ELSE 'users' END;
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER users_count AFTER INSERT OR DELETE ON users FOR EACH ROW EXECUTE FUNCTION platform_count_users();
    `,
  },
  {
    version: 2,
    name: "communities",
    sql: `
      CREATE TABLE servers (
        id hearth_id PRIMARY KEY,
        name text NOT NULL,
        description text NOT NULL DEFAULT '',
        icon text,
        banner text,
        banner_offset integer NOT NULL DEFAULT 0,
        owner_id hearth_id NOT NULL REFERENCES users (id),
        vanity_code citext,
        verified flag NOT NULL DEFAULT 0,
        settings jsonb NOT NULL DEFAULT '{}',
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL
      );
      CREATE UNIQUE INDEX servers_vanity ON servers (vanity_code) WHERE vanity_code IS NOT NULL;
      CREATE INDEX servers_owner ON servers (owner_id);
      CREATE TRIGGER servers_count AFTER INSERT OR DELETE ON servers FOR EACH ROW EXECUTE FUNCTION platform_count('servers');

      CREATE TABLE server_members (
        server_id hearth_id NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
        user_id hearth_id NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        role text NOT NULL DEFAULT 'member',
        list_position integer NOT NULL DEFAULT 0,
        timeout_until bigint,
        muted_until bigint,
        muted flag NOT NULL DEFAULT 0,
        last_read_at bigint,
        joined_at bigint NOT NULL,
        PRIMARY KEY (server_id, user_id)
      );
      CREATE INDEX server_members_user ON server_members (user_id, list_position);

      CREATE TABLE roles (
        id hearth_id PRIMARY KEY,
        server_id hearth_id NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
        name text NOT NULL,
        color text NOT NULL DEFAULT '#99AAB5',
        position integer NOT NULL DEFAULT 0,
        permissions bigint NOT NULL DEFAULT 0,
        hoist flag NOT NULL DEFAULT 0,
        is_default flag NOT NULL DEFAULT 0,
        managed_bot_id hearth_id,
        created_at bigint NOT NULL
      );
      CREATE INDEX roles_server ON roles (server_id, position);
      CREATE UNIQUE INDEX roles_default ON roles (server_id) WHERE is_default = 1;

      CREATE TABLE member_roles (
        server_id hearth_id NOT NULL,
        user_id hearth_id NOT NULL,
        role_id hearth_id NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
        PRIMARY KEY (server_id, user_id, role_id),
        FOREIGN KEY (server_id, user_id) REFERENCES server_members (server_id, user_id) ON DELETE CASCADE
      );
      CREATE INDEX member_roles_role ON member_roles (role_id);

      CREATE TABLE categories (
        id hearth_id PRIMARY KEY,
        server_id hearth_id NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
        name text NOT NULL,
        position integer NOT NULL DEFAULT 0,
        created_at bigint NOT NULL
      );
      CREATE INDEX categories_server ON categories (server_id, position);

      CREATE TABLE channels (
        id hearth_id PRIMARY KEY,
        server_id hearth_id NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
        name text NOT NULL,
        type text NOT NULL CHECK (type IN ('text', 'voice')),
        category_id hearth_id REFERENCES categories (id) ON DELETE SET NULL,
        position integer NOT NULL DEFAULT 0,
        topic text,
        slowmode integer NOT NULL DEFAULT 0,
        nsfw flag NOT NULL DEFAULT 0,
        is_meeting flag NOT NULL DEFAULT 0,
        chat_enabled flag NOT NULL DEFAULT 0,
        created_at bigint NOT NULL
      );
      CREATE INDEX channels_server ON channels (server_id, position);
      CREATE INDEX channels_category ON channels (category_id);

      CREATE TABLE channel_overrides (
        channel_id hearth_id NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
        role_id hearth_id NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
        allow bigint NOT NULL DEFAULT 0,
        deny bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (channel_id, role_id)
      );
      CREATE INDEX channel_overrides_role ON channel_overrides (role_id);

      CREATE TABLE category_overrides (
        category_id hearth_id NOT NULL REFERENCES categories (id) ON DELETE CASCADE,
        role_id hearth_id NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
        allow bigint NOT NULL DEFAULT 0,
        deny bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (category_id, role_id)
      );
      CREATE INDEX category_overrides_role ON category_overrides (role_id);

      CREATE TABLE invites (
        id hearth_id PRIMARY KEY,
        server_id hearth_id NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
        code text NOT NULL UNIQUE,
        max_uses integer,
        uses integer NOT NULL DEFAULT 0,
        expires_at bigint,
        is_primary flag NOT NULL DEFAULT 0,
        created_by hearth_id REFERENCES users (id) ON DELETE SET NULL,
        created_at bigint NOT NULL
      );
      CREATE INDEX invites_server ON invites (server_id, created_at);

      CREATE TABLE invite_uses (
        id hearth_id PRIMARY KEY,
        invite_id hearth_id NOT NULL REFERENCES invites (id) ON DELETE CASCADE,
        user_id hearth_id NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        used_at bigint NOT NULL
      );
      CREATE INDEX invite_uses_invite ON invite_uses (invite_id, used_at);

      CREATE TABLE bans (
        server_id hearth_id NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
        user_id hearth_id NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        reason text,
        banned_by hearth_id REFERENCES users (id) ON DELETE SET NULL,
        created_at bigint NOT NULL,
        PRIMARY KEY (server_id, user_id)
      );

      CREATE TABLE audit_log (
        id hearth_id PRIMARY KEY,
        server_id hearth_id NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
        actor_id hearth_id REFERENCES users (id) ON DELETE SET NULL,
        action text NOT NULL,
        target_type text,
        target_id hearth_id,
        changes jsonb NOT NULL DEFAULT '{}',
        created_at bigint NOT NULL
      );
      CREATE INDEX audit_log_server ON audit_log (server_id, created_at, id);

      CREATE TABLE server_gifs (
        id hearth_id PRIMARY KEY,
        server_id hearth_id NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
        name text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('gif', 'sticker')),
        file_path text NOT NULL,
        mime_type text NOT NULL,
        size integer NOT NULL,
        uploaded_by hearth_id REFERENCES users (id) ON DELETE SET NULL,
        created_at bigint NOT NULL
      );
      CREATE INDEX server_gifs_server ON server_gifs (server_id, created_at);
    `,
  },
  {
    version: 3,
    name: "messaging",
    sql: `
      -- Full-text search with SQLite FTS5's semantics (docs/messages.md): tokens are runs of
      -- letters and digits (ASCII punctuation separates words, as FTS5's unicode61 does),
      -- case and accents are ignored, no stemming, no stop words.
      CREATE EXTENSION IF NOT EXISTS unaccent;
      CREATE TEXT SEARCH CONFIGURATION hearth_search (COPY = simple);
      ALTER TEXT SEARCH CONFIGURATION hearth_search
        ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part, numword, numhword, hword_numpart
        WITH unaccent, simple;
      CREATE FUNCTION hearth_search_vector(content text) RETURNS tsvector
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        RETURN to_tsvector('hearth_search'::regconfig, regexp_replace(content, '[!-/:-@[-\`{-~]+', ' ', 'g'));
      -- Every word a phrase of its tokens; all of them required.
      CREATE AGGREGATE hearth_tsquery_and (tsquery) (SFUNC = tsquery_and, STYPE = tsquery);
      CREATE FUNCTION hearth_search_query(words text[]) RETURNS tsquery
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        RETURN (SELECT hearth_tsquery_and(phraseto_tsquery('hearth_search'::regconfig, regexp_replace(w, '[!-/:-@[-\`{-~]+', ' ', 'g')))
                FROM unnest(words) AS w);

      CREATE TABLE messages (
        id hearth_id PRIMARY KEY,
        channel_id hearth_id NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
        server_id hearth_id NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
        user_id hearth_id NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        content text NOT NULL DEFAULT '',
        embeds jsonb NOT NULL DEFAULT '[]',
        reply_to hearth_id,
        webhook_id hearth_id,
        webhook_username text,
        webhook_avatar text,
        created_at bigint NOT NULL,
        updated_at bigint
      );
      -- Keyset pages (id < ?) per channel, and the slowmode check (last message of a member).
      CREATE INDEX messages_channel ON messages (channel_id, id);
      CREATE INDEX messages_channel_author ON messages (channel_id, user_id, id);
      CREATE INDEX messages_server ON messages (server_id);
      CREATE INDEX messages_user ON messages (user_id);
      CREATE INDEX messages_search ON messages USING gin (hearth_search_vector(content));
      CREATE TRIGGER messages_count AFTER INSERT OR DELETE ON messages FOR EACH ROW EXECUTE FUNCTION platform_count('messages');

      CREATE TABLE attachments (
        id hearth_id PRIMARY KEY,
        message_id hearth_id NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
        filename text NOT NULL,
        original_name text NOT NULL,
        mime_type text NOT NULL,
        size integer NOT NULL,
        created_at bigint NOT NULL
      );
      CREATE INDEX attachments_message ON attachments (message_id);

      CREATE TABLE reactions (
        message_id hearth_id NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
        emoji text NOT NULL,
        user_id hearth_id NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        created_at bigint NOT NULL,
        PRIMARY KEY (message_id, emoji, user_id)
      );

      CREATE TABLE pins (
        message_id hearth_id PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
        channel_id hearth_id NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
        pinned_by hearth_id REFERENCES users (id) ON DELETE SET NULL,
        pinned_at bigint NOT NULL,
        -- Insertion order, which SQLite's implicit rowid gives: lists order by it within a second.
        rowid bigint GENERATED ALWAYS AS IDENTITY
      );
      CREATE INDEX pins_channel ON pins (channel_id, pinned_at, rowid);

      CREATE TABLE channel_read_states (
        user_id hearth_id NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        channel_id hearth_id NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
        last_read_message_id hearth_id,
        updated_at bigint NOT NULL,
        PRIMARY KEY (user_id, channel_id)
      );

      CREATE TABLE emojis (
        id hearth_id PRIMARY KEY,
        server_id hearth_id NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
        name text NOT NULL,
        file_path text NOT NULL,
        original_name text NOT NULL,
        mime_type text NOT NULL,
        size integer NOT NULL,
        uploaded_by hearth_id REFERENCES users (id) ON DELETE SET NULL,
        created_at bigint NOT NULL
      );
      CREATE INDEX emojis_server ON emojis (server_id, created_at);

      -- Direct messages: a 1:1 DM and a group DM are both conversations.
      CREATE TABLE conversations (
        id hearth_id PRIMARY KEY,
        type text NOT NULL CHECK (type IN ('dm', 'group')),
        name text,
        icon text,
        owner_id hearth_id REFERENCES users (id) ON DELETE SET NULL,
        -- For a 1:1 DM, the two user ids sorted and joined with ':', so there is one per pair.
        dm_key hearth_id UNIQUE,
        last_message_at bigint,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL
      );

      CREATE TABLE conversation_members (
        conversation_id hearth_id NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        user_id hearth_id NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        last_read_message_id hearth_id,
        joined_at bigint NOT NULL,
        PRIMARY KEY (conversation_id, user_id)
      );
      CREATE INDEX conversation_members_user ON conversation_members (user_id, conversation_id);

      CREATE TABLE dm_messages (
        id hearth_id PRIMARY KEY,
        conversation_id hearth_id NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        user_id hearth_id NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        content text NOT NULL DEFAULT '',
        embeds jsonb NOT NULL DEFAULT '[]',
        reply_to hearth_id,
        created_at bigint NOT NULL,
        updated_at bigint
      );
      CREATE INDEX dm_messages_conversation ON dm_messages (conversation_id, id);
      CREATE INDEX dm_messages_user ON dm_messages (user_id);
      CREATE INDEX dm_messages_search ON dm_messages USING gin (hearth_search_vector(content));
      CREATE TRIGGER dm_messages_count AFTER INSERT OR DELETE ON dm_messages FOR EACH ROW EXECUTE FUNCTION platform_count('messages');

      CREATE TABLE dm_attachments (
        id hearth_id PRIMARY KEY,
        message_id hearth_id NOT NULL REFERENCES dm_messages (id) ON DELETE CASCADE,
        filename text NOT NULL,
        original_name text NOT NULL,
        mime_type text NOT NULL,
        size integer NOT NULL,
        created_at bigint NOT NULL
      );
      CREATE INDEX dm_attachments_message ON dm_attachments (message_id);

      CREATE TABLE dm_reactions (
        message_id hearth_id NOT NULL REFERENCES dm_messages (id) ON DELETE CASCADE,
        emoji text NOT NULL,
        user_id hearth_id NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        created_at bigint NOT NULL,
        PRIMARY KEY (message_id, emoji, user_id)
      );

      CREATE TABLE dm_pins (
        message_id hearth_id PRIMARY KEY REFERENCES dm_messages (id) ON DELETE CASCADE,
        conversation_id hearth_id NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        pinned_by hearth_id REFERENCES users (id) ON DELETE SET NULL,
        pinned_at bigint NOT NULL
      );
      CREATE INDEX dm_pins_conversation ON dm_pins (conversation_id, pinned_at);

      -- Friendships: one row per pair (user_low < user_high); pending until the other accepts.
      CREATE TABLE friendships (
        user_low hearth_id NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        user_high hearth_id NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        requester_id hearth_id NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        status text NOT NULL CHECK (status IN ('pending', 'accepted')),
        created_at bigint NOT NULL,
        accepted_at bigint,
        PRIMARY KEY (user_low, user_high),
        CHECK (user_low < user_high)
      );
      CREATE INDEX friendships_high ON friendships (user_high, user_low);
    `,
  },
  {
    version: 4,
    name: "premium",
    sql: `
      ALTER TABLE users ADD COLUMN premium flag NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 5,
    name: "bot-platform",
    sql: `
      CREATE TABLE applications (
        id hearth_id PRIMARY KEY,
        owner_id hearth_id NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        bot_user_id hearth_id NOT NULL UNIQUE REFERENCES users (id) ON DELETE CASCADE,
        name text NOT NULL,
        description text NOT NULL DEFAULT '',
        client_secret text NOT NULL,
        default_permissions bigint NOT NULL DEFAULT 8895488,
        invite_permission_locked flag NOT NULL DEFAULT 0,
        public_invite flag NOT NULL DEFAULT 1,
        avatar text,
        banner text,
        banner_offset integer NOT NULL DEFAULT 0,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL
      );
      CREATE INDEX applications_owner ON applications (owner_id, created_at);

      CREATE TABLE commands (
        id hearth_id PRIMARY KEY,
        application_id hearth_id NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
        server_id hearth_id REFERENCES servers (id) ON DELETE CASCADE,
        name text NOT NULL,
        description text NOT NULL DEFAULT '',
        options jsonb NOT NULL DEFAULT '[]',
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL
      );
      CREATE UNIQUE INDEX commands_name ON commands (application_id, coalesce(server_id, ''), name);
      CREATE INDEX commands_name_lookup ON commands (name);

      CREATE TABLE interactions (
        id hearth_id PRIMARY KEY,
        application_id hearth_id NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
        bot_user_id hearth_id NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        type text NOT NULL,
        user_id hearth_id NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        server_id hearth_id REFERENCES servers (id) ON DELETE CASCADE,
        channel_id hearth_id REFERENCES channels (id) ON DELETE CASCADE,
        message_id hearth_id,
        data jsonb NOT NULL DEFAULT '{}',
        created_at bigint NOT NULL,
        responded_at bigint
      );
      CREATE INDEX interactions_bot ON interactions (bot_user_id, created_at);
    `,
  },
  {
    version: 6,
    name: "webhooks",
    sql: `
      CREATE TABLE webhooks (
        id hearth_id PRIMARY KEY,
        channel_id hearth_id NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
        server_id hearth_id NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
        name text NOT NULL,
        avatar text,
        token text NOT NULL,
        created_by hearth_id REFERENCES users (id) ON DELETE SET NULL,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL
      );
      CREATE INDEX webhooks_channel ON webhooks (channel_id, created_at);
    `,
  },
  {
    version: 7,
    name: "soundboard",
    sql: `
      CREATE TABLE soundboard_sounds (
        id hearth_id PRIMARY KEY,
        server_id hearth_id NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
        name text NOT NULL,
        icon text NOT NULL,
        file_path text NOT NULL,
        original_name text NOT NULL,
        mime_type text NOT NULL,
        size integer NOT NULL,
        uploaded_by hearth_id REFERENCES users (id) ON DELETE SET NULL,
        created_at bigint NOT NULL
      );
      CREATE INDEX soundboard_sounds_server ON soundboard_sounds (server_id, created_at);
    `,
  },
  {
    version: 8,
    name: "platform-admin",
    sql: `
      ALTER TABLE users ADD COLUMN platform_admin flag NOT NULL DEFAULT 0;
      ALTER TABLE users ADD COLUMN disabled_at bigint;
      UPDATE users SET platform_admin = 1
        WHERE id = (SELECT id FROM users WHERE is_bot = 0 ORDER BY created_at, id LIMIT 1);

      CREATE TABLE platform_settings (
        key text PRIMARY KEY,
        value jsonb NOT NULL,
        updated_by hearth_id REFERENCES users (id) ON DELETE SET NULL,
        updated_at bigint NOT NULL
      );

      CREATE TABLE platform_log (
        id hearth_id PRIMARY KEY,
        actor_id hearth_id REFERENCES users (id) ON DELETE SET NULL,
        action text NOT NULL,
        target_type text,
        target_id hearth_id,
        changes jsonb NOT NULL DEFAULT '{}',
        created_at bigint NOT NULL
      );
      CREATE INDEX platform_log_time ON platform_log (created_at, id);
    `,
  },
  {
    version: 9,
    name: "reports",
    sql: `
      CREATE TABLE reports (
        id hearth_id PRIMARY KEY,
        reporter_id hearth_id REFERENCES users (id) ON DELETE SET NULL,
        target_type text NOT NULL CHECK (target_type IN ('message', 'user')),
        target_id hearth_id NOT NULL,
        target_user_id hearth_id REFERENCES users (id) ON DELETE SET NULL,
        message_server_id hearth_id,
        message_channel_id hearth_id,
        message_conversation_id hearth_id,
        message_content text,
        message_created_at bigint,
        reason text NOT NULL,
        status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved', 'dismissed')),
        action text,
        note text,
        resolved_by hearth_id REFERENCES users (id) ON DELETE SET NULL,
        resolved_at bigint,
        created_at bigint NOT NULL
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
    sql: `
      CREATE TABLE ai_keys (
        id hearth_id PRIMARY KEY,
        name text NOT NULL,
        base_url text NOT NULL,
        api_key text NOT NULL DEFAULT '',
        models jsonb NOT NULL DEFAULT '[]',
        enabled flag NOT NULL DEFAULT 1,
        created_by hearth_id REFERENCES users (id) ON DELETE SET NULL,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL
      );

      CREATE TABLE ai_conversations (
        id hearth_id PRIMARY KEY,
        user_id hearth_id NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        title text,
        model_id text,
        activity_id hearth_id NOT NULL,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL
      );
      CREATE INDEX ai_conversations_user ON ai_conversations (user_id, activity_id);

      CREATE TABLE ai_messages (
        id hearth_id PRIMARY KEY,
        conversation_id hearth_id NOT NULL REFERENCES ai_conversations (id) ON DELETE CASCADE,
        role text NOT NULL,
        content text NOT NULL,
        model_id text,
        status text NOT NULL,
        attachments jsonb NOT NULL DEFAULT '[]',
        images jsonb NOT NULL DEFAULT '[]',
        created_at bigint NOT NULL
      );
      CREATE INDEX ai_messages_conversation ON ai_messages (conversation_id, id);

      CREATE TABLE ai_uploads (
        id hearth_id PRIMARY KEY,
        user_id hearth_id NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        url text NOT NULL UNIQUE,
        name text NOT NULL,
        mime_type text NOT NULL,
        size integer NOT NULL,
        created_at bigint NOT NULL
      );
      CREATE INDEX ai_uploads_user ON ai_uploads (user_id, created_at);

      CREATE TABLE ai_usage (
        user_id hearth_id NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        day text NOT NULL,
        messages integer NOT NULL,
        PRIMARY KEY (user_id, day)
      );
    `,
  },
  {
    version: 11,
    name: "secrets-at-rest",
    sql: `
      CREATE TABLE secrets_key_check (
        id integer PRIMARY KEY CHECK (id = 1),
        sealed text NOT NULL
      );
    `,
  },
  {
    version: 12,
    name: "stored-files",
    sql: `
      CREATE TABLE stored_files (
        path text PRIMARY KEY,
        bytes bytea NOT NULL,
        created_at bigint NOT NULL
      );
    `,
  },
  {
    version: 13,
    name: "search-index-backlog",
    // SQLite's FTS5 index is filled in batches (sqlite/migrations.ts, version 13). PostgreSQL's
    // expression index is maintained by the INSERT itself, nothing to change.
    sql: "SELECT 1",
  },
  {
    version: 14,
    name: "dm-search-index-backlog",
    // SQLite's DM FTS5 index is filled in batches too (sqlite/migrations.ts, version 14).
    // PostgreSQL's expression index is maintained by the INSERT itself, nothing to change.
    sql: "SELECT 1",
  },
  {
    version: 15,
    name: "message-attachment-flag",
    // See sqlite/migrations.ts, version 15.
    sql: `
      ALTER TABLE messages ADD COLUMN has_attachments flag NOT NULL DEFAULT 0;
      UPDATE messages SET has_attachments = 1 WHERE id IN (SELECT message_id FROM attachments);
    `,
  },
  {
    version: 16,
    name: "access-version",
    // SQLite only (sqlite/migrations.ts, version 16): on PostgreSQL the message page does not
    // cache access decisions (several nodes, and one counter row every permission write would
    // queue on), so there is nothing to keep.
    sql: "SELECT 1",
  },
  {
    version: 17,
    name: "two-factor-recovery-codes-and-token-revocation",
    // See sqlite/migrations.ts, version 17.
    sql: `
      CREATE TABLE two_factor_recovery_codes (
        user_id hearth_id NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        code_hash text NOT NULL,
        PRIMARY KEY (user_id, code_hash)
      );
      CREATE TABLE revoked_tokens (
        token_id text PRIMARY KEY,
        user_id hearth_id NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        expires_at bigint NOT NULL
      );
      CREATE INDEX revoked_tokens_user ON revoked_tokens (user_id);
      CREATE INDEX revoked_tokens_expiry ON revoked_tokens (expires_at);
      ALTER TABLE users ADD COLUMN token_revocations integer NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 18,
    name: "kept-server-mute",
    // See sqlite/migrations.ts, version 18.
    sql: `
      ALTER TABLE server_members ADD COLUMN server_muted flag NOT NULL DEFAULT 0;
      ALTER TABLE server_members ADD COLUMN server_deafened flag NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 19,
    name: "read-states",
    // See sqlite/migrations.ts, version 19.
    sql: `
      CREATE TABLE channel_last_messages (
        channel_id hearth_id PRIMARY KEY REFERENCES channels (id) ON DELETE CASCADE,
        last_message_id hearth_id NOT NULL
      );
      INSERT INTO channel_last_messages (channel_id, last_message_id) SELECT channel_id, max(id) FROM messages GROUP BY channel_id;
      CREATE FUNCTION hearth_channel_last_message() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO channel_last_messages (channel_id, last_message_id) VALUES (NEW.channel_id, NEW.id)
            ON CONFLICT (channel_id) DO UPDATE SET last_message_id = excluded.last_message_id
            WHERE excluded.last_message_id > channel_last_messages.last_message_id;
        ELSE
          UPDATE channel_last_messages SET last_message_id = COALESCE((SELECT max(id) FROM messages WHERE channel_id = OLD.channel_id), '')
            WHERE channel_id = OLD.channel_id AND last_message_id = OLD.id;
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER messages_last_message AFTER INSERT OR DELETE ON messages FOR EACH ROW EXECUTE FUNCTION hearth_channel_last_message();
      CREATE TABLE dm_last_messages (
        conversation_id hearth_id PRIMARY KEY REFERENCES conversations (id) ON DELETE CASCADE,
        last_message_id hearth_id NOT NULL
      );
      INSERT INTO dm_last_messages (conversation_id, last_message_id) SELECT conversation_id, max(id) FROM dm_messages GROUP BY conversation_id;
      CREATE FUNCTION hearth_dm_last_message() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO dm_last_messages (conversation_id, last_message_id) VALUES (NEW.conversation_id, NEW.id)
            ON CONFLICT (conversation_id) DO UPDATE SET last_message_id = excluded.last_message_id
            WHERE excluded.last_message_id > dm_last_messages.last_message_id;
        ELSE
          UPDATE dm_last_messages SET last_message_id = COALESCE((SELECT max(id) FROM dm_messages WHERE conversation_id = OLD.conversation_id), '')
            WHERE conversation_id = OLD.conversation_id AND last_message_id = OLD.id;
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER dm_messages_last_message AFTER INSERT OR DELETE ON dm_messages FOR EACH ROW EXECUTE FUNCTION hearth_dm_last_message();
      CREATE TABLE channel_mentions (
        kind text NOT NULL,
        target_id hearth_id NOT NULL,
        message_id hearth_id NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
        channel_id hearth_id NOT NULL,
        author_id hearth_id NOT NULL,
        PRIMARY KEY (kind, target_id, message_id)
      );
      CREATE INDEX channel_mentions_message ON channel_mentions (message_id);
    `,
  },
  {
    version: 20,
    name: "attachment-dimensions-and-notification-overrides",
    // See sqlite/migrations.ts, version 20.
    sql: `
      ALTER TABLE attachments ADD COLUMN width integer;
      ALTER TABLE attachments ADD COLUMN height integer;
      ALTER TABLE dm_attachments ADD COLUMN width integer;
      ALTER TABLE dm_attachments ADD COLUMN height integer;
      CREATE TABLE notification_overrides (
        user_id hearth_id NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        target_type text NOT NULL,
        target_id hearth_id NOT NULL,
        level text NOT NULL,
        muted flag NOT NULL DEFAULT 0,
        muted_until bigint,
        updated_at bigint NOT NULL,
        PRIMARY KEY (user_id, target_type, target_id)
      );
    `,
  },
  {
    version: 21,
    name: "member-count-and-member-search",
    // See sqlite/migrations.ts, version 21. The lowered username is byte-ordered text
    // (COLLATE "C", as ids are), lowered by translate() on the letters A-Z only, as SQLite's
    // lower() does, so a prefix is the same index range on both databases.
    sql: `
      ALTER TABLE servers ADD COLUMN member_count integer NOT NULL DEFAULT 0;
      UPDATE servers s SET member_count = c.n
        FROM (SELECT server_id, count(*) AS n FROM server_members GROUP BY server_id) c WHERE c.server_id = s.id;
      ALTER TABLE server_members ADD COLUMN username_lower text COLLATE "C" NOT NULL DEFAULT '';
      UPDATE server_members m SET username_lower = translate(u.username::text, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
        FROM users u WHERE u.id = m.user_id;
      CREATE INDEX server_members_name ON server_members (server_id, username_lower, user_id);
    `,
  },
  {
    version: 22,
    name: "background-deletes",
    // See sqlite/migrations.ts, version 22 (messages_server exists since version 3, and
    // messages_user gives way to messages_user_server, which serves it too).
    // And the row triggers of messages and DM messages become statement triggers over transition
    // tables: the platform's message counter is updated once per statement, by the number of rows
    // it inserted or deleted, and each channel's and DM's newest message once per channel per
    // statement. Row by row, a statement deleting n messages wrote n versions of the one counter
    // row, each found by walking the versions before it (a bulk delete, and db:copy's one
    // transaction, grew quadratic), and held that row's lock from the first message on.
    sql: `
      ALTER TABLE servers ADD COLUMN deleted_at bigint;
      ALTER TABLE channels ADD COLUMN deleted_at bigint;
      DROP TRIGGER servers_count ON servers;
      CREATE TRIGGER servers_count_insert AFTER INSERT ON servers FOR EACH ROW WHEN (NEW.deleted_at IS NULL) EXECUTE FUNCTION platform_count('servers');
      CREATE TRIGGER servers_count_delete AFTER DELETE ON servers FOR EACH ROW WHEN (OLD.deleted_at IS NULL) EXECUTE FUNCTION platform_count('servers');
      -- platform_count subtracts on any operation but INSERT.
      CREATE TRIGGER servers_count_hide AFTER UPDATE OF deleted_at ON servers FOR EACH ROW
        WHEN (OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL) EXECUTE FUNCTION platform_count('servers');
      CREATE TABLE deletion_jobs (
        id hearth_id PRIMARY KEY,
        kind text NOT NULL CHECK (kind IN ('server', 'channel', 'member_messages')),
        server_id hearth_id NOT NULL,
        channel_id hearth_id,
        user_id hearth_id,
        since bigint,
        lease_until bigint NOT NULL DEFAULT 0,
        created_at bigint NOT NULL
      );
      CREATE INDEX deletion_jobs_queue ON deletion_jobs (lease_until, created_at);
      CREATE TABLE deletion_files (
        path text PRIMARY KEY,
        created_at bigint NOT NULL
      );
      DROP INDEX messages_user;
      CREATE INDEX messages_user_server ON messages (user_id, server_id, created_at);
      CREATE INDEX channel_read_states_channel ON channel_read_states (channel_id);
      CREATE INDEX interactions_channel ON interactions (channel_id);
      CREATE INDEX interactions_server ON interactions (server_id);
      CREATE INDEX commands_server ON commands (server_id);
      CREATE INDEX webhooks_server ON webhooks (server_id);

      -- TG_ARGV[0]: the counter; the transition table is named changed on both events.
      CREATE FUNCTION platform_count_statement() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE n bigint;
      BEGIN
        SELECT count(*) INTO n FROM changed;
        IF n > 0 THEN
          UPDATE platform_counters SET value = value + CASE TG_OP WHEN 'INSERT' THEN n ELSE -n END WHERE name = TG_ARGV[0];
        END IF;
        RETURN NULL;
      END $$;
      DROP TRIGGER messages_count ON messages;
      DROP TRIGGER dm_messages_count ON dm_messages;
      CREATE TRIGGER messages_count_insert AFTER INSERT ON messages REFERENCING NEW TABLE AS changed
        FOR EACH STATEMENT EXECUTE FUNCTION platform_count_statement('messages');
      CREATE TRIGGER messages_count_delete AFTER DELETE ON messages REFERENCING OLD TABLE AS changed
        FOR EACH STATEMENT EXECUTE FUNCTION platform_count_statement('messages');
      CREATE TRIGGER dm_messages_count_insert AFTER INSERT ON dm_messages REFERENCING NEW TABLE AS changed
        FOR EACH STATEMENT EXECUTE FUNCTION platform_count_statement('messages');
      CREATE TRIGGER dm_messages_count_delete AFTER DELETE ON dm_messages REFERENCING OLD TABLE AS changed
        FOR EACH STATEMENT EXECUTE FUNCTION platform_count_statement('messages');

      CREATE FUNCTION hearth_channel_last_message_statement() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO channel_last_messages (channel_id, last_message_id) SELECT channel_id, max(id) FROM changed GROUP BY channel_id
            ON CONFLICT (channel_id) DO UPDATE SET last_message_id = excluded.last_message_id
            WHERE excluded.last_message_id > channel_last_messages.last_message_id;
        ELSE
          UPDATE channel_last_messages c SET last_message_id = COALESCE((SELECT max(m.id) FROM messages m WHERE m.channel_id = c.channel_id), '')
            FROM changed o WHERE o.channel_id = c.channel_id AND o.id = c.last_message_id;
        END IF;
        RETURN NULL;
      END $$;
      CREATE FUNCTION hearth_dm_last_message_statement() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO dm_last_messages (conversation_id, last_message_id) SELECT conversation_id, max(id) FROM changed GROUP BY conversation_id
            ON CONFLICT (conversation_id) DO UPDATE SET last_message_id = excluded.last_message_id
            WHERE excluded.last_message_id > dm_last_messages.last_message_id;
        ELSE
          UPDATE dm_last_messages c SET last_message_id = COALESCE((SELECT max(m.id) FROM dm_messages m WHERE m.conversation_id = c.conversation_id), '')
            FROM changed o WHERE o.conversation_id = c.conversation_id AND o.id = c.last_message_id;
        END IF;
        RETURN NULL;
      END $$;
      DROP TRIGGER messages_last_message ON messages;
      DROP TRIGGER dm_messages_last_message ON dm_messages;
      CREATE TRIGGER messages_last_insert AFTER INSERT ON messages REFERENCING NEW TABLE AS changed
        FOR EACH STATEMENT EXECUTE FUNCTION hearth_channel_last_message_statement();
      CREATE TRIGGER messages_last_delete AFTER DELETE ON messages REFERENCING OLD TABLE AS changed
        FOR EACH STATEMENT EXECUTE FUNCTION hearth_channel_last_message_statement();
      CREATE TRIGGER dm_messages_last_insert AFTER INSERT ON dm_messages REFERENCING NEW TABLE AS changed
        FOR EACH STATEMENT EXECUTE FUNCTION hearth_dm_last_message_statement();
      CREATE TRIGGER dm_messages_last_delete AFTER DELETE ON dm_messages REFERENCING OLD TABLE AS changed
        FOR EACH STATEMENT EXECUTE FUNCTION hearth_dm_last_message_statement();
    `,
  },
  {
    version: 23,
    name: "custom-status",
    // See sqlite/migrations.ts, version 23.
    sql: `
      ALTER TABLE users ADD COLUMN custom_status_text text;
      ALTER TABLE users ADD COLUMN custom_status_emoji text;
      ALTER TABLE users ADD COLUMN custom_status_expires_at bigint;
      CREATE INDEX users_custom_status_expiry ON users (custom_status_expires_at) WHERE custom_status_expires_at IS NOT NULL;
    `,
  },
  {
    version: 24,
    name: "privacy-settings",
    // See sqlite/migrations.ts, version 24.
    sql: `
      CREATE TABLE privacy_settings (
        user_id hearth_id PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
        dms_from text NOT NULL CHECK (dms_from IN ('server_members', 'friends')),
        friend_requests_from text NOT NULL CHECK (friend_requests_from IN ('everyone', 'mutual', 'nobody')),
        updated_at bigint NOT NULL
      );
    `,
  },
  {
    version: 25,
    name: "message-nonces",
    // See sqlite/migrations.ts, version 25.
    sql: `
      CREATE TABLE message_nonces (
        scope text NOT NULL,
        nonce text NOT NULL,
        message_id hearth_id NOT NULL,
        created_at bigint NOT NULL,
        PRIMARY KEY (scope, nonce)
      );
      CREATE INDEX message_nonces_created ON message_nonces (created_at);
    `,
  },
  {
    version: 26,
    name: "channel-order-index",
    // See sqlite/migrations.ts, version 26 (here an incremental sort per read).
    sql: `
      DROP INDEX channels_server;
      CREATE INDEX channels_server ON channels (server_id, position, created_at, id);
    `,
  },
  {
    version: 27,
    name: "server-search-index",
    // See sqlite/migrations.ts, version 27.
    sql: `
      DROP INDEX messages_server;
      CREATE INDEX messages_server ON messages (server_id, id);
      CREATE INDEX channels_deleting ON channels (server_id) WHERE deleted_at IS NOT NULL;
    `,
  },
];
