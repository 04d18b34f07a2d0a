/**
 * Deleting a big server (docs/servers.md, "Deleting a server"), on SQLite then PostgreSQL, in one
 * process each: a server of `--members` members (10,000) and `--messages` messages (100,000, in
 * five channels, a tenth of them with a reaction), built through the store's database. Measures
 *   answer     - ms until `DELETE /api/v1/servers/:id` answers;
 *   background - s until its job has deleted the last row;
 *   reads      - p50/p99 of a loop of page reads (`GET /api/v1/messages/:channelId?limit=50`, 4
 *                at a time) and of sends (one at a time) in another server while the job runs,
 *                against the same loops for as long with no job running (the baseline, same run).
 * Prints a human summary on stderr and one JSON line per store on stdout.
 *
 *   bun bench/deletes.ts [--quick] [--members 10000] [--messages 100000] [--batch-rows 1000] [--sqlite-only]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { apiFor, argOf, community, hasFlag, latency, log, ratio, register, startHearth, type Account, type Api } from "./fixture.ts";
import { createDatabase, postgresBinDir, startCluster } from "../scripts/pg-cluster.ts";
import type { App } from "../src/app.ts";

const QUICK = hasFlag("quick");
const MEMBERS = Number(argOf("members", QUICK ? "1000" : "10000"));
const MESSAGES = Number(argOf("messages", QUICK ? "10000" : "100000"));
const CHANNELS = 5;
const READERS = 4;
const BATCH_ROWS = Number(argOf("batch-rows", "1000"));

/** `count` rows of `insert` (an INSERT ... SELECT over n(i)), in one statement. */
async function generate(app: App, count: number, insert: string, ...params: (string | number)[]): Promise<void> {
  const db = app.store.db;
  const numbers = db.dialect.name === "sqlite" ? "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)" : "WITH n(i) AS (SELECT generate_series(1, ?1::int))";
  await db.run(db.prepare(`${numbers} ${insert}`), count, ...params);
}

/** The big server: members, channels, messages (a tenth with a reaction), read states. */
async function buildBigServer(app: App, api: Api, owner: Account): Promise<string> {
  const sqlite = app.store.db.dialect.name === "sqlite";
  const { serverId, channelId } = await community(app, api, owner);
  const channels = [channelId];
  while (channels.length < CHANNELS) channels.push((await api<{ id: string }>("POST", `/api/v1/channels/${serverId}`, { name: `c${channels.length}`, type: "text" }, owner.token)).id);
  const now = Math.floor(Date.now() / 1000);
  const member = (n: string) => (sqlite ? `printf('0190aaaa-0000-7000-8000-%012x', ${n})` : `'0190aaaa-0000-7000-8000-' || lpad(to_hex(${n}), 12, '0')`);
  await generate(app, MEMBERS, `INSERT INTO users (id, username, email, password_hash, is_bot, created_at, updated_at) SELECT ${member("i")}, 'm' || i, NULL, NULL, 0, ?2, ?2 FROM n`, now);
  await generate(app, MEMBERS, `INSERT INTO server_members (server_id, user_id, role, joined_at, username_lower) SELECT ?2, ${member("i")}, 'member', ?3, 'm' || i FROM n`, serverId, now);
  await app.store.db.run(app.store.db.prepare<unknown, [number, string]>("UPDATE servers SET member_count = member_count + ? WHERE id = ?"), MEMBERS, serverId);
  const perChannel = Math.floor(MESSAGES / CHANNELS);
  for (const [c, channel] of channels.entries()) {
    const messageId = (n: string) =>
      sqlite ? `printf('0190bb%02x-0000-7000-8000-%012x', ${c}, ${n})` : `'0190bb${c.toString(16).padStart(2, "0")}-0000-7000-8000-' || lpad(to_hex(${n}), 12, '0')`;
    await generate(app, perChannel, `INSERT INTO messages (id, channel_id, server_id, user_id, content, created_at) SELECT ${messageId("i")}, ?2, ?3, ${member(`1 + i % ${MEMBERS}`)}, 'message ' || i, ?4 FROM n`, channel, serverId, now);
    await generate(app, Math.floor(perChannel / 10), `INSERT INTO reactions (message_id, emoji, user_id, created_at) SELECT ${messageId("i * 10")}, 'x', ?2, ?3 FROM n`, owner.id, now);
    await generate(app, Math.min(MEMBERS, 2000), `INSERT INTO channel_read_states (user_id, channel_id, last_read_message_id, updated_at) SELECT ${member("i")}, ?2, NULL, ?3 FROM n`, channel, now);
  }
  return serverId;
}

interface Loops {
  stop(): Promise<{ reads: number[]; sends: number[] }>;
}

/** Page reads (READERS at a time) and sends (one at a time) in the small server until stopped. */
function startLoops(url: string, reader: Account, channelId: string): Loops {
  let running = true;
  const reads: number[] = [];
  const sends: number[] = [];
  const timed = async (into: number[], request: () => Promise<Response>) => {
    const t0 = performance.now();
    const res = await request();
    await res.arrayBuffer();
    if (res.status >= 300) throw new Error(`${res.status} during the loop`);
    into.push(performance.now() - t0);
  };
  const headers = { authorization: `Bearer ${reader.token}` };
  const page = () => fetch(`${url}/api/v1/messages/${channelId}?limit=50`, { headers });
  const send = () => fetch(`${url}/api/v1/messages/${channelId}`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: '{"content":"still here"}' });
  const loops = [
    ...Array.from({ length: READERS }, async () => {
      while (running) await timed(reads, page);
    }),
    (async () => {
      while (running) await timed(sends, send);
    })(),
  ];
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
      return { reads, sends };
    },
  };
}

