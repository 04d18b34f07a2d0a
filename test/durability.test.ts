import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { createStore } from "../src/store/store.ts";
import { resolveSecretsKey } from "../src/secret.ts";
import { freshDatabase, type TestDatabase } from "./helpers/database.ts";

/**
 * Acknowledged means durable (docs/operations.md, "Durability"): Hearth runs as its own
 * process on a file database, 64 clients post messages as fast as they can, the process is
 * SIGKILLed mid-load, and every message whose send was answered 201 must be in the database
 * when it is opened again. Sends in flight at the kill may or may not have landed; both are fine.
 */
const ROOT = join(import.meta.dir, "..");
const dataDir = mkdtempSync(join(tmpdir(), "hearth-durability-"));
/** The server process, killed whatever happens to the test. */
let child: Subprocess | null = null;
/** SQLite: `hearth.db` in DATA_DIR; PostgreSQL: a fresh database (DATABASE_URL). */
let database: TestDatabase;
afterAll(async () => {
  child?.kill("SIGKILL");
  await child?.exited;
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const CLIENTS = 64;

async function startChild() {
  const proc = Bun.spawn([process.execPath, join(ROOT, "src/main.ts")], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      JWT_SECRET: "durability-secret-durability-secret-0123",
      LOG_LEVEL: "info",
      AUTH_RATE_LIMIT_PER_MINUTE: "1000",
      // The load posts into one channel as fast as it can: the REST sends limits are raised.
      REST_RATE_SENDS: "1000000000/60s",
      REST_RATE_USER_SENDS: "1000000000/60s",
      ...database.env,
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  child = proc;
  // The listening line (JSON, stdout is not a TTY) names the port; the rest is drained.
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("Hearth did not start within 10 s")), 10_000);
    void (async () => {
      let buffer = "";
      const decoder = new TextDecoder();
      for await (const chunk of proc.stdout) {
        buffer += decoder.decode(chunk, { stream: true });
        let nl: number;
        while ((nl = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          if (line.includes("Hearth listening")) {
            clearTimeout(timer);
            resolve((JSON.parse(line) as { port: number }).port);
          }
        }
      }
      reject(new Error("Hearth exited before listening"));
    })();
  });
  void new Response(proc.stderr).text();
  return { proc, base: `http://127.0.0.1:${port}` };
}

async function call<T>(base: string, method: string, path: string, body: unknown, token?: string): Promise<T> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

test(
  "a SIGKILL mid-load loses no acknowledged message",
  async () => {
    database = await freshDatabase();
    const { proc, base } = await startChild();
    const owner = await call<{ token: string; user: { id: string } }>(base, "POST", "/api/v1/auth/register", {
      username: "durable",
      email: "durable@example.test",
      password: "durable-password",
    });
    const { id: serverId } = await call<{ id: string }>(base, "POST", "/api/v1/servers", { name: "durability" }, owner.token);
    const { channels } = await call<{ channels: { id: string; type: string }[] }>(base, "GET", `/api/v1/channels/${serverId}`, undefined, owner.token);
    const channelId = channels.find((c) => c.type === "text")!.id;

    const acknowledged: string[] = [];
    let attempted = 0;
    let failed = 0;
    let killed = false;
    const loops = Array.from({ length: CLIENTS }, async (_, client) => {
      for (let i = 0; !killed; i++) {
        attempted++;
        try {
          const res = await fetch(`${base}/api/v1/messages/${channelId}`, {
            method: "POST",
            headers: { "content-type": "application/json", authorization: `Bearer ${owner.token}` },
            body: JSON.stringify({ content: `client ${client} message ${i}` }),
          });
          const body = (await res.json()) as { id?: string };
          if (res.status === 201 && body.id) acknowledged.push(body.id);
          else failed++;
        } catch {
          failed++; // the connection died with the process
        }
      }
    });

    // Let the load build up, then kill while requests are in flight.
    const deadline = Date.now() + 8_000;
    while (acknowledged.length < 1500 && Date.now() < deadline) await Bun.sleep(25);
    proc.kill("SIGKILL");
    const at = acknowledged.length;
    await proc.exited;
    killed = true;
    await Promise.all(loops);
    expect(proc.signalCode).toBe("SIGKILL");
    expect(at).toBeGreaterThan(100);

    // Reopen the database as the next start would (WAL recovery included) and count.
    const store = await createStore(database.env.DATABASE_URL ?? join(dataDir, "hearth.db"), resolveSecretsKey(undefined, dataDir).key);
    try {
      const missing: string[] = [];
      for (const id of acknowledged) if (!(await store.messages.findById(id))) missing.push(id);
      const storedCount = (await store.messages.page(channelId, null, 1_000_000)).length;
      console.log(
        `durability: ${attempted} sends attempted, ${acknowledged.length} acknowledged, ${failed} failed at the kill, ` +
          `${storedCount} stored (${storedCount - acknowledged.length + missing.length} unacknowledged but landed), ${missing.length} missing`,
      );
      expect(missing).toEqual([]);
      expect(storedCount).toBeGreaterThanOrEqual(acknowledged.length);
    } finally {
      await store.close();
    }
  },
  20_000,
);
