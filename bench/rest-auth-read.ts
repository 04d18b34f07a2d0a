/**
 * Authenticated REST reads through the whole stack against a baseline measured in the same run.
 *
 *   --read me (default): GET /api/v1/users/me/info (JWT, token version, JSON) against a bare
 *     Bun.serve handler doing the same SQLite primary-key read with no framework and no auth,
 *     answering the same thirteen fields.
 *   --read page: GET /api/v1/messages/:channelId?before=<id>&limit=50 (auth, channel access and
 *     permission bits, the keyset page, attachments, hydrate, JSON) against a bare handler
 *     running the same keyset SELECT and answering the rows (as bench/message-send.ts's read).
 *
 * Paths: `hearth` (the app as configured, every route through Elysia) and `bare`, on the same
 * database file, each sent the same request (path, query, bearer token).
 *
 * Load comes from a separate process so the server's CPU is its own ("server CPU" is
 * `process.cpuUsage()` of this process, which runs only the servers; the loaded one alone is busy).
 *
 *   bun bench/rest-auth-read.ts [--read me|page] [--seconds 5] [--concurrency 32] [--rounds 3] [--client raw|fetch]
 *     Closed loop: rounds alternate the paths; the ratios are the medians (and ranges) over the
 *     rounds, of req/s and of the server's CPU per request. `--client raw` (the default,
 *     bench/raw-load-client.ts) costs a few µs a request, so the server is what saturates and
 *     req/s is each server's capacity; `--client fetch` (bench/load-client.ts) spends more CPU
 *     than a fast server, so its req/s is partly the client's.
 *   bun bench/rest-auth-read.ts --capacity [--read me|page] [--start 2000] [--step-seconds 2] [--p99-ms 50] [--client raw|fetch]
 *     Each path's capacity (bench/capacity-search.ts): open-loop GETs at an offered rate
 *     (`--client raw`, the default: bench/raw-rate-client.ts, prepared
 *     requests pipelined on keep-alive sockets; `--client fetch`: bench/rate-client.ts, which
 *     tops out below the servers here) rising by 1.5x until a step falls behind (under 99%
 *     answered, or p99 over the bound), the paths taking turns at every step; and the server
 *     CPU per request at each offered load both kept up at.
 *
 * Prints a human summary on stderr and one JSON line on stdout.
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { argOf, BARE_PAGE_SQL, community, hasFlag, log, register, runLoadClient, servedIn, startHearth, type LoadClient, type LoadResult as FixtureLoad } from "./fixture.ts";
import { medianRange } from "./quantile.ts";
import { CAP_START, STEP_SECONDS, capacityFields, capacityRatio, capacitySearch, capacitySteps, cpuRatioAtCommonLoads, loadAverage, maxInFlight, ratioText, stepOf, type Path, type Step } from "./capacity-search.ts";

const READ = argOf("read", "me");
if (READ !== "me" && READ !== "page") throw new Error("--read me|page");
const seconds = Number(argOf("seconds", "5"));
const concurrency = Number(argOf("concurrency", "32"));
const rounds = Number(argOf("rounds", "3"));
const CAPACITY = hasFlag("capacity");
const CLIENT = argOf("client", "raw") as LoadClient;
if (CLIENT !== "raw" && CLIENT !== "fetch") throw new Error("--client raw|fetch");
/** Messages seeded for the page read: a page `before` one of them is full. */
const SEEDED = 500;
const PAGE = 50;

type LoadResult = FixtureLoad & {
  /** CPU of this process (which runs only the servers; the loaded one alone is busy) per request. */
  server_cpu_us_per_request?: number;
};

async function load(url: string, token: string): Promise<LoadResult> {
  const { result, cpu_us } = await runLoadClient(url, token, seconds, concurrency, CLIENT);
  return { ...result, server_cpu_us_per_request: Math.round((cpu_us / servedIn(result, concurrency)) * 10) / 10 };
}

/** One capacity step: `offered` requests/s for STEP_SECONDS from the open-loop client (raw-rate-client.ts or rate-client.ts). */
async function rateStep(url: string, token: string, offered: number): Promise<Step> {
  const cpu0 = process.cpuUsage();
  const proc = Bun.spawn(
    [process.execPath, join(import.meta.dir, CLIENT === "raw" ? "raw-rate-client.ts" : "rate-client.ts"), url, String(STEP_SECONDS), String(Math.round(offered)), String(maxInFlight(offered)), token],
    { stdout: "pipe", stderr: "inherit" },
  );
  const out = await new Response(proc.stdout).text();
  if ((await proc.exited) !== 0) throw new Error("rate client failed");
  const cpu = process.cpuUsage(cpu0);
  const r = JSON.parse(out.trim().split("\n").at(-1)!) as { offered: number; completed: number; errors: number; dropped: number; warm_up: number; p99_ms: number };
  const cpuUs = Math.round(((cpu.user + cpu.system) / Math.max(1, r.completed + r.warm_up)) * 10) / 10;
  return stepOf(offered, r.completed, r.offered, r.completed / STEP_SECONDS, r.p99_ms, cpuUs, r.errors);
}

