/**
 * Authenticated REST read: GET /api/v1/users/me/info through the whole stack (Elysia,
 * JWT verify, token-version lookup, JSON) against a baseline measured in the same run: a bare
 * Bun.serve handler doing the same SQLite primary-key read with no framework and no auth.
 *
 * Load comes from a separate process (bench/load-client.ts) so the server's CPU is its own.
 * Prints a human summary on stderr and one JSON line on stdout.
 *
 *   bun bench/rest-auth-read.ts [--seconds 5] [--concurrency 32]
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const seconds = arg("seconds", 5);
const concurrency = arg("concurrency", 32);

interface LoadResult {
  requests: number;
  errors: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
}

async function load(url: string, token: string | null): Promise<LoadResult> {
  const proc = Bun.spawn(
    [process.execPath, join(import.meta.dir, "load-client.ts"), url, String(seconds), String(concurrency), token ?? ""],
    { stdout: "pipe", stderr: "inherit" },
  );
  const out = await new Response(proc.stdout).text();
  if ((await proc.exited) !== 0) throw new Error("load client failed");
  return JSON.parse(out.trim().split("\n").at(-1)!) as LoadResult;
}

const dataDir = mkdtempSync(join(tmpdir(), "hearth-bench-"));
try {
  // Hearth, with a file database as in production.
  const app = await createApp({ ...loadConfig({}), port: 0, host: "127.0.0.1", dataDir, databaseFile: join(dataDir, "hearth.db"), logLevel: "silent", authRateLimitPerMinute: 1_000_000 });
  const reg = await fetch(`${app.url}/api/v1/auth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "bench", email: "bench@example.test", password: "bench-password" }),
  });
  const { token, user } = (await reg.json()) as { token: string; user: { id: string } };
  const hearth = await load(`${app.url}/api/v1/users/me/info`, token);
  await app.stop();

  // Baseline: the same row read from the same file, straight into JSON.
  const db = new Database(join(dataDir, "hearth.db"));
  const read = db.prepare("SELECT id, username, email, avatar, banner, banner_offset, bio, status, is_bot, created_at FROM users WHERE id = ?");
  const bare = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => Response.json(read.get(user.id)) });
  const baseline = await load(`http://127.0.0.1:${bare.port}/`, null);
  await bare.stop(true);
  db.close();

  const result = {
    bench: "rest-auth-read",
    seconds,
    concurrency,
    hearth,
    baseline,
    ratio_rps: Math.round((hearth.rps / baseline.rps) * 1000) / 1000,
  };
  console.error(
    `rest-auth-read: Hearth ${hearth.rps.toFixed(0)} req/s (p50 ${hearth.p50_ms} ms, p99 ${hearth.p99_ms} ms), ` +
      `bare Bun.serve+SQLite ${baseline.rps.toFixed(0)} req/s (p99 ${baseline.p99_ms} ms): ratio ${result.ratio_rps}`,
  );
  console.log(JSON.stringify(result));
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
