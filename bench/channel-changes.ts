/**
 * Channel changes in a small and a big server, in the same process (issue 42, point 4;
 * docs/gateway.md, "Channel events"): creating a channel, renaming it and reordering 10 channels
 * over REST, in a server of 10 members and in one of 100,000 (`--quick`: 10,000), on SQLite and,
 * when it is installed, PostgreSQL. The members are built through the store in one transaction
 * (test/helpers/seed.ts); half of them hold a role that a private category lets in, and the
 * changes are made in that category, so every event is screened. The same sockets are connected
 * in both servers (the owner's and two members'), as the work follows the connected sockets.
 * Small and big are measured in turn, round after round.
 *
 * Prints one JSON line per store and size: the median milliseconds of each change, and for the
 * big server its ratio to the small one's (the target: under 2).
 *
 *   bun bench/channel-changes.ts [--quick] [--members 100000] [--rounds 15] [--sqlite-only]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { io, type Socket } from "socket.io-client";
import { PERMISSIONS } from "../src/domain/access/permission-bits.ts";
import type { Config } from "../src/config.ts";
import { createDatabase, postgresBinDir, startCluster } from "../scripts/pg-cluster.ts";
import { addBulkMembers } from "../test/helpers/seed.ts";
import { argOf, BENCH_REST_LIMITS, hasFlag, log, register, startHearth, type Account, type Api } from "./fixture.ts";

const QUICK = hasFlag("quick");
const SMALL = 10;
const BIG = Number(argOf("members", QUICK ? "10000" : "100000"));
const ROUNDS = Number(argOf("rounds", QUICK ? "7" : "15"));
const REORDERED = 10;
const OPS = ["create", "rename", "reorder10"] as const;
type Op = (typeof OPS)[number];

interface Fixture {
  serverId: string;
  categoryId: string;
  /** The channel renamed each round, and the 10 reordered. */
  renamed: string;
  reordered: string[];
  members: number;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.floor(sorted.length / 2)]! * 100) / 100;
};

/** A server of `members` members (the owner, two connected members, the rest built through the store). */
async function build(app: Awaited<ReturnType<typeof startHearth>>["app"], api: Api, owner: Account, connected: Account[], members: number, name: string): Promise<Fixture> {
  const { id: serverId } = await api<{ id: string }>("POST", "/api/v1/servers", { name }, owner.token);
  const role = await api<{ id: string }>("POST", `/api/v1/roles/${serverId}`, { name: "insiders", color: "#112233", permissions: 0 }, owner.token);
  for (const account of connected) await app.store.members.add(serverId, account.id);
  await api("POST", `/api/v1/roles/${serverId}/assign`, { targetUserId: connected[0]!.id, roleId: role.id }, owner.token);
  const rest = members - 1 - connected.length;
  const started = performance.now();
  await addBulkMembers(app.store, serverId, Math.floor(rest / 2), `${name}o`);
  await addBulkMembers(app.store, serverId, Math.ceil(rest / 2), `${name}i`, { roleId: role.id });
  log(`${name}: ${members} members built in ${Math.round(performance.now() - started)} ms`);
  const { id: categoryId } = await api<{ id: string }>("POST", `/api/v1/channels/${serverId}/categories`, { name: "staff" }, owner.token);
  const everyone = (await app.store.access.member(serverId, owner.id))!.everyone_id;
  await api("PUT", `/api/v1/channels/categories/${categoryId}/permissions/${everyone}`, { allow: 0, deny: PERMISSIONS.VIEW_CHANNEL }, owner.token);
  await api("PUT", `/api/v1/channels/categories/${categoryId}/permissions/${role.id}`, { allow: PERMISSIONS.VIEW_CHANNEL, deny: 0 }, owner.token);
  const reordered: string[] = [];
  for (let i = 0; i < REORDERED; i++) {
    reordered.push((await api<{ id: string }>("POST", `/api/v1/channels/${serverId}`, { name: `r${i}`, type: "text", category_id: categoryId }, owner.token)).id);
  }
  return { serverId, categoryId, renamed: reordered[0]!, reordered, members };
}

