/**
 * Capacity under a Discord-like load (bench/README.md, "First figure"): N people spread over
 * servers of about 200 members (N/50 servers, each person in 3-5 of them, three text channels
 * each), every one online, each behaving on its own open-loop schedule in the load clients
 * (bench/realistic-client.ts: typing then a message every 30-120 s, reactions, page reads and
 * mark-reads, presence changes, a few leaving a server and joining it again). N rises step by
 * step until a step's p99 message delivery (a send's start to its `message:new` at the other
 * members' sockets) passes `--p99-ms` (100) or anything fails (a request, an acked event, a
 * socket closed by the server); a step that misses is measured once more (`--confirm 1`) before
 * it counts, and one missed while Hearth waited for a core is measured again (`--void-tries 2`).
 * If the first step misses, N falls by the same factor until one holds; then one bisection
 * (`--refine 1`) between the last N that held and the first that missed, disconnecting people or
 * connecting them again. Prints the last N that held and the people per core there: per core of
 * the machine, and per core the server used (Hearth's process, plus PostgreSQL's processes on
 * PostgreSQL), on SQLite and then PostgreSQL (a throwaway cluster, scripts/pg-cluster.ts, fsync
 * on as in message-send.ts).
 *
 * Time is compressed by `--speed` (10): every interval of a person is divided by it, so one
 * connection does what `speed` people do, and N (people, "equivalent people at Discord's pace")
 * is `speed` times the connections. Messages, deliveries, typing, reactions, reads and presence
 * changes a second are those of N people; the connections are N / speed, each receiving `speed`
 * times as much as a person's would.
 *
 * The world grows by whole communities: each step adds people and their servers (the new people
 * join new servers only), so every server keeps about 200 members as N grows. Hearth runs in this
 * process (its CPU is this process's during the measured window), on a file database, with the
 * bench limits (fixture.ts: the gateway's event limits and REST rate limits raised, as a person
 * here sends `speed` times as often). Prints a human summary on stderr and one JSON line on stdout.
 *
 *   bun bench/realistic.ts [--quick] [--stores sqlite,postgres | --sqlite-only] [--speed 10]
 *     [--start 2500] [--factor 1.5] [--max-steps 12] [--warmup 8] [--window 20] [--clients 3] [--p99-ms 100] [--confirm 1]
 *     [--void-tries 2] [--refine 1]
 *
 * `--quick`: SQLite only, 1,000 people rising x2 for at most three steps of 4 s, or falling x2 while
 * the first ones miss, no confirmation, void tries or bisection (CI's `bench:quick`).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { TokenService } from "../src/domain/accounts/tokens.ts";
import { DEFAULT_EVERYONE_PERMISSIONS } from "../src/domain/access/permission-bits.ts";
import { jwtCodec } from "../src/http/jwt-codec.ts";
import type { App } from "../src/app.ts";
import { createDatabase, postgresBinDir, startCluster, type Cluster } from "../scripts/pg-cluster.ts";
import { loadAverage, watchLoop, watchMachine } from "./capacity-search.ts";
import { argOf, hasFlag, LineProcess, log, startHearth } from "./fixture.ts";
import { LatencyHistogram } from "./latency-histogram.ts";
import { planBatch, seededRandom, stepVerdict } from "./realistic-plan.ts";

const QUICK = hasFlag("quick");
const SPEED = Number(argOf("speed", "10"));
const START = Number(argOf("start", QUICK ? "1000" : "2500"));
const FACTOR = Number(argOf("factor", QUICK ? "2" : "1.5"));
const MAX_STEPS = Number(argOf("max-steps", QUICK ? "3" : "12"));
const WARMUP_S = Number(argOf("warmup", QUICK ? "2" : "8"));
const WINDOW_S = Number(argOf("window", QUICK ? "4" : "20"));
const CLIENTS = Number(argOf("clients", "3"));
const P99_MS = Number(argOf("p99-ms", "100"));
const CONFIRM = Number(argOf("confirm", QUICK ? "0" : "1"));
const VOID_TRIES = Number(argOf("void-tries", QUICK ? "0" : "2"));
const REFINE = Number(argOf("refine", QUICK ? "0" : "1")) > 0;
const SECRET = "bench-realistic-secret-0123456789abcdef0123456789";
const CORES = availableParallelism();
const CLIENT_SCRIPT = join(import.meta.dir, "realistic-client.ts");

/** CPU time of processes, ms (Linux /proc/<pid>/stat utime + stime); 0 for one that is gone. */
const TICK_MS = 1000 / (Number(Bun.spawnSync(["getconf", "CLK_TCK"]).stdout.toString().trim()) || 100);
function cpuMsOf(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
    } catch {
      // exited
    }
  }
  return ticks * TICK_MS;
}

