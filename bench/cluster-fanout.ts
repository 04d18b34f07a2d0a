/**
 * Gateway fan-out over three nodes: `message:new` to one channel whose receivers are
 * spread over three Hearth nodes, against the same receivers on one node, in one run.
 *   one   - one Hearth node as shipped (the one-node adapter, src/gateway/resumable-adapter.ts),
 *           every receiver connected to it
 *   three - three Hearth nodes in this process, each on its own Bun server, on the same database,
 *           with the Socket.IO Redis streams adapter on one redis-server (Debian's
 *           /usr/bin/redis-server on a loopback port, a temp dir, no persistence); the receivers
 *           are spread evenly over the nodes; every message is sent on node 1
 * Messages come from Hearth's real send path (`app.domain.messages.send` on node 1, as in
 * bench/gateway-fanout.ts); the broadcast goes into the Redis stream and each node delivers to its
 * own sockets natively (src/gateway/native-fanout.ts). The receivers (bench/fanout-client.ts) and
 * the phases are gateway-fanout's (bench/fanout-phases.ts): a paced light phase and a saturate
 * phase with a window of messages not yet complete at every receiver process.
 * Figures: deliveries/s, p50/p99 send-to-receive latency, CPU of this process (all three nodes
 * and the sender) per delivery, and the three-node/one-node ratio; also each node's native
 * publishes, to show that each delivered natively. Human summary on stderr, one JSON line on stdout.
 *
 *   bun bench/cluster-fanout.ts [--quick] [--sockets 1500] [--light-seconds 3] [--saturate-seconds 4]
 *     [--window 16] [--per-process 500] [--light-deliveries 20000] [--yield]
 *
 * `--quick`: 600 sockets, 1 s light and 2 s saturate phases.
 * `--capacity [--step-seconds 2] [--start 20000] [--refine 2] [--p99-ms 50] [--confirm 2] [--rounds 1]`:
 *   each side's capacity instead (bench/capacity-search.ts, as gateway-fanout's): the one node and
 *   the three nodes run at the same time, each with its own receivers, and take turns step by
 *   step; one JSON line per size with `one_capacity`, `three_capacity` and `three_over_one`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { App } from "../src/app.ts";
import { nativeFanoutOf } from "../src/gateway/native-fanout.ts";
import { redisServerInstalled, REDIS_SERVER, startRedis } from "../test/helpers/redis-server.ts";
import { capacityFields, capacitySearch, capacitySteps, cpuRatioAtCommonLoads, loadAverage, ratioFields, ratioText, capacityRatio } from "./capacity-search.ts";
import { CAPACITY, content, fanoutPath, logRows, nextSeq, PER_PROCESS, phase, spawnReceivers, WINDOW, type Receivers, type Row, type Send } from "./fanout-phases.ts";
import { argOf, hasFlag, log, register, startHearth, type Account } from "./fixture.ts";

if (!redisServerInstalled) {
  // Skipped, saying why (CI installs it; bench:quick goes on to the next bench).
  const reason = `${REDIS_SERVER} is not installed (apt-get install redis-server)`;
  log(`cluster-fanout skipped: ${reason}`);
  console.log(JSON.stringify({ bench: "cluster-fanout", skipped: reason }));
  process.exit(0);
}

const QUICK = hasFlag("quick");
const SIZES = argOf("sockets", QUICK ? "600" : "1500").split(",").map(Number);
const LIGHT_SECONDS = Number(argOf("light-seconds", QUICK ? "1" : "3"));
const SATURATE_SECONDS = Number(argOf("saturate-seconds", QUICK ? "2" : "4"));
const NODES = 3;
const started = performance.now();

const maxN = Math.max(...SIZES);
const rows: Row[] = [];
const nodeStats: { sockets: number; node: number; receivers: number; published: number; sent_per_receiver: number }[] = [];
const dataDir = mkdtempSync(join(tmpdir(), "hearth-bench-cluster-"));
const procs: Receivers[] = [];
const killAll = () => {
  for (const p of procs.splice(0)) p.kill();
};
const redis = await startRedis();

/** Both phases (after a warm-up) with the given receivers, as `mode`. */
async function measure(mode: string, n: number, send: Send): Promise<void> {
  await phase(mode, "saturate", n, procs, send, 0.3);
  for (const kind of ["light", "saturate"] as const) {
    const row = await phase(mode, kind, n, procs, send, kind === "light" ? LIGHT_SECONDS : SATURATE_SECONDS);
    rows.push(row);
    log(`  ${mode} ${kind}: ${row.deliveries_per_s} deliveries/s, p99 ${row.p99_ms} ms`);
  }
}

