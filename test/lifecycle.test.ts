import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrations } from "../src/store/sqlite/migrations.ts";
import { openDatabase } from "../src/store/store.ts";
import { freshDatabase, onPostgres } from "./helpers/database.ts";
import { startProcess } from "./helpers/process.ts";

const root = join(import.meta.dir, "..");

describe("running the server process", () => {
  test("keeps data and tokens across a restart, and stops cleanly on SIGTERM", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "hearth-life-"));
    // SQLite: hearth.db in DATA_DIR; PostgreSQL: a fresh database (DATABASE_URL).
    const database = await freshDatabase();
    try {
      const first = await startProcess({ DATA_DIR: dataDir, ...database.env });
      expect((await fetch(`${first.url}/api/v1`)).status).toBe(200);
      const reg = await fetch(`${first.url}/api/v1/auth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ username: "persisted", email: "p@example.test", password: "persisted-password" }),
      });
      expect(reg.status).toBe(201);
      const { token } = (await reg.json()) as { token: string };
      first.proc.kill("SIGTERM");
      expect(await first.proc.exited).toBe(0);

      expect(statSync(join(dataDir, "jwt-secret")).mode & 0o777).toBe(0o600);
      if (!onPostgres) {
        expect(existsSync(join(dataDir, "hearth.db"))).toBe(true);
        // A clean stop checkpoints the WAL into the main file.
        const wal = join(dataDir, "hearth.db-wal");
        expect(!existsSync(wal) || statSync(wal).size === 0).toBe(true);
      }

      const second = await startProcess({ DATA_DIR: dataDir, ...database.env });
      const me = await fetch(`${second.url}/api/v1/users/me/info`, { headers: { authorization: `Bearer ${token}` } });
      expect(me.status).toBe(200);
      expect(((await me.json()) as { username: string }).username).toBe("persisted");
      second.proc.kill("SIGINT");
      expect(await second.proc.exited).toBe(0);

      const db = await openDatabase(database.env.DATABASE_URL ?? join(dataDir, "hearth.db"));
      expect(await db.get(db.prepare("SELECT count(*) AS n FROM schema_migrations"))).toEqual({ n: migrations.length });
      await db.close();
    } finally {
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test("a bad configuration value stops the server with a message naming it", async () => {
    const proc = Bun.spawn([process.execPath, "src/main.ts"], {
      cwd: root,
      env: { ...process.env, PORT: "not-a-port" },
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(await proc.exited).toBe(1);
    expect(await new Response(proc.stderr).text()).toContain("PORT must be a whole number");
  });
});