/** The PostgreSQL server listening on `port` and its backends (the postmaster's children). */
function postgresPids(port: string): number[] {
  const all = readdirSync("/proc").filter((d) => /^\d+$/.test(d)).map(Number);
  const read = (pid: number, file: string) => {
    try {
      return readFileSync(`/proc/${pid}/${file}`, "utf8");
    } catch {
      return "";
    }
  };
  const master = all.find((pid) => {
    const cmd = read(pid, "cmdline").split("\0");
    return cmd[0]?.endsWith("/postgres") && cmd.includes(`port=${port}`);
  });
  if (master === undefined) return [];
  const ppid = (pid: number) => Number(read(pid, "stat").slice(read(pid, "stat").lastIndexOf(")") + 2).split(" ")[1]);
  return [master, ...all.filter((pid) => ppid(pid) === master)];
}

interface Seeded {
  id: string;
  token: string;
  servers: { id: string; invite: string; channels: string[] }[];
}

/** Adds `people` people and their servers (about one per 50 people) through the store. */
async function seedBatch(app: App, ownerId: string, tokens: TokenService, first: number, people: number, seed: number): Promise<Seeded[]> {
  const { store } = app;
  const plan = planBatch(seededRandom(seed), people);
  const servers: Seeded["servers"] = [];
  for (let s = 0; s < plan.servers; s++) {
    const invite = `rl${first}x${s}`;
    const server = await store.servers.create(
      { ownerId, name: `realistic ${first}-${s}`, description: "", everyonePermissions: DEFAULT_EVERYONE_PERMISSIONS, primaryInviteCode: invite },
      Number.POSITIVE_INFINITY,
    );
    if (!server) throw new Error("server");
    for (const name of ["random", "help"]) {
      const made = await store.channels.create(
        { serverId: server.id, name, type: "text", categoryId: null, topic: null, slowmode: 0, nsfw: false, isMeeting: false, chatEnabled: true },
        Number.POSITIVE_INFINITY,
      );
      if (!made) throw new Error("channel");
    }
    const channels = (await store.channels.listByServer(server.id)).filter((c) => c.type === "text").map((c) => c.id);
    servers.push({ id: server.id, invite, channels });
  }
  const out: Seeded[] = [];
  for (let i = 0; i < people; i += 100) {
    const chunk = await Promise.all(
      plan.memberships.slice(i, i + 100).map(async (serversOf, k) => {
        const n = first + i + k;
        const created = await store.users.create({ username: `rl${n}`, email: `rl${n}@bench.test`, passwordHash: "x", isBot: false });
        if (!created.ok) throw new Error("user");
        for (const s of serversOf) {
          const member = await store.members.add(servers[s]!.id, created.user.id);
          if (!member || member === "full") throw new Error(`member: ${member}`);
        }
        const token = await tokens.sign({ userId: created.user.id, version: 0 }, false);
        return { id: created.user.id, token, servers: serversOf.map((s) => servers[s]!) };
      }),
    );
    out.push(...chunk);
  }
  return out;
}

interface ClientReport {
  people: number;
  deliveries: number;
  buckets: [number, number][];
  requests: Record<string, number>;
  failures: Record<string, number>;
  raced: number;
  disconnects: number;
  other_events: number;
  timer_late_p99_ms: number;
  cpu_pct: number;
}

