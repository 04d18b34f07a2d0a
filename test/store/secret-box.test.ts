import { describe, expect, test } from "bun:test";
import { isSealed, SecretBox, SecretsKeyError } from "../../src/store/secret-box.ts";
import { createStore } from "../../src/store/store.ts";
import { freshDatabase } from "../helpers/database.ts";
import { UNDO_MIGRATION_23, UNDO_MIGRATION_24, UNDO_MIGRATION_25, UNDO_MIGRATION_27, undoMigration22 } from "../helpers/undo-migrations.ts";

const key = () => crypto.getRandomValues(new Uint8Array(32));

describe("SecretBox (AES-256-GCM)", () => {
  const box = new SecretBox(key());

  test("seals to enc:v1:..., opens back, and never seals the same text the same way twice", () => {
    const sealed = box.seal("sk-live-1234", "ai_keys.api_key:k1");
    expect(sealed).toStartWith("enc:v1:");
    expect(sealed).not.toContain("sk-live-1234");
    expect(box.seal("sk-live-1234", "ai_keys.api_key:k1")).not.toBe(sealed);
    expect(box.open(sealed, "ai_keys.api_key:k1")).toBe("sk-live-1234");
    expect(box.open(box.seal("", "c"), "c")).toBe("");
    expect(box.openNullable(box.sealNullable(null, "c"), "c")).toBeNull();
  });

  test.each([
    ["another row", (s: string) => box.open(s, "ai_keys.api_key:k2")],
    ["another column", (s: string) => box.open(s, "webhooks.token:k1")],
    ["another key", (s: string) => new SecretBox(key()).open(s, "ai_keys.api_key:k1")],
    ["a flipped byte", (s: string) => box.open(s.slice(0, -6) + (s.at(-6) === "A" ? "B" : "A") + s.slice(-5), "ai_keys.api_key:k1")],
    ["a truncated value", (s: string) => box.open(s.slice(0, 12), "ai_keys.api_key:k1")],
    ["plaintext", () => box.open("sk-live-1234", "ai_keys.api_key:k1")],
  ])("does not open with %s", (_, attempt) => {
    const sealed = box.seal("sk-live-1234", "ai_keys.api_key:k1");
    expect(() => attempt(sealed)).toThrow(SecretsKeyError);
  });

  test("a key of the wrong size is refused", () => {
    expect(() => new SecretBox(new Uint8Array(16))).toThrow(SecretsKeyError);
  });
});

