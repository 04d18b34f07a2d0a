import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "./config.ts";
import { SECRETS_KEY_BYTES, SecretsKeyError } from "./store/secret-box.ts";
import { createStore, type Store } from "./store/store.ts";

/** Owner-only modes for everything under DATA_DIR (docs/operations.md "Data layout"). */
const PRIVATE_DIR_MODE = 0o700;
const PRIVATE_FILE_MODE = 0o600;

/**
 * Creates DATA_DIR as 0700, or narrows an existing one that others may read to 0700 (the
 * database, the secrets and the uploads live there). Answers a warning when that is not
 * possible (a folder owned by someone else), null otherwise.
 */
export function secureDataDir(dataDir: string): string | null {
  mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  try {
    if ((statSync(dataDir).mode & 0o077) !== 0) chmodSync(dataDir, PRIVATE_DIR_MODE);
    return null;
  } catch (error) {
    return `DATA_DIR ${dataDir} could not be made private (mode 0700): ${(error as Error).message}`;
  }
}

/** Reads a file of ours, narrowing its mode to 0600 if others could read it; null when it does not exist. */
function readPrivateFile(file: string): string | null {
  try {
    const text = readFileSync(file, "utf8");
    if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, PRIVATE_FILE_MODE);
    return text;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/** Writes a new file readable by the owner only; never replaces one (a second start racing the first fails). */
function writePrivateFile(dataDir: string, file: string, text: string): void {
  mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  writeFileSync(file, text, { mode: PRIVATE_FILE_MODE, flag: "wx" });
}

/**
 * JWT_SECRET when set; otherwise a random secret generated on first start and kept in
 * `<dataDir>/jwt-secret` (mode 0600), so tokens survive a restart.
 */
export function resolveJwtSecret(configured: string | undefined, dataDir: string): string {
  if (configured) return configured;
  const file = join(dataDir, "jwt-secret");
  const existing = readPrivateFile(file)?.trim();
  if (existing && existing.length >= 32) return existing;
  const secret = Buffer.from(crypto.getRandomValues(new Uint8Array(48))).toString("base64url");
  if (existing === undefined) writePrivateFile(dataDir, file, secret + "\n");
  else writeFileSync(file, secret + "\n", { mode: PRIVATE_FILE_MODE });
  return secret;
}

interface SecretsKey {
  key: Uint8Array;
  /** Where it came from, for messages: `SECRETS_KEY` or the key file's path. */
  source: string;
}

const HEX_KEY = /^[0-9a-f]{64}$/i;

/**
 * The key that seals the stored secrets (docs/operations.md "Secrets at rest"): SECRETS_KEY
 * (64 hex characters) when set; otherwise `<dataDir>/secrets.key`, generated (32 random bytes
 * as hex, mode 0600) on first start. A key file that is not 64 hex characters stops the start.
 */
export function resolveSecretsKey(configured: string | undefined, dataDir: string): SecretsKey {
  if (configured) return { key: Buffer.from(configured, "hex"), source: "SECRETS_KEY" };
  const file = join(dataDir, "secrets.key");
  const existing = readPrivateFile(file);
  if (existing !== null) {
    const hex = existing.trim();
    if (!HEX_KEY.test(hex)) throw new SecretsKeyError(`${file} must hold the secrets key as ${SECRETS_KEY_BYTES * 2} hexadecimal characters`);
    return { key: Buffer.from(hex, "hex"), source: file };
  }
  const key = crypto.getRandomValues(new Uint8Array(SECRETS_KEY_BYTES));
  writePrivateFile(dataDir, file, Buffer.from(key).toString("hex") + "\n");
  return { key, source: file };
}

/** Where the configured database is: the PostgreSQL URL when set, else the SQLite file. */
const databaseLocation = (config: Pick<Config, "databaseFile" | "databaseUrl">): string => config.databaseUrl ?? config.databaseFile;

/**
 * The configured database, its secrets opened with the configured or generated key (the
 * server and the admin command). A key that does not open them is a SecretsKeyError naming
 * where the key came from.
 */
export async function openConfiguredStore(config: Pick<Config, "databaseFile" | "databaseUrl" | "dataDir" | "secretsKey">): Promise<Store> {
  const secretsKey = resolveSecretsKey(config.secretsKey, config.dataDir);
  try {
    return await createStore(databaseLocation(config), secretsKey.key);
  } catch (error) {
    if (error instanceof SecretsKeyError) throw new SecretsKeyError(`${error.message} (The key in use came from ${secretsKey.source}.)`);
    throw error;
  }
}