const dataDir = mkdtempSync(join(tmpdir(), "hearth-bench-"));
try {
  // Hearth, with a file database as in production.
  const { app, api } = await startHearth(dataDir);
  const user = await register(api, "bench");
  const db = new Database(join(dataDir, "hearth.db"));
  let path: string;
  let bareAnswer: () => Response;
  if (READ === "me") {
    path = "/api/v1/users/me/info";
    // Baseline: the same row read from the same file (a second connection), straight into JSON:
    // the me answer's thirteen fields (its three flags as SQL expressions, 0/1 for false/true).
    const read = db.prepare(
      "SELECT id, username, COALESCE(email, '') AS email, avatar, banner, banner_offset, bio, status, is_bot, totp_secret IS NOT NULL AS two_factor_enabled, " +
        "premium = 1 AS premium, (platform_admin = 1 AND is_bot = 0) AS platform_admin, created_at FROM users WHERE id = ?",
    );
    bareAnswer = () => Response.json(read.get(user.id));
  } else {
    const { serverId, channelId } = await community(app, api, user);
    const seeded: string[] = [];
    for (let i = 0; i < SEEDED; i++) seeded.push((await app.store.messages.insert({ channelId, serverId, userId: user.id, content: `seed ${i}`, embeds: "[]", replyTo: null })).id);
    const before = seeded[SEEDED - 100]!; // 399 older messages: a full page
    path = `/api/v1/messages/${channelId}?before=${before}&limit=${PAGE}`;
    // Baseline: message-send.ts's bare read, the same keyset SELECT answered as JSON.
    const page = db.prepare(BARE_PAGE_SQL);
    bareAnswer = () => Response.json(page.all(channelId, before, PAGE));
  }
  const bare = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => bareAnswer() });
  // Every path is sent the same request (path, query and bearer token): the baseline ignores them.
  const targets = { hearth: [`${app.url}${path}`, user.token], bare: [`http://127.0.0.1:${bare.port}${path}`, user.token] } as const;
  type Mode = keyof typeof targets;
  const modes = Object.keys(targets) as Mode[];
  const headers = { authorization: `Bearer ${user.token}` };
  const sizes: string[] = [];
  for (const mode of modes) {
    const res = await fetch(targets[mode][0], { headers });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`${mode}: ${res.status} ${body}`);
    sizes.push(`${mode} ${body.length} B`);
  }
  log(`rest-auth-read ${READ}: answers ${sizes.join(", ")}`);
  // Warm-up (JIT), not counted: a thousand requests per path.
  for (const mode of modes) {
    for (let i = 0; i < 50; i++) await Promise.all(Array.from({ length: 20 }, () => fetch(targets[mode][0], { headers }).then((r) => r.arrayBuffer())));
  }

  let result: Record<string, unknown>;
  if (CAPACITY) {
    const paths: Path[] = modes.map((mode) => ({ mode, use: () => {}, step: (offered: number) => rateStep(targets[mode][0], targets[mode][1], offered) }));
    const results = await capacitySearch(paths, `${READ} read`);
    const fields = capacityFields(results);
    // CPU per request at the offered loads both paths kept up at (every round's steps).
    const hearthCpu = cpuRatioAtCommonLoads(results, "hearth", "bare");
    result = {
      bench: "rest-auth-read",
      read: READ,
      mode: "capacity",
      client: CLIENT,
      start: CAP_START,
      ...fields,
      load_average: loadAverage(),
      hearth_over_bare: capacityRatio(results, "hearth", "bare"),
      cpu_per_request_over_bare: { hearth: hearthCpu.ratio, at_offered: hearthCpu.at_offered },
      steps: capacitySteps(results),
    };
    log(
      `rest-auth-read ${READ} capacity: hearth ${fields.hearth_capacity}/s, bare ${fields.bare_capacity}/s; ` +
        `hearth/bare ${ratioText(capacityRatio(results, "hearth", "bare"))}; server CPU per request over bare at the same offered load: ` +
        `hearth ${hearthCpu.ratio} (${hearthCpu.at_offered.length} common loads)`,
    );
  } else {
    // Rounds alternate the paths, so the shared machine's slow moments fall on each; the order
    // turns by one each round, so no path is always first (or always next to the baseline).
    const runs: Record<Mode, LoadResult>[] = [];
    for (let r = 0; r < rounds; r++) {
      const round = {} as Record<Mode, LoadResult>;
      for (let i = 0; i < modes.length; i++) {
        const mode = modes[(r + i) % modes.length]!;
        round[mode] = await load(targets[mode][0], targets[mode][1]);
      }
      runs.push(round);
      log(`  round ${r + 1}: ` + modes.map((m) => `${m} ${round[m].rps} req/s, ${round[m].server_cpu_us_per_request} µs CPU/req (p99 ${round[m].p99_ms} ms, ${round[m].errors} errors)`).join("; "));
    }
    const ratios = (mode: Mode) => {
      const rps = runs.map((x) => x[mode].rps / x.bare.rps);
      const cpu = runs.map((x) => x[mode].server_cpu_us_per_request! / x.bare.server_cpu_us_per_request!);
      const r = medianRange(rps);
      const c = medianRange(cpu);
      return { ratio_rps: r.median, ratio_rps_range: r.range, cpu_over_bare: c.median, cpu_range: c.range };
    };
    const hearth = ratios("hearth");
    result = {
      bench: "rest-auth-read",
      read: READ,
      client: CLIENT,
      seconds,
      concurrency,
      rounds,
      ratio_rps: hearth.ratio_rps,
      ratio_rps_range: hearth.ratio_rps_range,
      cpu_per_request_hearth_over_bare: hearth.cpu_over_bare,
      cpu_ratio_range: hearth.cpu_range,
      errors: runs.reduce((a, x) => a + modes.reduce((b, m) => b + x[m].errors, 0), 0),
      runs,
    };
    log(
      `rest-auth-read ${READ} (${CLIENT} client): req/s over bare, median (range) over ${rounds} alternating rounds: hearth ${hearth.ratio_rps} (${hearth.ratio_rps_range.join("-")}); ` +
        `server CPU per request over bare: hearth ${hearth.cpu_over_bare} (${hearth.cpu_range.join("-")})`,
    );
  }
  await bare.stop(true);
  db.close();
  await app.stop();
  console.log(JSON.stringify(result));
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
