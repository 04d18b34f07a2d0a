import type { Database } from "bun:sqlite";
import { openDatabase, migrate } from "./database.ts";
import { UsersRepo } from "./users-repo.ts";
import { UserSettingsRepo } from "./user-settings-repo.ts";
import { StatsRepo } from "./stats-repo.ts";
import { ServersRepo } from "./servers-repo.ts";
import { MembersRepo } from "./members-repo.ts";
import { AccessRepo } from "./access-repo.ts";
import { AuditRepo } from "./audit-repo.ts";
import { ChannelsRepo } from "./channels-repo.ts";
import { ServerGifsRepo } from "./server-gifs-repo.ts";
import { MessagesRepo } from "./messages-repo.ts";
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
import { AdminRepo } from "./admin-repo.ts";
import { ReportsRepo } from "./reports-repo.ts";
import { WriteBatch } from "./write-batch.ts";
import { prepareSecrets, SecretBox } from "./secret-box.ts";

/** Every repository, over one database. The only place SQL lives. */
export type Store = ReturnType<typeof createStore>;

/**
 * Opens (or creates) the database, migrates it, and checks `secretsKey` (32 bytes) against the
 * secrets it holds, sealing any left in plaintext: SecretsKeyError when the key is not the one
 * they were sealed with.
 */
export function createStore(databaseFile: string, secretsKey: Uint8Array) {
  const db: Database = openDatabase(databaseFile);
  const secrets = new SecretBox(secretsKey);
  try {
    migrate(db);
    prepareSecrets(db, secrets);
  } catch (error) {
    db.close();
    throw error;
  }
  // Group commit for message sends, channel and DM: one per connection (src/store/write-batch.ts).
  const writes = new WriteBatch(db);
  return {
    users: new UsersRepo(db, secrets),
    userSettings: new UserSettingsRepo(db),
    stats: new StatsRepo(db),
    servers: new ServersRepo(db),
    members: new MembersRepo(db),
    access: new AccessRepo(db),
    audit: new AuditRepo(db),
    channels: new ChannelsRepo(db),
    serverGifs: new ServerGifsRepo(db),
    messages: new MessagesRepo(db, writes),
    emojis: new EmojisRepo(db),
    applications: new ApplicationsRepo(db, secrets),
    reactions: new ReactionsRepo(db),
    pins: new PinsRepo(db),
    roles: new RolesRepo(db),
    invites: new InvitesRepo(db),
    moderation: new ModerationRepo(db),
    friends: new FriendsRepo(db),
    dms: new DmsRepo(db, writes),
    interactions: new InteractionsRepo(db),
    commands: new CommandsRepo(db),
    webhooks: new WebhooksRepo(db, secrets),
    soundboard: new SoundboardRepo(db),
    platform: new PlatformRepo(db),
    aiKeys: new AiKeysRepo(db, secrets),
    aiConversations: new AiConversationsRepo(db),
    aiUploads: new AiUploadsRepo(db),
    admin: new AdminRepo(db),
    reports: new ReportsRepo(db),
    /** The group commit shared by message sends (its counters show how sends were grouped). */
    writes: writes as Pick<WriteBatch, "transactions" | "pending">,
    close(): void {
      // Sends still queued are committed (and answered) first; a clean close then
      // checkpoints the WAL so the file is complete on its own.
      try {
        writes.flush();
        db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      } finally {
        db.close();
      }
    },
  };
}
