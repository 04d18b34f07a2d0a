import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { Database } from "./database.ts";

/** How a sealed value starts; anything else in a secret column is plaintext from before encryption. */
const SEALED = "enc:v1:";
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const SECRETS_KEY_BYTES = 32;

/** The key given does not open what this database holds: the server must not start. */
export class SecretsKeyError extends Error {}

/**
 * AES-256-GCM for the secrets the store keeps (docs/operations.md "Secrets at rest"). A sealed
 * value is `enc:v1:` + base64(iv | ciphertext | tag); the additional data names the column and
 * row (`webhooks.token:<id>`), so a sealed value copied to another row or column does not open.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(key: Uint8Array) {
    if (key.length !== SECRETS_KEY_BYTES) throw new SecretsKeyError(`The secrets key must be ${SECRETS_KEY_BYTES} bytes`);
    this.key = Buffer.from(key);
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return SEALED + Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64");
  }

  /** The plaintext of a sealed value; throws when it is not sealed, or not with this key and context. */
  open(sealed: string, context: string): string {
    if (!isSealed(sealed)) throw new SecretsKeyError(`A stored secret (${context.split(":")[0]}) is not encrypted`);
    const raw = Buffer.from(sealed.slice(SEALED.length), "base64");
    if (raw.length < IV_BYTES + TAG_BYTES) throw new SecretsKeyError(`A stored secret (${context.split(":")[0]}) is malformed`);
    const decipher = createDecipheriv("aes-256-gcm", this.key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString("utf8");
    } catch {
      throw new SecretsKeyError(`A stored secret (${context.split(":")[0]}) does not open with the secrets key`);
    }
  }

  /** `value` sealed, keeping null as null. */
  sealNullable(value: string | null, context: string): string | null {
    return value === null ? null : this.seal(value, context);
  }

  openNullable(value: string | null, context: string): string | null {
    return value === null ? null : this.open(value, context);
  }
}

export const isSealed = (value: string): boolean => value.startsWith(SEALED);

/** The secret columns: each value's additional data is `<table>.<context>:<row id>`. */
const SECRET_COLUMNS = [
  { table: "users", column: "totp_secret", context: "users.totp" },
  { table: "users", column: "totp_pending_secret", context: "users.totp" },
  { table: "webhooks", column: "token", context: "webhooks.token" },
  { table: "applications", column: "client_secret", context: "applications.client_secret" },
  { table: "ai_keys", column: "api_key", context: "ai_keys.api_key" },
] as const;

/** The additional data of a secret: its column's context and its row. */
export const secretContext = (context: (typeof SECRET_COLUMNS)[number]["context"], rowId: string) => `${context}:${rowId}`;

const KEY_CHECK_CONTEXT = "secrets_key_check";
const KEY_CHECK_PLAINTEXT = "hearth secrets key check";

/**
 * At start, after the migrations: the key must open the database's key check (written the
 * first time a key is used), or SecretsKeyError; then every secret still in plaintext (rows
 * written before encryption at rest) is sealed, in one transaction.
 */
export async function prepareSecrets(db: Database, box: SecretBox): Promise<void> {
  const readCheck = db.prepare<{ sealed: string }, []>("SELECT sealed FROM secrets_key_check WHERE id = 1");
  const writeCheck = db.prepare("INSERT INTO secrets_key_check (id, sealed) VALUES (1, ?)");
  const columns = SECRET_COLUMNS.map(({ table, column, context }) => ({
    context,
    plain: db.prepare<{ id: string; value: string }, []>(
      `SELECT id, ${column} AS value FROM ${table} WHERE ${column} IS NOT NULL AND substr(${column}, 1, 7) != 'enc:v1:'`,
    ),
    update: db.prepare(`UPDATE ${table} SET ${column} = ? WHERE id = ?`),
  }));
  await db.transaction(async (tx) => {
    // Several processes may start at once on one PostgreSQL.
    await tx.lock("secrets");
    const check = await tx.get(readCheck);
    if (check) {
      let opened: string | null = null;
      try {
        opened = box.open(check.sealed, KEY_CHECK_CONTEXT);
      } catch {
        // answered below
      }
      if (opened !== KEY_CHECK_PLAINTEXT) {
        throw new SecretsKeyError(
          "The secrets key does not match the key this database's secrets were encrypted with. " +
            "Start with the original key (SECRETS_KEY, or the secrets.key file kept with the data); see docs/operations.md#secrets-at-rest.",
        );
      }
    }
    if (!check) await tx.run(writeCheck, box.seal(KEY_CHECK_PLAINTEXT, KEY_CHECK_CONTEXT));
    for (const { context, plain, update } of columns) {
      for (const row of await tx.all(plain)) await tx.run(update, box.seal(row.value, secretContext(context, row.id)), row.id);
    }
  });
}
