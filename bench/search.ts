/**
 * Message search at scale (issue 42, point 6; bench/README.md "Search"): one channel of N
 * messages, built through the store's database (one INSERT ... SELECT of generated rows in one
 * transaction, then SQLite's search backlog indexed in one statement), and the store's two
 * newest-first searches timed one call at a time: the channel's (`MessagesRepo.search`) and the
 * server's (`MessagesRepo.searchChannels`, the server's every channel). Words:
 *
 * - `pct20`: "alpha", in every fifth message;
 * - `common`: "hearth", in every message (the most common word there is);
 * - `pct1`: "beta", in one message of a hundred;
 * - `rare`: "zyzzyva", in ten messages spread over the channel;
 * - `old`: "ancient", in the oldest 1% only (a newest-first search finds nothing new);
 * - `two_words`: "alpha w7" (every word required), in one message of 485 (w7: i % 97 = 7).
 *
 * The baseline is the channel's page of the 25 newest messages (`MessagesRepo.page`), read in the
 * same run. On PostgreSQL the pool has one connection and every query is run more than five times
 * before it is timed, so the figures are those of a connection's sixth call on (where a prepared
 * statement may have switched to its generic plan).
 *
 *   bun bench/search.ts [--quick] [--sizes 10000,100000,1000000] [--stores sqlite,postgres] [--reps 30]
 *
 * `--quick`: 100,000 messages, 10 repetitions (`bench:quick`); default 1,000,000, 30. The built
 * databases are cached under the temp folder keyed by N and the migrations' text (SQLite: the
 * file; PostgreSQL: a kept cluster folder), so a rerun starts at once. Prints a summary on stderr
 * and one JSON line per store, size and query on stdout: median and p99 ms, the median over the
 * page's (`vs_page`), and how the timed searches were answered (`answered`: the ways of
 * `MessageSearch.answers`, src/store/message-search.ts).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_EVERYONE_PERMISSIONS } from "../src/domain/access/permission-bits.ts";
import { createDatabase, postgresBinDir, startCluster, type Cluster } from "../scripts/pg-cluster.ts";
import { createStore, type Store } from "../src/store/store.ts";
import { argOf, hasFlag, log, pct } from "./fixture.ts";

const QUICK = hasFlag("quick");
const SIZES = argOf("sizes", QUICK ? "100000" : "1000000").split(",").map(Number);
const STORES = argOf("stores", "sqlite,postgres").split(",") as ("sqlite" | "postgres")[];
const REPS = Number(argOf("reps", QUICK ? "10" : "30"));
/** Calls before the timed ones: past PostgreSQL's five custom plans of a prepared statement. */
const WARMUP = 7;
const LIMIT = 25;
/** The recipe of the built database; bump it when build() changes, so caches are rebuilt. */
const FIXTURE_VERSION = 1;
const SECRETS_KEY = new Uint8Array(32).fill(7);

const QUERIES: { name: string; words: string[]; server?: boolean }[] = [
  { name: "pct20", words: ["alpha"] },
  { name: "common", words: ["hearth"] },
  { name: "pct1", words: ["beta"] },
  { name: "rare", words: ["zyzzyva"] },
  { name: "old", words: ["ancient"] },
  { name: "two_words", words: ["alpha", "w7"] },
  { name: "server_pct20", words: ["alpha"], server: true },
  { name: "server_common", words: ["hearth"], server: true },
  { name: "server_rare", words: ["zyzzyva"], server: true },
];

interface Fixture {
  serverId: string;
  channelIds: string[];
  messages: number;
}

const cacheRoot = join(tmpdir(), `hearth-search-${cacheKey()}`);

function cacheKey(): string {
  const hash = createHash("sha256").update(String(FIXTURE_VERSION));
  for (const store of ["sqlite", "postgres"]) hash.update(readFileSync(join(import.meta.dir, "..", "src", "store", store, "migrations.ts")));
  return hash.digest("hex").slice(0, 12);
}

/** The message ids of the build: older than any UUIDv7 of today, in insertion order. */
const ID_PREFIX = "018f0000-0000-7000-8000-";