/** One round of each change in `fixture`: milliseconds of each REST call. */
async function round(api: Api, owner: Account, fixture: Fixture, n: number): Promise<Record<Op, number>> {
  const timed = async (work: () => Promise<unknown>) => {
    const t0 = performance.now();
    await work();
    return performance.now() - t0;
  };
  let created = "";
  const create = await timed(async () => {
    created = (await api<{ id: string }>("POST", `/api/v1/channels/${fixture.serverId}`, { name: `c${n}`, type: "text", category_id: fixture.categoryId }, owner.token)).id;
  });
  await api("DELETE", `/api/v1/channels/${created}`, undefined, owner.token);
  const rename = await timed(() => api("PUT", `/api/v1/channels/${fixture.renamed}`, { name: `renamed-${n}` }, owner.token));
  // Every one of the 10 moves (each a channel:updated).
  const order = (n % 2 === 0 ? fixture.reordered : [...fixture.reordered].reverse()).map((id, position) => ({ id, position: position + 10 }));
  const reorder10 = await timed(() => api("PUT", `/api/v1/channels/${fixture.serverId}/reorder`, { order }, owner.token));
  return { create, rename, reorder10 };
}

async function run(store: "sqlite" | "postgres", overrides: Partial<Config>): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), `hearth-bench-channels-${store}-`));
  const { app, api } = await startHearth(dataDir, { ...BENCH_REST_LIMITS, ...overrides });
  const sockets: Socket[] = [];
  try {
    const owner = await register(api, "cc_owner");
    const connected = [await register(api, "cc_insider"), await register(api, "cc_outsider")];
    const small = await build(app, api, owner, connected, SMALL, "small");
    const big = await build(app, api, owner, connected, BIG, "big");
    for (const account of [owner, ...connected]) {
      const socket = io(app.url, { auth: { token: account.token }, transports: ["websocket"], reconnection: false, forceNew: true });
      await new Promise<void>((resolve, reject) => {
        socket.once("connect", () => resolve());
        socket.once("connect_error", reject);
      });
      for (const { serverId } of [small, big]) await socket.emitWithAck("server:join", serverId);
      sockets.push(socket);
    }
    const times = new Map<Fixture, Record<Op, number[]>>([small, big].map((f) => [f, { create: [], rename: [], reorder10: [] }]));
    // One round of each first, not counted (prepared statements, caches).
    for (const fixture of [small, big]) await round(api, owner, fixture, 0);
    for (let n = 1; n <= ROUNDS; n++) {
      for (const fixture of [small, big]) {
        const result = await round(api, owner, fixture, n);
        for (const op of OPS) times.get(fixture)![op].push(result[op]);
      }
    }
    const medians = (fixture: Fixture) => Object.fromEntries(OPS.map((op) => [`${op}_ms`, median(times.get(fixture)![op])])) as Record<`${Op}_ms`, number>;
    const smallMs = medians(small);
    const bigMs = medians(big);
    console.log(JSON.stringify({ bench: "channel-changes", store, members: SMALL, rounds: ROUNDS, ...smallMs }));
    const ratios = Object.fromEntries(OPS.map((op) => [`${op}_ratio`, Math.round((bigMs[`${op}_ms`] / smallMs[`${op}_ms`]) * 100) / 100]));
    console.log(JSON.stringify({ bench: "channel-changes", store, members: BIG, rounds: ROUNDS, ...bigMs, ...ratios }));
  } finally {
    for (const socket of sockets) socket.close();
    await app.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await run("sqlite", {});
if (hasFlag("sqlite-only")) log("PostgreSQL: skipped (--sqlite-only)");
else if (!postgresBinDir()) log("PostgreSQL: skipped (not installed)");
else {
  const cluster = await startCluster();
  try {
    await run("postgres", { databaseUrl: await createDatabase(cluster.url, "hearth_bench_channels") });
  } finally {
    await cluster.stop();
  }
}
process.exit(0);