const sum = (records: Record<string, number>[]) => {
  const total: Record<string, number> = {};
  for (const r of records) for (const [k, v] of Object.entries(r)) total[k] = (total[k] ?? 0) + v;
  return total;
};

/** One measured window at the current size. */
async function measure(clients: LineProcess[], serverPids: () => number[], people: number, connections: number) {
  await Promise.all(clients.map((c) => c.ask("reset")));
  const pids = serverPids();
  const cpu0 = process.cpuUsage();
  const pg0 = cpuMsOf(pids);
  const machine = watchMachine();
  const loop = watchLoop();
  const t0 = performance.now();
  await Bun.sleep(WINDOW_S * 1000);
  const reports = (await Promise.all(clients.map((c) => c.ask("report")))).map((line) => JSON.parse(line) as ClientReport);
  const wallMs = performance.now() - t0;
  const used = process.cpuUsage(cpu0);
  const serverMs = (used.user + used.system) / 1000 + cpuMsOf(pids) - pg0;
  const { total, at } = LatencyHistogram.quantiles(reports.map((r) => r.buckets), [0.5, 0.99, 1]);
  const requests = sum(reports.map((r) => r.requests));
  const perSecond = (n: number | undefined) => Math.round(((n ?? 0) / wallMs) * 1000 * 10) / 10;
  const serverCores = serverMs / wallMs;
  const loopLag = loop.stop();
  const lag = loop.worst();
  return {
    people,
    connections,
    messages_per_s: perSecond(requests.message),
    deliveries_per_s: perSecond(total),
    deliveries_per_message: requests.message ? Math.round((total / requests.message) * 10) / 10 : null,
    other_events_per_s: perSecond(reports.reduce((n, r) => n + r.other_events, 0)),
    requests_per_s: Object.fromEntries(Object.entries(requests).map(([k, v]) => [k, perSecond(v)])),
    deliveries: total,
    delivery_p50_ms: at[0]!,
    delivery_p99_ms: at[1]!,
    delivery_max_ms: at[2]!,
    failures: sum(reports.map((r) => r.failures)),
    /** Failures of requests that crossed their person's own leave or join (not counted). */
    raced: reports.reduce((n, r) => n + r.raced, 0),
    disconnects: reports.reduce((n, r) => n + r.disconnects, 0),
    server_cores: Math.round(serverCores * 1000) / 1000,
    /** PostgreSQL's processes counted in server_cores (0 on SQLite). */
    postgres_processes: pids.length,
    people_per_server_core: Math.round(people / serverCores),
    clients_cpu_pct: reports.map((r) => r.cpu_pct),
    clients_timer_late_p99_ms: Math.max(...reports.map((r) => r.timer_late_p99_ms)),
    /** The worst lateness of Hearth's event loop in the window, and where it went (capacity-search.ts watchLoop). */
    loop_lag_ms: loopLag,
    lag_run_ms: lag.run_ms,
    lag_runq_wait_ms: lag.runq_wait_ms,
    machine: machine.stop(),
    load_average: loadAverage(),
  };
}
type Step = Awaited<ReturnType<typeof measure>> & { verdict: string | null; void?: boolean };

