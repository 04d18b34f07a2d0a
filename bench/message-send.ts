/**
 * REST message send and message page reads through the whole stack, against baselines
 * measured in the same run:
 *   send - POST /api/v1/messages/:channelId {content} with a user token (Elysia, JWT, body
 *          parse and validation, channel access and permission checks, the insert, hydrate,
 *          `message:new` publish, JSON) vs a bare Bun.serve handler that parses the JSON body
 *          and runs the same INSERT (same columns, same table, triggers and indexes: the
 *          database is a copy of Hearth's, made by Hearth's migrations) and the same read-back
 *          of the row in one transaction, with no framework, auth or validation.
 *   read - GET /api/v1/messages/:channelId?before=<id>&limit=50 (a full page of 50) vs a bare
 *          handler running the same keyset SELECT and answering the rows as JSON.
 * Hearth runs with a file database in a temp dir, logLevel silent. Load comes from separate
 * processes (bench/post-client.ts, bench/load-client.ts) so this process's CPU is the
 * server's; the read's client is bench/raw-load-client.ts (bench/load-client.ts's `fetch` runs
 * out of CPU before the servers do), and the
 * baseline is sent the same GET as Hearth. Then the same two loads run against Hearth on PostgreSQL (a throwaway cluster of
 * Debian's postgresql, scripts/pg-cluster.ts, with its default durability: fsync on), and the
 * PostgreSQL/SQLite ratios are printed; skipped, with a note, when PostgreSQL is not installed
 * or with --sqlite-only. Prints a human summary on stderr and one JSON line on stdout.
 *
 *   bun bench/message-send.ts [--seconds 5] [--concurrency 64] [--quick] [--sqlite-only]
 */
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteFile } from "../src/store/sqlite/sqlite-database.ts";
import { argOf, BARE_PAGE_SQL, community, hasFlag, log, ratio, register, servedIn, startHearth } from "./fixture.ts";
import { createDatabase, postgresBinDir, startCluster } from "../scripts/pg-cluster.ts";

const QUICK = hasFlag("quick");
const SECONDS = Number(argOf("seconds", QUICK ? "2" : "5"));
const CONCURRENCY = Number(argOf("concurrency", "64"));
/** Messages stored before the runs, so a page `before` one of them is full. */
const SEEDED = 500;
const PAGE = 50;

interface LoadResult {
  /** This process's CPU (it runs only the server under test) per request, in µs. */
  server_cpu_us_per_request?: number;
  requests: number;
  errors: number;
  statuses?: Record<string, number>;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  /** The raw client: requests the server answered, its warm-up included. */
  served?: number;
}

async function run(script: string, args: string[]): Promise<LoadResult> {
  const cpu0 = process.cpuUsage();
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, script), ...args], { stdout: "pipe", stderr: "inherit" });
  const out = await new Response(proc.stdout).text();
  if ((await proc.exited) !== 0) throw new Error(`${script} failed`);
  const cpu = process.cpuUsage(cpu0);
  const result = JSON.parse(out.trim().split("\n").at(-1)!) as LoadResult;
  result.server_cpu_us_per_request = Math.round(((cpu.user + cpu.system) / servedIn(result, CONCURRENCY)) * 10) / 10;
  return result;
}
const sendLoad = (url: string, token: string) =>
  run("post-client.ts", [url, String(SECONDS), String(CONCURRENCY), token, JSON.stringify({ content: "bench message {seq}" })]);
const readLoad = (url: string, token: string) => run("raw-load-client.ts", [url, String(SECONDS), String(CONCURRENCY), token]);

/** A user, a server, its general channel and SEEDED messages on `overrides`' database; the id to page before. */
async function setup(dir: string, overrides: Parameters<typeof startHearth>[1] = {}) {
  const { app, api } = await startHearth(dir, overrides);
  const user = await register(api, "bench");
  const { serverId, channelId } = await community(app, api, user);
  const seeded: string[] = [];
  for (let i = 0; i < SEEDED; i++) {
    const row = await app.store.messages.insert({ channelId, serverId, userId: user.id, content: `seed ${i}`, embeds: "[]", replyTo: null });
    seeded.push(row.id);
  }
  await app.stop();
  return { user, serverId, channelId, before: seeded[SEEDED - 100]! }; // 399 older messages: a full page
}

/** Hearth's send and page loads on the database `overrides` name (after `setup` on it). */
async function measure(dir: string, overrides: Parameters<typeof startHearth>[1], s: Awaited<ReturnType<typeof setup>>) {
  const { app } = await startHearth(dir, overrides);
  const send = await sendLoad(`${app.url}/api/v1/messages/${s.channelId}`, s.user.token);
  const read = await readLoad(`${app.url}/api/v1/messages/${s.channelId}?before=${s.before}&limit=${PAGE}`, s.user.token);
  const stored = (await app.store.messages.page(s.channelId, null, 1))[0];
  await app.stop();
  if (!stored?.content.startsWith("bench message")) log("  warning: Hearth's newest message is not one of the bench's");
  return { send, read };
}

