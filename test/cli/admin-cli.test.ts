import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Admins } from "../../src/domain/admin/admins.ts";
import { resolveSecretsKey } from "../../src/secret.ts";
import { createStore } from "../../src/store/store.ts";
import { freshDatabase, onPostgres, type TestDatabase } from "../helpers/database.ts";

// `npm run admin -- promote|demote|list` (docs/admin.md#host-command), run as the host would.
let dir = "";
/** SQLite: the default file in DATA_DIR; PostgreSQL: a fresh database, given as DATABASE_URL. */
let database: TestDatabase | null = null;
let location = "";
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "hearth-cli-"));
  database = onPostgres ? await freshDatabase() : null;
  location = database?.location ?? join(dir, "hearth.db");
});
afterEach(async () => {
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

const ROOT = join(import.meta.dir, "..", "..");

async function run(...args: string[]) {
  const child = Bun.spawn([process.execPath, "src/admin-cli.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dir, DATABASE_FILE: "", DATABASE_URL: database?.location ?? "", LOG_LEVEL: "silent" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { stdout: stdout.trim(), stderr: stderr.trim(), code };
}

async function seed(...names: string[]) {
  const store = await createStore(location, resolveSecretsKey(undefined, dir).key);
  for (const username of names) await store.users.create({ username, email: `${username}@example.test`, passwordHash: "x", isBot: false });
  await store.close();
}

async function inspect() {
  const store = await createStore(location, resolveSecretsKey(undefined, dir).key);
  try {
    const users = await store.admin.users({ q: null, bot: null, premium: null, admin: null, disabled: null }, null, 100);
    const log = await new Admins(store).logPage(null, 10);
    return { admins: users.filter((u) => u.platform_admin === 1).map((u) => u.username).sort(), log: log.entries };
  } finally {
    await store.close();
  }
}

test("promote: prints a clear line, sets the flag, logs with no actor; a repeat changes nothing", async () => {
  await seed("first", "Second");
  const res = await run("promote", "second");
  expect(res).toEqual({ stdout: "Second is now a platform administrator.", stderr: "", code: 0 });
  const { admins, log } = await inspect();
  expect(admins).toEqual(["Second", "first"]);
  expect(log[0]).toMatchObject({ actor: null, action: "USER_PROMOTE", target_type: "user", changes: { platform_admin: true } });
  const again = await run("promote", "Second");
  expect(again).toEqual({ stdout: "Second is already a platform administrator; nothing changed.", stderr: "", code: 0 });
  expect((await inspect()).log).toHaveLength(1);
});

test("demote, but never the last administrator", async () => {
  await seed("first", "second");
  await run("promote", "second");
  expect(await run("demote", "first")).toEqual({ stdout: "first is no longer a platform administrator.", stderr: "", code: 0 });
  const last = await run("demote", "second");
  expect(last).toEqual({ stdout: "", stderr: "The platform needs at least one administrator: promote someone else first", code: 1 });
  const { admins, log } = await inspect();
  expect(admins).toEqual(["second"]);
  expect(log.map((e) => e.action)).toEqual(["USER_DEMOTE", "USER_PROMOTE"]);
});

test("an unknown user exits 1 with a clear message; bad usage exits 2; list names the administrators", async () => {
  await seed("first");
  expect(await run("promote", "ghost")).toEqual({ stdout: "", stderr: 'No account named "ghost" (bots cannot be administrators).', code: 1 });
  const usage = await run("elevate", "first");
  expect(usage.code).toBe(2);
  expect(usage.stderr).toBe("Usage: npm run admin -- promote <username> | demote <username> | list");
  expect((await run("promote")).code).toBe(2);
  const list = await run("list");
  expect(list.code).toBe(0);
  expect(list.stdout).toMatch(/^first \([0-9a-f-]{36}\)$/);
});

test("a bad configuration is reported, not thrown", async () => {
  const child = Bun.spawn([process.execPath, "src/admin-cli.ts", "list"], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dir, DATABASE_FILE: "", PORT: "nope" },
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(await child.exited).toBe(1);
  expect((await new Response(child.stderr).text()).trim()).toBe("Invalid configuration: PORT: PORT must be a whole number");
});
