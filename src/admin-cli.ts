/**
 * The host's administrator command (docs/admin.md#host-command):
 *   npm run admin -- promote <username>
 *   npm run admin -- demote <username>
 *   npm run admin -- list
 * Opens the configured database (DATA_DIR / DATABASE_FILE), changes the flag, and writes a
 * platform log entry with no actor (the host). Works while the server runs: the flag is read
 * from the database on every request.
 */
import { ConfigError, loadConfig } from "./config.ts";
import { Admins } from "./domain/admin/admins.ts";
import { ApiError } from "./domain/shared/errors.ts";
import { openConfiguredStore } from "./secret.ts";
import { SchemaTooNewError } from "./store/database.ts";
import { SecretsKeyError } from "./store/secret-box.ts";
import type { Store } from "./store/store.ts";

const USAGE = "Usage: npm run admin -- promote <username> | demote <username> | list";

interface CliOutput {
  out(line: string): void;
  err(line: string): void;
}

/** Runs one command against `store`; answers the process exit code. */
async function runAdminCommand(store: Store, args: string[], io: CliOutput): Promise<number> {
  const [command, name, ...extra] = args;
  const admins = new Admins(store);
  if (command === "list" && name === undefined) {
    const rows = await store.admin.users({ q: null, bot: false, premium: null, admin: true, disabled: null }, null, 1000);
    if (rows.length === 0) io.out("There are no platform administrators yet: the first account registered becomes one.");
    for (const row of rows) io.out(`${row.username} (${row.id})`);
    return 0;
  }
  if ((command !== "promote" && command !== "demote") || !name || extra.length > 0) {
    io.err(USAGE);
    return 2;
  }
  const user = await store.users.findByLogin(name);
  if (!user) {
    io.err(`No account named "${name}" (bots cannot be administrators).`);
    return 1;
  }
  const promote = command === "promote";
  if ((user.platform_admin === 1) === promote) {
    io.out(`${user.username} is ${promote ? "already" : "not"} a platform administrator; nothing changed.`);
    return 0;
  }
  try {
    await admins.setAdmin(null, user, promote);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    io.err(error.message);
    return 1;
  }
  io.out(promote ? `${user.username} is now a platform administrator.` : `${user.username} is no longer a platform administrator.`);
  return 0;
}

if (import.meta.main) {
  const io: CliOutput = { out: (line) => console.log(line), err: (line) => console.error(line) };
  let code: number;
  try {
    const config = loadConfig();
    const store = await openConfiguredStore(config);
    try {
      code = await runAdminCommand(store, process.argv.slice(2), io);
    } finally {
      await store.close();
    }
  } catch (error) {
    if (!(error instanceof ConfigError) && !(error instanceof SchemaTooNewError) && !(error instanceof SecretsKeyError)) throw error;
    io.err(error.message);
    code = 1;
  }
  process.exit(code);
}