/** The three nodes on Redis, on the one database, warmed up with 200 sends on node 1. */
async function startNodes(sender: (app: App) => Send): Promise<App[]> {
  const nodes: App[] = [];
  for (let i = 0; i < NODES; i++) nodes.push((await startHearth(dataDir, {}, { socketAdapter: redis.adapter() })).app);
  for (let i = 0; i < 200; i++) await sender(nodes[0]!)(nextSeq());
  return nodes;
}

/** Closes the nodes' adapters (their blocking stream reads end), then the nodes. */
async function stopNodes(nodes: App[]): Promise<void> {
  for (const node of nodes) node.io.of("/").adapter.close();
  await Bun.sleep(600);
  for (const node of nodes) await node.stop();
}

/** Receivers for `tokens` spread evenly over `nodes`. */
async function receiversOn(nodes: App[], tokens: string[], channelId: string): Promise<Receivers[]> {
  const per = Math.ceil(tokens.length / nodes.length);
  const spawned: Receivers[] = [];
  for (let i = 0; i < nodes.length; i++) {
    const slice = tokens.slice(i * per, (i + 1) * per);
    if (slice.length) spawned.push(...(await spawnReceivers({ proto: "sio", url: nodes[i]!.url, channelId }, slice, slice.length)));
  }
  procs.push(...spawned);
  return spawned;
}

/**
 * `--capacity`: the one node and the three nodes at once, each size's receivers on both (the
 * same users: a user may hold several connections), the two paths taking turns in the search.
 */
async function capacityRun(one: App, users: Account[], channelId: string, sender: (app: App) => Send): Promise<void> {
  const nodes = await startNodes(sender);
  for (const n of SIZES) {
    const tokens = users.slice(1, 1 + n).map((u) => u.token);
    const oneProcs = await receiversOn([one], tokens, channelId);
    const threeProcs = await receiversOn(nodes, tokens, channelId);
    await phase("one", "saturate", n, oneProcs, sender(one), 0.3); // warm-up
    await phase("three", "saturate", n, threeProcs, sender(nodes[0]!), 0.3);
    const load0 = loadAverage();
    const results = await capacitySearch([fanoutPath("one", n, oneProcs, sender(one)), fanoutPath("three", n, threeProcs, sender(nodes[0]!))], `${n} sockets`);
    killAll();
    await Bun.sleep(300);
    const cpu = cpuRatioAtCommonLoads(results, "three", "one");
    const cap: Record<string, unknown> = {
      bench: "cluster-fanout", scenario: "capacity", sockets: n, nodes: NODES,
      ...capacityFields(results), ...ratioFields(results, "three", "one"),
      cpu_per_delivery_three_over_one: cpu, load_average: [load0, loadAverage()], steps: capacitySteps(results),
    };
    log(
      `capacity at ${n} sockets (deliveries/s, median of ${results[0]?.runs.length} rounds): one node ${cap.one_capacity ?? "-"}, three nodes ${cap.three_capacity ?? "-"}; ` +
        `three/one ${ratioText(capacityRatio(results, "three", "one"))}; CPU per delivery three/one at the same offered load ${cpu.ratio ?? "-"} (${cpu.at_offered.length} loads)`,
    );
    console.log(JSON.stringify(cap));
  }
  await stopNodes(nodes);
  await one.stop();
}

