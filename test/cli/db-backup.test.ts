import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveSecretsKey } from "../../src/secret.ts";
import { createStore } from "../../src/store/store.ts";
import { community } from "../helpers/community.ts";
import { startServer } from "../helpers/server.ts";

// `npm run db:backup -- <file>` (scripts/db-backup.ts, docs/operations.md#backups), run as the host would.
const ROOT = join(import.meta.dir, "..", "..");
const dir = mkdtempSync(join(tmpdir(), "hearth-backup-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function backup(env: Record<string, string>, ...args: string[]) {
  const child = Bun.spawn([process.execPath, "scripts/db-backup.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_FILE: "", DATABASE_URL: "", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { stdout: stdout.trim(), stderr: stderr.trim(), code };
}

test("an online backup of SQLite while the server runs: a complete database, 0600, that opens with the same key", async () => {
  const dataDir = join(dir, "data");
  // The SQLite file in DATA_DIR whatever the suite's database: this command is SQLite's.
  const server = await startServer({ dataDir, databaseFile: join(dataDir, "hearth.db"), databaseUrl: undefined, secretsKey: undefined });
  try {
    const { owner, channelId } = await community(server);
    const sent = await server.api("POST", `/api/v1/messages/${channelId}`, { token: owner.token, body: { content: "kept in the backup" } });
    const target = join(dir, "backup.db");
    const res = await backup({ DATA_DIR: dataDir }, target);
    expect(res).toMatchObject({ code: 0, stderr: "" });
    expect(res.stdout).toContain(`to ${target}`);
    expect(statSync(target).mode & 0o777).toBe(0o600);
    const copy = await createStore(target, resolveSecretsKey(undefined, dataDir).key);
    try {
      expect((await copy.messages.findById(sent.body.id))?.content).toBe("kept in the backup");
    } finally {
      await copy.close();
    }
    // Never over an existing file.
    expect((await backup({ DATA_DIR: dataDir }, target)).code).toBe(1);
  } finally {
    await server.stop();
  }
});

test("with DATABASE_URL it points to pg_dump; without a file name it prints the usage", async () => {
  const pg = await backup({ DATA_DIR: dir, DATABASE_URL: "postgres://hearth@127.0.0.1:1/hearth" }, join(dir, "x.db"));
  expect(pg.code).toBe(2);
  expect(pg.stderr).toContain("pg_dump");
  expect(await backup({ DATA_DIR: dir })).toMatchObject({ code: 2, stderr: "Usage: npm run db:backup -- <backup file>" });
});