/** One server, one channel of `count` messages (and two empty ones), ten authors. */
async function build(store: Store, count: number): Promise<Fixture> {
  const t0 = performance.now();
  const authors: string[] = [];
  for (let i = 0; i < 10; i++) {
    const made = await store.users.create({ username: `author_${i}`, email: `author_${i}@bench.test`, passwordHash: "x", isBot: false });
    if (!made.ok) throw new Error("user");
    authors.push(made.user.id);
  }
  const server = await store.servers.create(
    { ownerId: authors[0]!, name: "search", description: "", everyonePermissions: DEFAULT_EVERYONE_PERMISSIONS, primaryInviteCode: `search${count}` },
    Number.POSITIVE_INFINITY,
  );
  if (!server) throw new Error("server");
  const channelIds: string[] = [];
  for (let i = 0; i < 3; i++) {
    const channel = await store.channels.create(
      { serverId: server.id, name: `channel-${i}`, type: "text", categoryId: null, topic: null, slowmode: 0, nsfw: false, isMeeting: false, chatEnabled: true },
      Number.POSITIVE_INFINITY,
    );
    if (!channel) throw new Error("channel");
    channelIds.push(channel.id);
  }
  const db = store.db;
  const sqlite = db.dialect.name === "sqlite";
  const int = (param: string) => (sqlite ? param : `${param}::int`);
  const numbers = sqlite ? "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)" : "WITH n(i) AS (SELECT generate_series(1, ?1::int))";
  const hex = (what: string) => (sqlite ? `printf('%012x', ${what})` : `lpad(to_hex(${what}), 12, '0')`);
  const text = (what: string) => (sqlite ? `(${what})` : `(${what})::text`);
  const word = (condition: string, w: string) => `CASE WHEN ${condition} THEN ' ${w}' ELSE '' END`;
  const rareEvery = Math.max(1, Math.floor(count / 10));
  const content = [
    `'message ' || ${text("i")} || ' w' || ${text("i % 97")}`,
    word("i % 5 = 0", "alpha"),
    word("i % 100 = 7", "beta"),
    word(`i % ${int("?5")} = 3`, "zyzzyva"),
    word(`i <= ${int("?1")} / 100`, "ancient"),
    "' hearth'",
  ].join(" || ");
  const authorList = sqlite ? `json_extract(?6, '$[' || (i % 10) || ']')` : `(CAST(?6 AS text[]))[(i % 10) + 1]`;
  const insert = db.prepare<unknown, [number, string, string, number, number, unknown]>(
    `${numbers} INSERT INTO messages (id, channel_id, server_id, user_id, content, created_at)
     SELECT '${ID_PREFIX}' || ${hex("i")}, ?2, ?3, ${authorList}, ${content}, ${sqlite ? "?4 - ?1 + i" : "?4::bigint - ?1::int + i"} FROM n`,
  );
  const now = Math.floor(Date.now() / 1000);
  const authorParam = sqlite ? JSON.stringify(authors) : authors;
  await db.transaction(async (tx) => {
    if (sqlite) return void (await tx.run(insert, count, channelIds[0]!, server.id, now, rareEvery, authorParam));
    // PostgreSQL: the per-row triggers (the message counter, the channel's last message) update
    // one row each per message, and a row updated a million times in one transaction costs
    // O(n^2); they are off for the INSERT (as in test/store/query-plans.test.ts) and their two
    // rows written once after it.
    await tx.exec("SET LOCAL session_replication_role = replica");
    await tx.run(insert, count, channelIds[0]!, server.id, now, rareEvery, authorParam);
    await tx.exec("SET LOCAL session_replication_role = origin");
    await tx.run(db.prepare<unknown, [number]>("UPDATE platform_counters SET value = value + CAST(? AS bigint) WHERE name = 'messages'"), count);
    await tx.run(
      db.prepare<unknown, [string, string]>(
        `INSERT INTO channel_last_messages (channel_id, last_message_id) VALUES (?1, ?2)
         ON CONFLICT (channel_id) DO UPDATE SET last_message_id = excluded.last_message_id`,
      ),
      channelIds[0]!,
      ID_PREFIX + count.toString(16).padStart(12, "0"),
    );
  });
  const inserted = performance.now();
  // SQLite: the INSERT left every message in the search backlog; one statement indexes it.
  await store.messages.searchBacklog.index();
  // PostgreSQL: the statistics autovacuum would gather after such an insert.
  if (!sqlite) await db.exec("VACUUM ANALYZE messages");
  log(`  built ${count.toLocaleString("en")} messages: insert ${Math.round(inserted - t0)} ms, index ${Math.round(performance.now() - inserted)} ms`);
  return { serverId: server.id, channelIds, messages: count };
}

