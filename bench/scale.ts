/**
 * Growth with a community's size (issue "Big communities", bench/README.md "Scale"): the same
 * operations against fixtures at 1x, 10x and 100x, on SQLite and PostgreSQL, and how much each
 * one's time grows from 1x. A fixture at size f holds one server of 1,000 x f members with
 * 5 x f channels, 10,000 x f messages in one channel (a word in 20% of them, a word in all of
 * them, a rare word in ten), and a reader who owns that server and 3 x f others. Built through
 * the store's database (bulk statements, no HTTP), once, and cached under the temp folder keyed
 * by the migrations' text: later runs start from the cache (SQLite: the database file;
 * PostgreSQL: a kept cluster folder).
 *
 * Each operation is timed one request at a time from this process (the time a client waits for
 * one answer; `--reps` after a warm-up): the figure is the median, its range the 10th to 90th
 * percentile, and `growth` the median over 1x's, measured in this run. Operations a client does
 * per view or per event (pages, members, counts, channel and role changes, search, presence)
 * have the target: growth under 2 from 1x to 100x. Those a client does once per session (its
 * servers, its read states), and a reorder answering the whole channel list (the web app asks
 * for none), are printed without one: their answer itself grows with f.
 *
 *   bun bench/scale.ts [--quick] [--sizes 1,10,100] [--stores sqlite,postgres] [--reps 30] [--only op,op]
 *
 * `--quick`: 1x and 10x, 10 repetitions (CI's `bench:quick`); `npm run bench:scale`: 1x to 100x.
 * `--only`: just the operations named (as the JSON lines name them); every one without it.
 * Prints a human summary on stderr and one JSON line per store, operation and size on stdout.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { io, type Socket } from "socket.io-client";
import type { App } from "../src/app.ts";
import type { Config } from "../src/config.ts";
import { DEFAULT_EVERYONE_PERMISSIONS } from "../src/domain/access/permission-bits.ts";
import { DEFAULT_CAPS } from "../src/domain/shared/caps.ts";
import { TokenService } from "../src/domain/accounts/tokens.ts";
import { jwtCodec } from "../src/http/jwt-codec.ts";
import type { Database } from "../src/store/database.ts";
import { createDatabase, postgresBinDir, startCluster, type Cluster } from "../scripts/pg-cluster.ts";
import { addBulkMembers } from "../test/helpers/seed.ts";
import { argOf, hasFlag, log, pct, startHearth } from "./fixture.ts";

const QUICK = hasFlag("quick");
const SIZES = argOf("sizes", QUICK ? "1,10" : "1,10,100").split(",").map(Number);
const STORES = argOf("stores", "sqlite,postgres").split(",") as ("sqlite" | "postgres")[];
const REPS = Number(argOf("reps", QUICK ? "10" : "30"));
const ONLY = argOf("only", "") ? new Set(argOf("only", "").split(",")) : null;
/** Whether `op` is measured in this run (`--only`). */
const wanted = (op: string) => ONLY === null || ONLY.has(op);
const WARMUP = 3;
const SECRET = "bench-scale-secret-0123456789abcdef0123456789abcd";
/** Sockets of members connected for the presence operation: the same at every size. */
const WATCHERS = 20;
/** The fixture's recipe; bump it when build() changes, so caches are rebuilt. */
const FIXTURE_VERSION = 2;

interface Fixture {
  readerId: string;
  serverId: string;
  channelId: string;
  channelIds: string[];
  roleId: string;
  members: number;
  messages: number;
  /** Member ids: the first, one in the middle, the last. */
  memberIds: string[];
  /** The first WATCHERS members' ids (they connect for the presence operation). */
  watcherIds: string[];
  /** A name prefix that matches about a hundred members. */
  memberQuery: string;
  /** Message ids: the newest, the middle, the 60th oldest. */
  messageIds: { newest: string; middle: string; oldest: string };
}

const cacheRoot = join(tmpdir(), `hearth-scale-${cacheKey()}`);