const summary = (values: number[]) => {
  const l = latency(values);
  return { n: l.n, p50_ms: Math.round(l.p50_ms * 100) / 100, p99_ms: Math.round(l.p99_ms * 100) / 100, max_ms: Math.round(l.max_ms * 10) / 10 };
};

async function measure(store: "sqlite" | "postgres", dataDir: string, databaseUrl?: string) {
  const { app, api } = await startHearth(dataDir, { databaseUrl, deleteBatchRows: BATCH_ROWS });
  try {
    const owner = await register(api, `del_owner_${store}`);
    const reader = await register(api, `del_reader_${store}`);
    const t0 = performance.now();
    const bigId = await buildBigServer(app, api, owner);
    const small = await community(app, api, reader);
    for (let i = 0; i < 60; i++) await api("POST", `/api/v1/messages/${small.channelId}`, { content: `m${i}` }, reader.token);
    // The bulk rows' search index is built now (SQLite's FTS5 backlog), not by the first send during the measure.
    await app.store.messages.searchBacklog.index();
    log(`${store}: built ${MEMBERS.toLocaleString("en")} members and ${MESSAGES.toLocaleString("en")} messages in ${Math.round(performance.now() - t0)} ms`);
    // How long each batch holds the database (and, on SQLite, the event loop).
    const batchMs: number[] = [];
    const step = app.store.deletions.step.bind(app.store.deletions);
    app.store.deletions.step = async (job, limit) => {
      const s0 = performance.now();
      try {
        return await step(job, limit);
      } finally {
        batchMs.push(performance.now() - s0);
      }
    };

    const deleting = apiFor(app.url);
    const batchesBefore = app.domain.deletions.batches;
    const during = startLoops(app.url, reader, small.channelId);
    await Bun.sleep(200);
    const d0 = performance.now();
    await deleting("DELETE", `/api/v1/servers/${bigId}`, undefined, owner.token);
    const answerMs = performance.now() - d0;
    while ((await app.store.deletions.pending()).length > 0) await Bun.sleep(20);
    const backgroundMs = performance.now() - d0;
    const busy = await during.stop();
    const left = await app.store.db.get(app.store.db.prepare<{ n: number }, [string]>("SELECT count(*) AS n FROM messages WHERE server_id = ?"), bigId);
    if (Number(left?.n ?? 0) !== 0) throw new Error("messages left after the job");

    // The baseline: the same loops, for as long, with no job running.
    const idle = startLoops(app.url, reader, small.channelId);
    await Bun.sleep(Math.max(1000, backgroundMs));
    const quiet = await idle.stop();
    const result = {
      store,
      members: MEMBERS,
      messages: MESSAGES,
      batch_rows: app.domain.deletions.batchRows,
      batches: app.domain.deletions.batches - batchesBefore,
      batch_ms: summary(batchMs),
      delete_answer_ms: Math.round(answerMs * 10) / 10,
      background_s: Math.round(backgroundMs / 10) / 100,
      reads_during_job: summary(busy.reads),
      reads_no_job: summary(quiet.reads),
      sends_during_job: summary(busy.sends),
      sends_no_job: summary(quiet.sends),
      read_p99_ratio: ratio(latency(busy.reads).p99_ms, latency(quiet.reads).p99_ms),
    };
    log(
      `${store}: DELETE answered in ${result.delete_answer_ms} ms; ${result.batches} batches (p50 ${result.batch_ms.p50_ms}, max ${result.batch_ms.max_ms} ms) done in ${result.background_s} s; ` +
        `reads p99 ${result.reads_during_job.p99_ms} ms during the job vs ${result.reads_no_job.p99_ms} ms without (x${result.read_p99_ratio}); ` +
        `sends p99 ${result.sends_during_job.p99_ms} vs ${result.sends_no_job.p99_ms} ms`,
    );
    return result;
  } finally {
    await app.stop();
  }
}

const results: Record<string, unknown>[] = [];
const sqliteDir = mkdtempSync(join(tmpdir(), "hearth-bench-deletes-"));
try {
  results.push(await measure("sqlite", sqliteDir));
} finally {
  rmSync(sqliteDir, { recursive: true, force: true });
}
if (hasFlag("sqlite-only")) log("PostgreSQL: skipped (--sqlite-only)");
else if (!postgresBinDir()) log("PostgreSQL: skipped (not installed: apt-get install postgresql)");
else {
  const cluster = await startCluster({ settings: { fsync: "on", full_page_writes: "on" } });
  const pgDir = mkdtempSync(join(tmpdir(), "hearth-bench-deletes-pg-"));
  try {
    results.push(await measure("postgres", pgDir, await createDatabase(cluster.url, "hearth_bench_deletes")));
  } finally {
    await cluster.stop();
    rmSync(pgDir, { recursive: true, force: true });
  }
}
for (const result of results) console.log(JSON.stringify({ bench: "deletes", quick: QUICK, ...result }));