/** The light and saturate phases: every size on the one node, then the one node stopped and every size over three nodes. */
async function phasesRun(one: App, users: Account[], channelId: string, sender: (app: App) => Send): Promise<void> {
  for (const n of SIZES) {
    await receiversOn([one], users.slice(1, 1 + n).map((u) => u.token), channelId);
    log(`${n} sockets on one node`);
    await measure("one", n, sender(one));
    killAll();
    await Bun.sleep(300);
  }
  await one.stop();
  const nodes = await startNodes(sender);
  for (const n of SIZES) {
    const per = Math.ceil(n / NODES);
    const before = nodes.map((node) => ({ ...nativeFanoutOf(node.io)!.stats }));
    await receiversOn(nodes, users.slice(1, 1 + n).map((u) => u.token), channelId);
    log(`${n} sockets over ${NODES} nodes (${per} a node)`);
    await measure("three", n, sender(nodes[0]!));
    nodes.forEach((node, i) => {
      const stats = nativeFanoutOf(node.io)!.stats;
      nodeStats.push({
        sockets: n,
        node: i + 1,
        receivers: Math.min(per, n - i * per),
        published: stats.published - before[i]!.published,
        sent_per_receiver: stats.sentPerReceiver - before[i]!.sentPerReceiver,
      });
    });
    killAll();
    await Bun.sleep(300);
  }
  await stopNodes(nodes);
}

try {
  // ---- one node: the users, the server and its channel (the nodes below share this database) ----
  const one = await startHearth(dataDir);
  const users: Account[] = new Array(maxN + 1);
  let nextUser = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let i = nextUser++; i <= maxN; i = nextUser++) users[i] = await register(one.api, `cl${i}`);
    }),
  );
  const owner = users[0]!;
  const { id: serverId } = await one.api<{ id: string }>("POST", "/api/v1/servers", { name: "cluster" }, owner.token);
  const { id: channelId } = await one.api<{ id: string }>("POST", `/api/v1/channels/${serverId}`, { name: "fanout", type: "text" }, owner.token);
  for (const u of users.slice(1)) await one.app.store.members.add(serverId, u.id, "member");
  const sender = (app: App): Send => {
    const author = app.store.users.findById(owner.id);
    return async (s) => app.domain.messages.send(channelId, (await author)!, { content: content(s) });
  };
  for (let i = 0; i < 200; i++) await sender(one.app)(nextSeq());
  await (CAPACITY ? capacityRun : phasesRun)(one.app, users, channelId, sender);
} finally {
  killAll();
  await redis.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
if (CAPACITY) process.exit(0);

// ---- summary ----
log(`\ncluster fan-out: message:new to one channel; sender on node 1 (domain send path); receivers in processes of ${PER_PROCESS}; window ${WINDOW}; cpu = this process (every node) µs per delivery`);
logRows(rows);
const find = (mode: string, n: number) => rows.find((r) => r.mode === mode && r.sockets === n && r.phase === "saturate")!;
const ratios = SIZES.map((n) => ({
  sockets: n,
  three_over_one: Math.round((find("three", n).deliveries_per_s / find("one", n).deliveries_per_s) * 100) / 100,
  cpu_three_over_one: Math.round((find("three", n).cpu_us_per_delivery / find("one", n).cpu_us_per_delivery) * 100) / 100,
}));
log("\nnative delivery per node (three nodes, all phases): node, receivers, native publishes, per-receiver broadcasts");
for (const s of nodeStats) log(`  ${s.sockets} sockets: node ${s.node}: ${s.receivers} receivers, ${s.published} published, ${s.sent_per_receiver} per-receiver`);
log("\nsaturate, three nodes against one:");
for (const r of ratios) log(`  ${String(r.sockets).padStart(5)} sockets: deliveries/s ${r.three_over_one}x, cpu per delivery ${r.cpu_three_over_one}x`);
const seconds = Math.round((performance.now() - started) / 100) / 10;
log(`total ${seconds} s`);
console.log(JSON.stringify({ bench: "cluster-fanout", quick: QUICK, window: WINDOW, per_process: PER_PROCESS, nodes: NODES, rows, node_stats: nodeStats, ratios, seconds }));
process.exit(0);