/** The migrations' text and the recipe's version: a cache built by another schema is not reused. */
function cacheKey(): string {
  const hash = createHash("sha256").update(String(FIXTURE_VERSION));
  for (const store of ["sqlite", "postgres"]) hash.update(readFileSync(join(import.meta.dir, "..", "src", "store", store, "migrations.ts")));
  return hash.digest("hex").slice(0, 12);
}

/** Rows a bulk statement inserts: each its own transaction, so PostgreSQL can prune the versions of the rows a per-row trigger updates (the channel's last message). */
const MESSAGES_PER_STATEMENT = 5000;

/** Ten thousand messages per f in one channel, by INSERT ... SELECT of generated rows, MESSAGES_PER_STATEMENT at a time. */
async function addBulkMessages(db: Database, fixture: { serverId: string; channelId: string; memberIds: string[]; members: number }, count: number): Promise<void> {
  const sqlite = db.dialect.name === "sqlite";
  const memberPrefix = fixture.memberIds[0]!.slice(0, 8);
  const rare = Math.max(1, Math.floor(count / 10));
  const int = (placeholder: string) => (sqlite ? placeholder : `${placeholder}::int`);
  // ?1 the first number, ?2 the last.
  const numbers = sqlite ? "WITH RECURSIVE n(i) AS (SELECT ?1 UNION ALL SELECT i + 1 FROM n WHERE i < ?2)" : "WITH n(i) AS (SELECT generate_series(?1::int, ?2::int))";
  const hex = (what: string) => (sqlite ? `printf('%012x', ${what})` : `lpad(to_hex(${what}), 12, '0')`);
  const text = (what: string) => (sqlite ? `(${what})` : `(${what})::text`);
  const now = Math.floor(Date.now() / 1000);
  // Ids older than any UUIDv7 of today, in insertion order: pages by id walk them newest first.
  const id = `'018f0000-0000-7000-8000-' || ${hex("i")}`;
  const author = `?4 || '-0000-7000-8000-' || ${hex(`(i % ${int("?5")}) + 1`)}`;
  const content = `'message ' || ${text("i")} || ' w' || ${text("i % 97")} || CASE WHEN i % 5 = 0 THEN ' alpha' ELSE '' END || ' hearth' || CASE WHEN i % ${int("?6")} = 3 THEN ' zyzzyva' ELSE '' END`;
  // Created one second apart, the last one now.
  const createdAt = sqlite ? "?3 - ?7 + i" : "?3::bigint - ?7::int + i";
  const insert = db.prepare<unknown, [number, number, number, string, number, number, number, string, string]>(
    `${numbers} INSERT INTO messages (id, channel_id, server_id, user_id, content, created_at) SELECT ${id}, ?8, ?9, ${author}, ${content}, ${createdAt} FROM n`,
  );
  for (let first = 1; first <= count; first += MESSAGES_PER_STATEMENT) {
    const last = Math.min(count, first + MESSAGES_PER_STATEMENT - 1);
    await db.run(insert, first, last, now, memberPrefix, fixture.members, rare, count, fixture.channelId, fixture.serverId);
  }
}

const messageId = (i: number) => `018f0000-0000-7000-8000-${i.toString(16).padStart(12, "0")}`;

