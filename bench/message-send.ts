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
 * server's. Prints a human summary on stderr and one JSON line on stdout.
 *
 *   bun bench/message-send.ts [--seconds 5] [--concurrency 64] [--quick]
 */
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteFile } from "../src/store/sqlite/sqlite-database.ts";
import { argOf, community, hasFlag, log, ratio, register, startHearth } from "./fixture.ts";

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
}

async function run(script: string, args: string[]): Promise<LoadResult> {
  const cpu0 = process.cpuUsage();
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, script), ...args], { stdout: "pipe", stderr: "inherit" });
  const out = await new Response(proc.stdout).text();
  if ((await proc.exited) !== 0) throw new Error(`${script} failed`);
  const cpu = process.cpuUsage(cpu0);
  const result = JSON.parse(out.trim().split("\n").at(-1)!) as LoadResult;
  // Includes the client's warm-up requests (`concurrency` of them) in the count.
  result.server_cpu_us_per_request = Math.round((cpu.user + cpu.system) / (result.requests + CONCURRENCY));
  return result;
}
const sendLoad = (url: string, token: string) =>
  run("post-client.ts", [url, String(SECONDS), String(CONCURRENCY), token, JSON.stringify({ content: "bench message {seq}" })]);
const readLoad = (url: string, token: string) => run("load-client.ts", [url, String(SECONDS), String(CONCURRENCY), token]);

const dataDir = mkdtempSync(join(tmpdir(), "hearth-bench-messages-"));
try {
  // Setup: a user, a server, its general channel, SEEDED messages.
  let { app, api } = await startHearth(dataDir);
  const user = await register(api, "bench");
  const { serverId, channelId } = await community(app, api, user);
  const seeded: string[] = [];
  for (let i = 0; i < SEEDED; i++) {
    const row = await app.store.messages.insert({ channelId, serverId, userId: user.id, content: `seed ${i}`, embeds: "[]", replyTo: null });
    seeded.push(row.id);
  }
  const before = seeded[SEEDED - 100]!; // 399 older messages: a full page
  await app.stop();
  // The baseline starts from the same database as Hearth does.
  const baselineFile = join(dataDir, "baseline.db");
  copyFileSync(join(dataDir, "hearth.db"), baselineFile);

  ({ app, api } = await startHearth(dataDir));
  const hearthSend = await sendLoad(`${app.url}/api/v1/messages/${channelId}`, user.token);
  const hearthRead = await readLoad(`${app.url}/api/v1/messages/${channelId}?before=${before}&limit=${PAGE}`, user.token);
  const stored = (await app.store.messages.page(channelId, null, 1))[0];
  await app.stop();

  // Baseline: the same statements on the copy, behind a bare Bun.serve.
  const db = openSqliteFile(baselineFile);
  const insert = db.prepare(
    `INSERT INTO messages (id, channel_id, server_id, user_id, content, embeds, reply_to, webhook_id, webhook_username, webhook_avatar, created_at)
     VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, NULL, NULL, ?)`,
  );
  const SELECT = "SELECT m.*, u.username, u.avatar, u.is_bot FROM messages m JOIN users u ON u.id = m.user_id";
  const byId = db.prepare(`${SELECT} WHERE m.id = ?`);
  const page = db.prepare(`${SELECT} WHERE m.channel_id = ? AND m.id < ? ORDER BY m.id DESC LIMIT ?`);
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
  const baselineRead = await readLoad(`${baseUrl}/page`, "");
  await bare.stop(true);
  db.close();

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
  };
  const line = (what: string, h: LoadResult, b: LoadResult, r: { ratio_rps: number; ratio_cpu: number }) =>
    `  ${what}: Hearth ${h.rps} req/s (p50 ${h.p50_ms} ms, p99 ${h.p99_ms} ms, ${h.server_cpu_us_per_request} µs server CPU each, ` +
    `${h.errors} errors${h.statuses ? ` ${JSON.stringify(h.statuses)}` : ""}), ` +
    `bare ${b.rps} req/s (p50 ${b.p50_ms} ms, p99 ${b.p99_ms} ms, ${b.server_cpu_us_per_request} µs, ${b.errors} errors): ` +
    `ratio req/s ${r.ratio_rps}, CPU per request ${r.ratio_cpu}`;
  log(`message-send (${SECONDS} s, ${CONCURRENCY} concurrent):`);
  log(line("send", hearthSend, baselineSend, result.send));
  log(line(`read page of ${PAGE}`, hearthRead, baselineRead, result.read));
  if (!stored?.content.startsWith("bench message")) log("  warning: Hearth's newest message is not one of the bench's");
  console.log(JSON.stringify(result));
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
