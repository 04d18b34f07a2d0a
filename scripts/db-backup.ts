/**
 * `npm run db:backup -- <file>`: an online backup of the SQLite database (docs/operations.md,
 * "Backups"), safe while Hearth runs: `VACUUM INTO` writes a consistent, compacted copy of the
 * database as it is at one moment (the WAL included) to a new file, readable by the owner only.
 * With DATABASE_URL set, PostgreSQL's own `pg_dump` is the tool; this says so and stops.
 */
import { existsSync } from "node:fs";
import { Database } from "bun:sqlite";
import { ConfigError, loadConfig } from "../src/config.ts";

const target = process.argv[2];
if (!target || process.argv.length > 3) {
  console.error("Usage: npm run db:backup -- <backup file>");
  process.exit(2);
}
let config;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}
if (config.databaseUrl) {
  console.error('This installation uses PostgreSQL (DATABASE_URL): back it up with pg_dump, e.g. pg_dump --format=custom --file=hearth.dump "$DATABASE_URL" (docs/operations.md#backups).');
  process.exit(2);
}
if (!existsSync(config.databaseFile)) {
  console.error(`${config.databaseFile}: no database there (check DATA_DIR / DATABASE_FILE)`);
  process.exit(1);
}
if (existsSync(target)) {
  console.error(`${target} exists already: give a new file name`);
  process.exit(1);
}
process.umask(0o077);
const db = new Database(config.databaseFile, { readonly: true });
try {
  db.run("PRAGMA busy_timeout = 5000");
  db.run("VACUUM INTO ?", [target]);
} finally {
  db.close();
}
console.log(`Backed up ${config.databaseFile} to ${target}. Keep the secrets key (SECRETS_KEY or ${config.dataDir}/secrets.key) and uploads/ with it, the key apart.`);