const dataDir = mkdtempSync(join(tmpdir(), "hearth-bench-messages-"));
try {
  const { user, serverId, channelId, before } = await setup(dataDir);
  // The baseline starts from the same database as Hearth does.
  const baselineFile = join(dataDir, "baseline.db");
  copyFileSync(join(dataDir, "hearth.db"), baselineFile);

  const { send: hearthSend, read: hearthRead } = await measure(dataDir, {}, { user, serverId, channelId, before });

  // Baseline: the same statements on the copy, behind a bare Bun.serve.
  const db = openSqliteFile(baselineFile);
  const insert = db.prepare(
    `INSERT INTO messages (id, channel_id, server_id, user_id, content, embeds, reply_to, webhook_id, webhook_username, webhook_avatar, created_at)
     VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, NULL, NULL, ?)`,
  );
  const byId = db.prepare("SELECT m.*, u.username, u.avatar, u.is_bot FROM messages m JOIN users u ON u.id = m.user_id WHERE m.id = ?");
  const page = db.prepare(BARE_PAGE_SQL);
  const send = db.transaction((content: string) => {
    const id = Bun.randomUUIDv7();
    insert.run(id, channelId, serverId, user.id, content, "[]", Math.floor(Date.now() / 1000));
    return byId.get(id);
  });
  const bare = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      if (req.method === "POST") {
        const { content } = (await req.json()) as { content: string };
        return Response.json(send(content), { status: 201 });
      }
      return Response.json(page.all(channelId, before, PAGE));
    },
  });
  const baseUrl = `http://127.0.0.1:${bare.port}`;
  const baselineSend = await sendLoad(`${baseUrl}/send`, "");
  const baselineRead = await readLoad(`${baseUrl}/api/v1/messages/${channelId}?before=${before}&limit=${PAGE}`, user.token);
  await bare.stop(true);
  db.close();

  // The same loads on PostgreSQL, in the same run.
  let postgres: { send: LoadResult; read: LoadResult; ratio: Record<string, number> } | { skipped: string };
  if (hasFlag("sqlite-only")) postgres = { skipped: "--sqlite-only" };
  else if (!postgresBinDir()) postgres = { skipped: "PostgreSQL is not installed (apt-get install postgresql)" };
  else {
    const cluster = await startCluster({ settings: { fsync: "on", full_page_writes: "on" } });
    const pgDir = mkdtempSync(join(tmpdir(), "hearth-bench-messages-pg-"));
    try {
      const databaseUrl = await createDatabase(cluster.url, "hearth_bench");
      const seeded = await setup(pgDir, { databaseUrl });
      const { send, read } = await measure(pgDir, { databaseUrl }, seeded);
      postgres = {
        send,
        read,
        ratio: {
          send_rps: ratio(send.rps, hearthSend.rps),
          send_cpu: ratio(send.server_cpu_us_per_request!, hearthSend.server_cpu_us_per_request!),
          read_rps: ratio(read.rps, hearthRead.rps),
          read_cpu: ratio(read.server_cpu_us_per_request!, hearthRead.server_cpu_us_per_request!),
        },
      };
    } finally {
      await cluster.stop();
      rmSync(pgDir, { recursive: true, force: true });
    }
  }

  const result = {
    bench: "message-send",
    quick: QUICK,
    seconds: SECONDS,
    concurrency: CONCURRENCY,
    send: {
      hearth: hearthSend,
      baseline: baselineSend,
      ratio_rps: ratio(hearthSend.rps, baselineSend.rps),
      ratio_cpu: ratio(hearthSend.server_cpu_us_per_request!, baselineSend.server_cpu_us_per_request!),
    },
    read: {
      hearth: hearthRead,
      baseline: baselineRead,
      ratio_rps: ratio(hearthRead.rps, baselineRead.rps),
      ratio_cpu: ratio(hearthRead.server_cpu_us_per_request!, baselineRead.server_cpu_us_per_request!),
    },
    postgres,
  };
  const line = (what: string, h: LoadResult, b: LoadResult, r: { ratio_rps: number; ratio_cpu: number }) =>
    `  ${what}: Hearth ${h.rps} req/s (p50 ${h.p50_ms} ms, p99 ${h.p99_ms} ms, ${h.server_cpu_us_per_request} µs server CPU each, ` +
    `${h.errors} errors${h.statuses ? ` ${JSON.stringify(h.statuses)}` : ""}), ` +
    `bare ${b.rps} req/s (p50 ${b.p50_ms} ms, p99 ${b.p99_ms} ms, ${b.server_cpu_us_per_request} µs, ${b.errors} errors): ` +
    `ratio req/s ${r.ratio_rps}, CPU per request ${r.ratio_cpu}`;
  log(`message-send (${SECONDS} s, ${CONCURRENCY} concurrent):`);
  log(line("send", hearthSend, baselineSend, result.send));
  log(line(`read page of ${PAGE}`, hearthRead, baselineRead, result.read));
  if ("skipped" in postgres) log(`  PostgreSQL: skipped (${postgres.skipped})`);
  else {
    const pg = (what: string, h: LoadResult, rps: number, cpu: number) =>
      `  PostgreSQL ${what}: ${h.rps} req/s (p50 ${h.p50_ms} ms, p99 ${h.p99_ms} ms, ${h.server_cpu_us_per_request} µs Hearth CPU each, ` +
      `${h.errors} errors): PostgreSQL/SQLite req/s ${rps}, Hearth CPU per request ${cpu}`;
    log(pg("send", postgres.send, postgres.ratio.send_rps!, postgres.ratio.send_cpu!));
    log(pg(`read page of ${PAGE}`, postgres.read, postgres.ratio.read_rps!, postgres.ratio.read_cpu!));
  }
  console.log(JSON.stringify(result));
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