/** The store on the cached database of `count` messages for `kind`: built on first use. */
async function withFixture<T>(kind: "sqlite" | "postgres", count: number, run: (store: Store, fixture: Fixture) => Promise<T>): Promise<T> {
  const dir = join(cacheRoot, `${kind}-${count}`);
  const marker = join(dir, "fixture.json");
  mkdirSync(dir, { recursive: true });
  let cluster: Cluster | null = null;
  try {
    let location = join(dir, "hearth.db");
    if (kind === "postgres") {
      cluster = await startCluster({ dir: join(dir, "cluster") });
      if (!existsSync(marker)) await createDatabase(cluster.url, "hearth").catch(() => undefined);
      // One connection: every call after the warm-up is at least that connection's sixth.
      location = `${cluster.url}/hearth?max=1`;
    }
    const store = await createStore(location, SECRETS_KEY);
    try {
      let fixture = existsSync(marker) ? (JSON.parse(readFileSync(marker, "utf8")) as Fixture) : null;
      if (!fixture) {
        fixture = await build(store, count);
        writeFileSync(marker, JSON.stringify(fixture));
      }
      return await run(store, fixture);
    } finally {
      await store.close();
    }
  } finally {
    await cluster?.stop();
  }
}

interface Measured {
  query: string;
  words: string[];
  scope: "channel" | "server" | "page";
  samples: number[];
  results: number;
  /** How the timed searches were answered (src/store/message-search.ts `SearchAnswer`). */
  answered: string;
}

async function timed(store: Store, query: string, words: string[], scope: Measured["scope"], call: () => Promise<unknown[]>): Promise<Measured> {
  let results = 0;
  for (let i = 0; i < WARMUP; i++) results = (await call()).length;
  const before = { ...store.messages.searcher.answers };
  const samples: number[] = [];
  for (let i = 0; i < REPS; i++) {
    const t0 = performance.now();
    await call();
    samples.push(performance.now() - t0);
  }
  const after = store.messages.searcher.answers;
  const answered = (Object.keys(after) as (keyof typeof after)[]).filter((k) => after[k] > before[k]).join("+");
  return { query, words, scope, samples, results, answered };
}

async function measure(store: Store, fixture: Fixture): Promise<Measured[]> {
  const channel = fixture.channelIds[0]!;
  const out: Measured[] = [await timed(store, "page", [], "page", () => store.messages.page(channel, null, LIMIT))];
  for (const q of QUERIES) {
    out.push(
      await timed(store, q.name, q.words, q.server ? "server" : "channel", () =>
        q.server ? store.messages.searchChannels(fixture.channelIds, q.words, LIMIT) : store.messages.search(channel, q.words, LIMIT),
      ),
    );
  }
  return out;
}

interface Line {
  bench: "search";
  store: string;
  messages: number;
  query: string;
  words: string;
  scope: Measured["scope"];
  limit: number;
  results: number;
  answered: string;
  reps: number;
  median_ms: number;
  p99_ms: number;
  /** The median over the newest page's. */
  vs_page: number;
}

const lines: Line[] = [];
for (const kind of STORES) {
  if (kind === "postgres" && !postgresBinDir()) {
    log("PostgreSQL: skipped (not installed: apt-get install postgresql)");
    continue;
  }
  for (const count of SIZES) {
    log(`${kind}, ${count.toLocaleString("en")} messages`);
    const measured = await withFixture(kind, count, measure);
    const page = pct(measured[0]!.samples.slice().sort((a, b) => a - b), 0.5);
    for (const m of measured) {
      const sorted = m.samples.slice().sort((a, b) => a - b);
      const median = pct(sorted, 0.5);
      const line: Line = {
        bench: "search",
        store: kind,
        messages: count,
        query: m.query,
        words: m.words.join(" "),
        scope: m.scope,
        limit: LIMIT,
        results: m.results,
        answered: m.answered,
        reps: sorted.length,
        median_ms: median,
        p99_ms: pct(sorted, 0.99),
        vs_page: Math.round((median / page) * 10) / 10,
      };
      lines.push(line);
      console.log(JSON.stringify(line));
    }
  }
}

log(`\nmedian ms (p99) at ${SIZES.map((n) => n.toLocaleString("en")).join(" / ")} messages`);
for (const kind of new Set(lines.map((l) => l.store))) {
  for (const query of new Set(lines.filter((l) => l.store === kind).map((l) => l.query))) {
    const rows = lines.filter((l) => l.store === kind && l.query === query);
    log(`${kind.padEnd(8)} ${query.padEnd(14)} ${rows.map((r) => `${r.median_ms} (${r.p99_ms})`).join(" / ")}  ${[...new Set(rows.map((r) => r.answered))].join(", ")}`);
  }
}