/** The fixture at size f, built on `app`'s database. */
async function build(app: App, f: number): Promise<Fixture> {
  const { store } = app;
  const t0 = performance.now();
  const reader = await store.users.create({ username: "scale_reader", email: "scale_reader@bench.test", passwordHash: "x", isBot: false });
  if (!reader.ok) throw new Error("reader");
  const readerId = reader.user.id;
  const newServer = (name: string, code: string) =>
    store.servers.create({ ownerId: readerId, name, description: "", everyonePermissions: DEFAULT_EVERYONE_PERMISSIONS, primaryInviteCode: code }, Number.POSITIVE_INFINITY);
  const big = await newServer("big", `scalebig${f}`);
  if (!big) throw new Error("server");
  const channelIds: string[] = [];
  for (let i = 0; i < 5 * f; i++) {
    const channel = await store.channels.create(
      { serverId: big.id, name: `channel-${i}`, type: "text", categoryId: null, topic: null, slowmode: 0, nsfw: false, isMeeting: false, chatEnabled: true },
      Number.POSITIVE_INFINITY,
    );
    if (!channel) throw new Error("channel");
    channelIds.push(channel.id);
  }
  for (let i = 1; i < 3 * f; i++) if (!(await newServer(`other-${i}`, `scale${f}x${i}`))) throw new Error("server");
  const members = 1000 * f;
  const bulk = await addBulkMembers(store, big.id, members, "sm");
  const messages = 10_000 * f;
  const fixture = { serverId: big.id, channelId: channelIds[0]!, memberIds: [bulk.idOf(1), bulk.idOf(Math.ceil(members / 2)), bulk.idOf(members)], members };
  await addBulkMessages(store.db, fixture, messages);
  const role = await app.domain.roles.create(big.id, readerId, { name: "crew", color: "#336699", permissions: 0, hoist: true });
  // A database as autovacuum keeps it: PostgreSQL's statistics read, and the text index's pending
  // list (GIN's fastupdate) merged; a cluster that only runs during the bench never gets there.
  if (store.db.dialect.name === "postgres") await store.db.exec("VACUUM ANALYZE");
  log(`  built ${f}x (${members.toLocaleString("en")} members, ${messages.toLocaleString("en")} messages, ${5 * f} channels, ${3 * f} servers) in ${Math.round(performance.now() - t0)} ms`);
  return {
    readerId,
    ...fixture,
    channelIds,
    roleId: role.id,
    messages,
    watcherIds: Array.from({ length: WATCHERS }, (_, i) => bulk.idOf(i + 1)),
    // "sm" + six digits: "sm0001" matches members 1000-1999 at 100x, fewer below: a search's page at most.
    memberQuery: "sm0001",
    messageIds: { newest: messageId(messages), middle: messageId(Math.floor(messages / 2)), oldest: messageId(60) },
  };
}

interface Measured {
  op: string;
  /** "session" and "list": answers that hold what grows with f (once per session, or a whole list), printed without a target. */
  per: "view" | "event" | "session" | "list";
  samples: number[];
  /** Deliveries of one presence change, for the presence operation. */
  deliveries?: number;
}

/** Times `run` REPS times after WARMUP runs, one at a time. */
async function timed(op: string, per: Measured["per"], run: (i: number) => Promise<unknown>): Promise<Measured> {
  for (let i = 0; i < WARMUP; i++) await run(-1 - i);
  const samples: number[] = [];
  for (let i = 0; i < REPS; i++) {
    const t0 = performance.now();
    await run(i);
    samples.push(performance.now() - t0);
  }
  return { op, per, samples };
}

