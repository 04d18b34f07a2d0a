import type { Database } from "./database.ts";
import { migrate } from "./migrate.ts";
import { SqliteDatabase } from "./sqlite/sqlite-database.ts";
import { migrations as sqliteMigrations } from "./sqlite/migrations.ts";
import { PostgresDatabase } from "./postgres/postgres-database.ts";
import { migrations as postgresMigrations } from "./postgres/migrations.ts";
import { UsersRepo } from "./users-repo.ts";
import { UserSettingsRepo } from "./user-settings-repo.ts";
import { PrivacyRepo } from "./privacy-repo.ts";
import { NotificationOverridesRepo } from "./notification-overrides-repo.ts";
import { StatsRepo } from "./stats-repo.ts";
import { ServersRepo } from "./servers-repo.ts";
import { MembersRepo } from "./members-repo.ts";
import { AccessRepo } from "./access-repo.ts";
import { AuditRepo } from "./audit-repo.ts";
import { ChannelsRepo } from "./channels-repo.ts";
import { ServerGifsRepo } from "./server-gifs-repo.ts";
import { MessagesRepo } from "./messages-repo.ts";
import { ReadStatesRepo } from "./read-states-repo.ts";
import { EmojisRepo } from "./emojis-repo.ts";
import { ApplicationsRepo } from "./applications-repo.ts";
import { ReactionsRepo } from "./reactions-repo.ts";
import { PinsRepo } from "./pins-repo.ts";
import { RolesRepo } from "./roles-repo.ts";
import { InvitesRepo } from "./invites-repo.ts";
import { ModerationRepo } from "./moderation-repo.ts";
import { FriendsRepo } from "./friends-repo.ts";
import { DmsRepo } from "./dms-repo.ts";
import { InteractionsRepo } from "./interactions-repo.ts";
import { CommandsRepo } from "./commands-repo.ts";
import { WebhooksRepo } from "./webhooks-repo.ts";
import { SoundboardRepo } from "./soundboard-repo.ts";
import { PlatformRepo } from "./platform-repo.ts";
import { AiKeysRepo } from "./ai-keys-repo.ts";
import { AiConversationsRepo } from "./ai-conversations-repo.ts";
import { AiUploadsRepo } from "./ai-uploads-repo.ts";
import { StoredFilesRepo } from "./stored-files-repo.ts";
import { AdminRepo } from "./admin-repo.ts";
import { ReportsRepo } from "./reports-repo.ts";
import { RevokedTokensRepo } from "./revoked-tokens-repo.ts";
import { DeletionsRepo } from "./deletions-repo.ts";
import { WriteBatch } from "./write-batch.ts";
import { prepareSecrets, SecretBox } from "./secret-box.ts";

/** Every repository, over one database. The only place SQL lives. */
export type Store = Awaited<ReturnType<typeof createStore>>;

/** A `postgres://` or `postgresql://` URL names a PostgreSQL database; anything else is an SQLite file (or `:memory:`). */
export const isPostgresUrl = (location: string): boolean => /^postgres(ql)?:\/\//i.test(location);

/** The database at `location` (see isPostgresUrl), connected, not yet migrated. */
export async function openDatabase(location: string): Promise<Database> {
  return isPostgresUrl(location) ? PostgresDatabase.connect(location) : SqliteDatabase.open(location);
}

/** The schema of that database's kind: both lists have the same versions. */
export const migrationsOf = (db: Database) => (db.dialect.name === "postgres" ? postgresMigrations : sqliteMigrations);

/** Opens (or creates) the database at `location` and brings its schema up to date. */
export async function openMigratedDatabase(location: string): Promise<Database> {
  const db = await openDatabase(location);
  try {
    await migrate(db, migrationsOf(db));
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}

/**
 * Opens (or creates) the database at `location` (an SQLite file, `:memory:`, or a PostgreSQL
 * URL), migrates it, and checks `secretsKey` (32 bytes) against the secrets it holds, sealing any
 * left in plaintext: SecretsKeyError when the key is not the one they were sealed with.
 */
export async function createStore(location: string, secretsKey: Uint8Array) {
  const secrets = new SecretBox(secretsKey);
  const db = await openMigratedDatabase(location);
  try {
    await prepareSecrets(db, secrets);
  } catch (error) {
    await db.close();
    throw error;
  }
  // Group commit for message sends, channel and DM: one per connection (src/store/write-batch.ts).
  const writes = new WriteBatch(db);
  const messages = new MessagesRepo(db, writes);
  const dms = new DmsRepo(db, writes);
  return {
    users: new UsersRepo(db, secrets),
    userSettings: new UserSettingsRepo(db),
    privacy: new PrivacyRepo(db),
    notificationOverrides: new NotificationOverridesRepo(db),
    stats: new StatsRepo(db),
    servers: new ServersRepo(db),
    members: new MembersRepo(db),
    access: new AccessRepo(db),
    audit: new AuditRepo(db),
    channels: new ChannelsRepo(db),
    serverGifs: new ServerGifsRepo(db),
    messages,
    readStates: new ReadStatesRepo(db),
    emojis: new EmojisRepo(db),
    applications: new ApplicationsRepo(db, secrets),
    reactions: new ReactionsRepo(db),
    pins: new PinsRepo(db),
    roles: new RolesRepo(db),
    invites: new InvitesRepo(db),
    moderation: new ModerationRepo(db),
    friends: new FriendsRepo(db),
    dms,
    interactions: new InteractionsRepo(db),
    commands: new CommandsRepo(db),
    webhooks: new WebhooksRepo(db, secrets),
    soundboard: new SoundboardRepo(db),
    platform: new PlatformRepo(db),
    aiKeys: new AiKeysRepo(db, secrets),
    aiConversations: new AiConversationsRepo(db),
    aiUploads: new AiUploadsRepo(db),
    storedFiles: new StoredFilesRepo(db),
    admin: new AdminRepo(db),
    reports: new ReportsRepo(db),
    revokedTokens: new RevokedTokensRepo(db),
    deletions: new DeletionsRepo(db),
    /** The group commit shared by message sends (its counters show how sends were grouped). */
    writes: writes as Pick<WriteBatch, "transactions" | "pending" | "onCommit">,
    /** The database itself, for the host's commands (backup, copy) and tests. */
    db,
    /**
     * Sends still queued are committed (and answered) first; then the database closes (SQLite
     * checkpoints the WAL so the file is complete on its own).
     */
    async close(): Promise<void> {
      try {
        messages.searchBacklog.stop();
        dms.searchBacklog.stop();
        await writes.drain();
      } finally {
        await db.close();
      }
    },
  };
}