async function runStore(store: "sqlite" | "postgres") {
  const dataDir = mkdtempSync(join(tmpdir(), `hearth-bench-realistic-${store}-`));
  let cluster: Cluster | null = null;
  const clients: LineProcess[] = [];
  let app: App | null = null;
  try {
    let databaseUrl: string | undefined;
    let serverPids = (): number[] => [];
    if (store === "postgres") {
      cluster = await startCluster({ settings: { fsync: "on", full_page_writes: "on" } });
      databaseUrl = await createDatabase(cluster.url, "hearth_realistic");
      const port = new URL(cluster.url).port;
      serverPids = () => postgresPids(port);
    }
    ({ app } = await startHearth(dataDir, { jwtSecret: SECRET, ...(databaseUrl ? { databaseUrl } : {}) }));
    const owner = await app.store.users.create({ username: "rl_owner", email: "rl_owner@bench.test", passwordHash: "x", isBot: false });
    if (!owner.ok) throw new Error("owner");
    const tokens = new TokenService(jwtCodec(SECRET), "30d");
    for (let i = 0; i < CLIENTS; i++) clients.push(new LineProcess([process.execPath, CLIENT_SCRIPT, app.url, String(SPEED), String(1000 + i)]));

    const steps: Step[] = [];
    let connections = 0;
    /** People dealt to each load process (in turn), and how many of them are online. */
    const known = clients.map(() => 0);
    const onlineOf = clients.map(() => 0);
    let batches = 0;
    /**
     * Online: `people` people on `people / SPEED` connections. Those disconnected by an earlier
     * step connect again first; the rest are seeded and connected; or the last ones disconnect.
     */
    const goTo = async (people: number) => {
      const target = Math.round(people / SPEED);
      const total = known.reduce((a, b) => a + b, 0);
      const t0 = performance.now();
      const keep = async (counts: number[]) => {
        await Promise.all(clients.map((c, i) => c.ask(`keep ${counts[i]}`, 600_000)));
        counts.forEach((n, i) => (onlineOf[i] = n));
      };
      if (target > total) {
        if (onlineOf.some((n, i) => n < known[i]!)) await keep(known);
        const batch = await seedBatch(app!, owner.user.id, tokens, total, target - total, ++batches);
        const seededMs = Math.round(performance.now() - t0);
        await Promise.all(
          clients.map((c, i) => {
            const mine = batch.filter((_, k) => k % CLIENTS === i);
            known[i]! += mine.length;
            onlineOf[i] = known[i]!;
            return c.ask(`add ${JSON.stringify(mine)}`, 600_000);
          }),
        );
        log(`  ${store}: ${people} people (${target} connections): seeded in ${seededMs} ms, connected in ${Math.round(performance.now() - t0 - seededMs)} ms`);
      } else {
        await keep(known.map((n) => Math.round((n * target) / total)));
        log(`  ${store}: ${people} people (${target} connections): the others ${target < connections ? "disconnected" : "connected again"}`);
      }
      connections = onlineOf.reduce((a, b) => a + b, 0);
      await Bun.sleep(WARMUP_S * 1000);
    };
    /**
     * The step at `people`: measured until it holds, or it missed `--confirm` + 1 times. A miss
     * while Hearth's thread waited for a core at least the p99 bound in one stretch, and ran less
     * than that (the shared machine's doing, not Hearth's: capacity-search.ts `--void-tries`), is
     * void and measured again, at most `--void-tries` times.
     */
    const stepAt = async (people: number): Promise<Step> => {
      let misses = 0;
      let voids = 0;
      for (;;) {
        const m = await measure(clients, serverPids, people, connections);
        const step: Step = { ...m, verdict: stepVerdict(m, P99_MS) };
        if (step.verdict !== null && (m.lag_runq_wait_ms ?? 0) >= P99_MS && (m.lag_run_ms ?? 0) < P99_MS && voids < VOID_TRIES) {
          step.void = true;
          voids++;
        } else if (step.verdict !== null) misses++;
        steps.push(step);
        log(
          `  ${store} ${people} people: ${step.messages_per_s} messages/s, ${step.deliveries_per_s} deliveries/s (${step.deliveries_per_message} a message), ` +
            `${step.other_events_per_s} other events/s; delivery p50 ${step.delivery_p50_ms} ms, p99 ${step.delivery_p99_ms} ms, max ${step.delivery_max_ms} ms; ` +
            `server ${Math.round(step.server_cores * 100)}% of a core (${step.people_per_server_core} people a core), loop lag ${step.loop_lag_ms} ms (ran ${step.lag_run_ms}, waited for a core ${step.lag_runq_wait_ms}); ` +
            `clients ${step.clients_cpu_pct.join("/")}% (timers late p99 ${step.clients_timer_late_p99_ms} ms), machine idle ${step.machine?.idle_pct ?? "-"}% steal ${step.machine?.steal_pct ?? "-"}%, load ${step.load_average}: ` +
            `${step.verdict === null ? "held" : step.void ? `void (${step.verdict}; Hearth waited for a core)` : `${step.verdict} (miss ${misses} of ${CONFIRM + 1})`}`,
        );
        if (step.verdict === null || misses > CONFIRM) return step;
      }
    };

    // Up by FACTOR until a step misses; down by FACTOR while the first ones miss; then one
    // bisection between the last that held and the first that missed (disconnecting people).
    let held: Step | null = null;
    let missedAt: number | null = null;
    let people = START;
    for (let s = 0; s < MAX_STEPS; s++) {
      await goTo(people);
      const step = await stepAt(people);
      if (step.verdict !== null) {
        missedAt = people;
        break;
      }
      held = step;
      people = Math.round(people * FACTOR);
    }
    for (let s = 0; !held && missedAt !== null && s < 3; s++) {
      people = Math.round(missedAt / FACTOR);
      await goTo(people);
      const step = await stepAt(people);
      if (step.verdict === null) held = step;
      else missedAt = people;
    }
    if (held && missedAt !== null && REFINE) {
      people = Math.round((held.people + missedAt) / 2);
      await goTo(people);
      const step = await stepAt(people);
      if (step.verdict === null) held = step;
      else missedAt = people;
    }
    return {
      store,
      capacity_people: held?.people ?? 0,
      capped: missedAt === null,
      people_per_machine_core: held ? Math.round(held.people / CORES) : 0,
      people_per_server_core: held?.people_per_server_core ?? 0,
      server_cores_at_capacity: held?.server_cores ?? null,
      delivery_p99_ms_at_capacity: held?.delivery_p99_ms ?? null,
      missed_at_people: missedAt,
      stopped_by: missedAt === null ? `--max-steps ${MAX_STEPS} reached` : steps.findLast((x) => x.people === missedAt)?.verdict,
      steps,
    };
  } finally {
    for (const c of clients) {
      try {
        c.send("quit");
      } catch {
        c.kill();
      }
    }
    await Promise.all(clients.map((c) => Promise.race([c.proc.exited, Bun.sleep(5000).then(() => c.kill())])));
    await app?.stop();
    await cluster?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const started = performance.now();
const asked = argOf("stores", QUICK || hasFlag("sqlite-only") ? "sqlite" : "sqlite,postgres").split(",");
const stores = (["sqlite", "postgres"] as const).filter((x) => asked.includes(x));
let postgresSkipped: string | null = null;
if (!asked.includes("postgres")) postgresSkipped = QUICK ? "--quick" : "not asked (--stores, --sqlite-only)";
else if (!postgresBinDir()) {
  postgresSkipped = "PostgreSQL is not installed (apt-get install postgresql)";
  stores.splice(stores.indexOf("postgres"), 1);
}

log(`realistic: speed ${SPEED}x, from ${START} people x${FACTOR} a step, ${WARMUP_S} s warm-up + ${WINDOW_S} s window, ${CLIENTS} load processes, p99 bound ${P99_MS} ms, ${CORES} cores`);
const results = [];
for (const store of stores) {
  const r = await runStore(store);
  results.push(r);
  log(
    `${store}: ${r.capacity_people} people held (${r.capped ? "still holding at the last step" : `${r.missed_at_people} missed: ${r.stopped_by}`}); ` +
      `${r.people_per_machine_core} people per core of the machine, ${r.people_per_server_core} per core the server used (${r.server_cores_at_capacity} cores), p99 ${r.delivery_p99_ms_at_capacity} ms`,
  );
}
if (postgresSkipped) log(`postgres: skipped (${postgresSkipped})`);
console.log(
  JSON.stringify({
    bench: "realistic",
    quick: QUICK,
    speed: SPEED,
    start: START,
    factor: FACTOR,
    warmup_s: WARMUP_S,
    window_s: WINDOW_S,
    clients: CLIENTS,
    p99_bound_ms: P99_MS,
    confirm: CONFIRM,
    void_tries: VOID_TRIES,
    refine: REFINE,
    cores: CORES,
    results,
    postgres_skipped: postgresSkipped,
    seconds: Math.round((performance.now() - started) / 1000),
  }),
);