/** Every operation against the fixture on a running Hearth. */
async function measure(app: App, fixture: Fixture): Promise<Measured[]> {
  const tokens = new TokenService(jwtCodec(SECRET), "30d");
  const token = await tokens.sign({ userId: fixture.readerId, version: 0 }, false);
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(app.url + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.status === 204 ? null : (res.json() as Promise<unknown>);
  };
  const get = (path: string) => () => call("GET", path);
  const { serverId, channelId, messageIds, memberIds } = fixture;
  const results: Measured[] = [];
  const add = async (op: string, per: Measured["per"], run: (i: number) => Promise<unknown>) => {
    if (wanted(op)) results.push(await timed(op, per, run));
  };

  await add("page_latest", "view", get(`/api/v1/messages/${channelId}?limit=50`));
  await add("page_deep", "view", get(`/api/v1/messages/${channelId}?before=${messageIds.middle}&limit=50`));
  await add("page_oldest", "view", get(`/api/v1/messages/${channelId}?before=${messageIds.oldest}&limit=50`));
  await add("message_by_id", "view", get(`/api/v1/messages/id/${messageIds.middle}`));
  await add("mark_read", "event", () => call("POST", `/api/v1/messages/${channelId}/read`, { message_id: messageIds.newest }));
  await add("member_page", "view", get(`/api/v1/servers/${serverId}/members?limit=100`));
  await add("member_page_after", "view", get(`/api/v1/servers/${serverId}/members?limit=100&after=${memberIds[1]}`));
  await add("member_one", "view", get(`/api/v1/servers/${serverId}/members/${memberIds[2]}`));
  await add("member_search", "view", get(`/api/v1/servers/${serverId}/members?query=${fixture.memberQuery}&limit=100`));
  await add("server_read", "view", get(`/api/v1/servers/${serverId}`));
  await add("friend_search_miss", "view", get(`/api/v1/friends/search?q=nobody_by_this_name`));
  await add("search_20pct", "view", get(`/api/v1/messages/${channelId}/search?q=alpha&limit=25`));
  await add("search_common", "view", get(`/api/v1/messages/${channelId}/search?q=hearth&limit=25`));
  await add("search_rare", "view", get(`/api/v1/messages/${channelId}/search?q=zyzzyva&limit=25`));
  await add("server_search_20pct", "view", get(`/api/v1/servers/${serverId}/search?q=alpha&limit=25`));
  await add("channel_create_delete", "event", async () => {
    const channel = (await call("POST", `/api/v1/channels/${serverId}`, { name: "scale-new", type: "text" })) as { id: string };
    await call("DELETE", `/api/v1/channels/${channel.id}`);
  });
  await add("channel_rename", "event", (i) => call("PUT", `/api/v1/channels/${fixture.channelIds[1]}`, { name: `renamed-${i & 1}` }));
  // The first five channels (every channel at 1x): each size moves the same rows, so the growth is the server's alone.
  const five = fixture.channelIds.slice(0, 5);
  const fivePlaced = (i: number) => ({ order: five.map((id, at) => ({ id, position: i & 1 ? five.length - at : at + 1 })) });
  // As the web app reorders: `Prefer: return=minimal`, no list in the answer (docs/channels.md).
  await add("channel_reorder_5", "event", (i) => call("PUT", `/api/v1/channels/${serverId}/reorder`, fivePlaced(i), { prefer: "return=minimal" }));
  // The same answering the whole list, which holds 5 x f channels: it grows with f by what it holds.
  await add("channel_reorder_5_list", "list", (i) => call("PUT", `/api/v1/channels/${serverId}/reorder`, fivePlaced(i)));
  await add("role_update", "event", (i) => call("PUT", `/api/v1/roles/${serverId}/${fixture.roleId}`, { color: i & 1 ? "#336699" : "#996633" }));
  if (wanted("presence_change")) results.push(await presence(app, fixture, tokens));
  await add("servers_list", "session", get(`/api/v1/servers`));
  await add("read_states", "session", get(`/api/v1/users/me/read-states`));
  return results;
}

/**
 * Presence per change: WATCHERS members connect and subscribe to each other (the top of the
 * member list, as every client shows it), then the first one's status changes REPS times. The
 * time is the `status:set` ack; `deliveries` counts the `user:status` each change reached.
 */
async function presence(app: App, fixture: Fixture, tokens: TokenService): Promise<Measured> {
  const sockets: Socket[] = [];
  let deliveries = 0;
  try {
    for (const userId of fixture.watcherIds) {
      const socket = io(app.url, { auth: { token: await tokens.sign({ userId, version: 0 }, false) }, transports: ["websocket"], reconnection: false, forceNew: true });
      await new Promise<void>((resolve, reject) => {
        socket.once("connect", () => resolve());
        socket.once("connect_error", reject);
      });
      const joined = (await socket.emitWithAck("server:join", fixture.serverId)) as { ok: boolean };
      if (!joined.ok) throw new Error("server:join refused");
      const subscribed = (await socket.emitWithAck("presence:subscribe", { server_id: fixture.serverId, user_ids: fixture.watcherIds })) as { ok: boolean };
      if (!subscribed.ok) throw new Error("presence:subscribe refused");
      socket.on("user:status", () => deliveries++);
      sockets.push(socket);
    }
    const speaker = sockets[0]!;
    await Bun.sleep(200);
    let counted = 0;
    const measured = await timed("presence_change", "event", async (i) => {
      const ack = (await speaker.emitWithAck("status:set", { status: i & 1 ? "online" : "dnd" })) as { ok: boolean };
      if (!ack.ok) throw new Error("status:set refused");
      if (i >= 0) counted++;
    });
    await Bun.sleep(300);
    // Warm-up changes count too: deliveries per change over every change made.
    return { ...measured, deliveries: Math.round((deliveries / (counted + WARMUP)) * 10) / 10 };
  } finally {
    for (const socket of sockets) socket.close();
  }
}

