/**
 * Authenticated REST read: GET /api/v1/users/me/info through the whole stack (Elysia,
 * JWT verify, token-version lookup, JSON) against a baseline measured in the same run: a bare
 * Bun.serve handler doing the same SQLite primary-key read with no framework and no auth.
 *
 * Load comes from a separate process (bench/load-client.ts) so the server's CPU is its own.
 * Prints a human summary on stderr and one JSON line on stdout.
 *
 *   bun bench/rest-auth-read.ts [--seconds 5] [--concurrency 32] [--rounds 3]
 *
 * Rounds alternate Hearth and the baseline; the ratios are the median (and range) over the
 * rounds, of req/s and of the server's CPU per request (the load client takes about a core of
 * the two, so req/s is partly the machine's; CPU per request is the server's own).
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
const rounds = arg("rounds", 3);

interface LoadResult {
  requests: number;
  errors: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  /** CPU of this process (which runs only the servers; the loaded one alone is busy) per request. */
  server_cpu_us_per_request?: number;
}

async function load(url: string, token: string | null): Promise<LoadResult> {
  const cpu0 = process.cpuUsage();
  const proc = Bun.spawn(
    [process.execPath, join(import.meta.dir, "load-client.ts"), url, String(seconds), String(concurrency), token ?? ""],
    { stdout: "pipe", stderr: "inherit" },
  );
  const out = await new Response(proc.stdout).text();
  if ((await proc.exited) !== 0) throw new Error("load client failed");
  const cpu = process.cpuUsage(cpu0);
  const result = JSON.parse(out.trim().split("\n").at(-1)!) as LoadResult;
  // The client's warm-up requests (`concurrency` of them) are served too.
  result.server_cpu_us_per_request = Math.round(((cpu.user + cpu.system) / (result.requests + concurrency)) * 10) / 10;
  return result;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const r3 = (x: number) => Math.round(x * 1000) / 1000;

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

  // Baseline: the same row read from the same file (a second connection), straight into JSON.
  const db = new Database(join(dataDir, "hearth.db"));
  const read = db.prepare("SELECT id, username, email, avatar, banner, banner_offset, bio, status, is_bot, created_at FROM users WHERE id = ?");
  const bare = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => Response.json(read.get(user.id)) });

  // Rounds alternate Hearth and the baseline, so the shared machine's slow moments fall on both.
  const runs: { hearth: LoadResult; baseline: LoadResult }[] = [];
  for (let r = 0; r < rounds; r++) {
    const hearth = await load(`${app.url}/api/v1/users/me/info`, token);
    const baseline = await load(`http://127.0.0.1:${bare.port}/`, null);
    runs.push({ hearth, baseline });
    console.error(
      `  round ${r + 1}: Hearth ${hearth.rps} req/s, ${hearth.server_cpu_us_per_request} µs CPU/req (p99 ${hearth.p99_ms} ms, ${hearth.errors} errors); ` +
        `bare ${baseline.rps} req/s, ${baseline.server_cpu_us_per_request} µs (p99 ${baseline.p99_ms} ms)`,
    );
  }
  await bare.stop(true);
  db.close();
  await app.stop();

  const rps = runs.map((x) => x.hearth.rps / x.baseline.rps);
  const cpu = runs.map((x) => x.hearth.server_cpu_us_per_request! / x.baseline.server_cpu_us_per_request!);
  const hearth = runs.find((x) => x.hearth.rps === median(runs.map((y) => y.hearth.rps)))!.hearth;
  const baseline = runs.find((x) => x.baseline.rps === median(runs.map((y) => y.baseline.rps)))!.baseline;
  const result = {
    bench: "rest-auth-read",
    seconds,
    concurrency,
    rounds,
    hearth,
    baseline,
    ratio_rps: r3(median(rps)),
    ratio_rps_range: [r3(Math.min(...rps)), r3(Math.max(...rps))],
    cpu_per_request_hearth_over_bare: r3(median(cpu)),
    cpu_ratio_range: [r3(Math.min(...cpu)), r3(Math.max(...cpu))],
    errors: runs.reduce((a, x) => a + x.hearth.errors + x.baseline.errors, 0),
    runs,
  };
  console.error(
    `rest-auth-read: req/s Hearth/bare median ${result.ratio_rps} (${result.ratio_rps_range.join("-")}) over ${rounds} alternating rounds; ` +
      `server CPU per request Hearth/bare ${result.cpu_per_request_hearth_over_bare} (${result.cpu_ratio_range.join("-")})`,
  );
  console.log(JSON.stringify(result));
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