describe("upgrading a database that holds plaintext secrets", () => {
  test("migration 11 and the start seal every secret; the repositories read them back; the same key reopens it", async () => {
    const database = await freshDatabase({ file: true });
    const location = database.location;
    const secretsKey = key();
    try {
      // Rows as a build before encryption at rest wrote them: made through the store, then put
      // back in plaintext, and the schema taken back to version 10.
      const store = await createStore(location, secretsKey);
      const created = await store.users.create({ username: "ann", email: "ann@x.test", passwordHash: "h", isBot: false });
      if (!created.ok) throw new Error("create failed");
      const ann = created.user;
      const server = (await store.servers.create({ ownerId: ann.id, name: "S", description: "", everyonePermissions: 0, primaryInviteCode: "inv123" }, 200))!;
      const [channel] = await store.channels.listByServer(server.id);
      const hook = (await store.webhooks.insert({ channelId: channel!.id, serverId: server.id, name: "H", avatar: null, token: "x", createdBy: ann.id }, 15))!;
      const app = (await store.applications.create({ ownerId: ann.id, name: "Bot", description: "", clientSecret: "x" }, 25))!;
      const aiKey = await store.aiKeys.create({ name: "K", baseUrl: "http://127.0.0.1:9", apiKey: "x", models: "[]", enabled: true, createdBy: ann.id });

      const plaintext = {
        totp: "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP",
        pending: "KRSXG5CTMVRXEZLUKRSXG5CTMVRXEZLU",
        webhook: "plain-webhook-token-0123456789abcdefghijklmnop",
        client: "c0ffee".repeat(10),
        api: "sk-plain-provider-key-0123456789",
      };
      const { db } = store;
      await db.run(db.prepare("UPDATE users SET totp_secret = ?, totp_pending_secret = ? WHERE id = ?"), plaintext.totp, plaintext.pending, ann.id);
      await db.run(db.prepare("UPDATE webhooks SET token = ? WHERE id = ?"), plaintext.webhook, hook.id);
      await db.run(db.prepare("UPDATE applications SET client_secret = ? WHERE id = ?"), plaintext.client, app.id);
      await db.run(db.prepare("UPDATE ai_keys SET api_key = ? WHERE id = ?"), plaintext.api, aiKey.id);
      // Back to a database of version 10: the migrations after it undone.
      // Migration 19's triggers: per statement on SQLite, one function each on PostgreSQL.
      const lastMessageTriggers =
        db.dialect.name === "sqlite"
          ? "DROP TRIGGER messages_last_insert; DROP TRIGGER messages_last_delete; DROP TRIGGER dm_messages_last_insert; DROP TRIGGER dm_messages_last_delete; "
          : "DROP TRIGGER messages_last_message ON messages; DROP TRIGGER dm_messages_last_message ON dm_messages; DROP FUNCTION hearth_channel_last_message; DROP FUNCTION hearth_dm_last_message; ";
      await db.exec(UNDO_MIGRATION_27 + UNDO_MIGRATION_25 + UNDO_MIGRATION_24 + UNDO_MIGRATION_23 + undoMigration22(db.dialect.name) + "DROP TABLE stored_files; DROP TABLE secrets_key_check; ALTER TABLE messages DROP COLUMN has_attachments; ALTER TABLE server_members DROP COLUMN server_muted; ALTER TABLE server_members DROP COLUMN server_deafened; DROP TABLE two_factor_recovery_codes; DROP TABLE revoked_tokens; ALTER TABLE users DROP COLUMN token_revocations; " + lastMessageTriggers + "DROP TABLE channel_last_messages; DROP TABLE dm_last_messages; DROP TABLE channel_mentions; ALTER TABLE attachments DROP COLUMN width; ALTER TABLE attachments DROP COLUMN height; ALTER TABLE dm_attachments DROP COLUMN width; ALTER TABLE dm_attachments DROP COLUMN height; DROP TABLE notification_overrides; DROP INDEX server_members_name; ALTER TABLE servers DROP COLUMN member_count; ALTER TABLE server_members DROP COLUMN username_lower; DELETE FROM schema_migrations WHERE version >= 11");
      await store.close();

      const upgraded = await createStore(location, secretsKey);
      const stored = (
        await upgraded.db.all(
          upgraded.db.prepare<{ v: string }, []>(
            `SELECT totp_secret AS v FROM users WHERE totp_secret IS NOT NULL UNION ALL SELECT totp_pending_secret FROM users WHERE totp_pending_secret IS NOT NULL
             UNION ALL SELECT token FROM webhooks UNION ALL SELECT client_secret FROM applications UNION ALL SELECT api_key FROM ai_keys`,
          ),
        )
      ).map((r) => r.v);
      expect(stored.length).toBe(5);
      for (const value of stored) expect(isSealed(value)).toBe(true);

      const user = (await upgraded.users.findById(ann.id))!;
      expect(upgraded.users.totpSecrets(user)).toEqual({ active: plaintext.totp, pending: plaintext.pending });
      expect((await upgraded.webhooks.find(hook.id))!.token).toBe(plaintext.webhook);
      expect((await upgraded.applications.findById(app.id))!.client_secret).toBe(plaintext.client);
      expect((await upgraded.aiKeys.find(aiKey.id))!.api_key).toBe(plaintext.api);
      await upgraded.close();

      // Reopening with the same key works; another key is refused before anything is read.
      await (await createStore(location, secretsKey)).close();
      await expect(createStore(location, key())).rejects.toThrow(SecretsKeyError);
      await expect(createStore(location, key())).rejects.toThrow(/does not match the key this database's secrets were encrypted with/);
    } finally {
      await database.drop();
    }
  });
});