/** Hearth on the cached fixture of size f for `store`: built on first use. */
async function withFixture<T>(store: "sqlite" | "postgres", f: number, run: (app: App, fixture: Fixture) => Promise<T>): Promise<T> {
  const dir = join(cacheRoot, `${store}-${f}`);
  const marker = join(dir, "fixture.json");
  mkdirSync(dir, { recursive: true });
  let cluster: Cluster | null = null;
  // 500 channels at 100x, and one more made and deleted by channel_create_delete.
  const overrides: Partial<Config> = { jwtSecret: SECRET, caps: { ...DEFAULT_CAPS, channelsPerServer: 1000 } };
  try {
    if (store === "postgres") {
      cluster = await startCluster({ dir: join(dir, "cluster") });
      if (!existsSync(marker)) await createDatabase(cluster.url, "hearth").catch(() => undefined);
      overrides.databaseUrl = `${cluster.url}/hearth`;
    }
    let fixture: Fixture | null = existsSync(marker) ? (JSON.parse(readFileSync(marker, "utf8")) as Fixture) : null;
    if (!fixture) {
      const { app } = await startHearth(join(dir, "data"), overrides);
      try {
        fixture = await build(app, f);
      } finally {
        await app.stop();
      }
      writeFileSync(marker, JSON.stringify(fixture));
    }
    const { app } = await startHearth(join(dir, "data"), overrides);
    try {
      return await run(app, fixture);
    } finally {
      await app.stop();
    }
  } finally {
    await cluster?.stop();
  }
}

interface Line {
  bench: "scale";
  store: string;
  op: string;
  per: Measured["per"];
  size: number;
  reps: number;
  p50_ms: number;
  p10_ms: number;
  p90_ms: number;
  growth: number;
  target: number | null;
  deliveries_per_change?: number;
}

const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;
const lines: Line[] = [];
for (const store of STORES) {
  if (store === "postgres" && !postgresBinDir()) {
    log("PostgreSQL: skipped (not installed: apt-get install postgresql)");
    continue;
  }
  const base = new Map<string, number>();
  for (const f of SIZES) {
    log(`${store} ${f}x`);
    const measured = await withFixture(store, f, measure);
    for (const m of measured) {
      const sorted = m.samples.slice().sort((a, b) => a - b);
      const p50 = pct(sorted, 0.5);
      if (!base.has(m.op)) base.set(m.op, p50);
      const line: Line = {
        bench: "scale",
        store,
        op: m.op,
        per: m.per,
        size: f,
        reps: m.samples.length,
        p50_ms: p50,
        p10_ms: pct(sorted, 0.1),
        p90_ms: pct(sorted, 0.9),
        growth: round(p50 / base.get(m.op)!),
        target: m.per === "session" || m.per === "list" ? null : 2,
        ...(m.deliveries === undefined ? {} : { deliveries_per_change: m.deliveries }),
      };
      lines.push(line);
      console.log(JSON.stringify(line));
    }
  }
}

// The summary: one row per store and operation, the median at each size and the growth to the largest.
const largest = Math.max(...SIZES);
log(`\nmedian ms (p10-p90) at ${SIZES.map((f) => `${f}x`).join(" / ")}; growth ${SIZES[0]}x -> ${largest}x (target < 2 per view or event)`);
for (const store of new Set(lines.map((l) => l.store))) {
  for (const op of new Set(lines.filter((l) => l.store === store).map((l) => l.op))) {
    const rows = lines.filter((l) => l.store === store && l.op === op);
    const last = rows.at(-1)!;
    const over = last.target !== null && last.growth >= last.target ? "  OVER" : "";
    const cells = rows.map((r) => `${r.p50_ms} (${r.p10_ms}-${r.p90_ms})`).join(" / ");
    const extra = last.deliveries_per_change === undefined ? "" : `, ${rows.map((r) => r.deliveries_per_change).join(" / ")} deliveries a change`;
    log(`${store.padEnd(8)} ${op.padEnd(22)} ${cells}  x${last.growth}${over}${extra}`);
  }
}
