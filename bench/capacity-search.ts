/**
 * The capacity search shared by `bench/audio-relay.ts --scenario capacity` and the fan-out
 * benches' `--capacity` (bench/fanout-phases.ts; bench/README.md, "Method"): each path's
 * highest offered load (deliveries/s) it sustains, the paths taking turns at every step so that
 * the shared machine's slow moments fall on all of them alike. Options (every bench that uses
 * it): `--step-seconds 2 --start 20000 --max 20000000 --refine 2 --p99-ms 50 --confirm 2 --void-tries 4
 * --rounds 1 --pin 0`.
 */
import { openSync, readFileSync, readSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { argOf, log, setLoadPrefix } from "./fixture.ts";

export const STEP_SECONDS = Number(argOf("step-seconds", "2"));
/**
 * `--pin 1` (off by default): the servers under test (this process, every
 * thread) on CPU 0, and every load process started after this (senders, receivers) on the
 * other CPUs, with `taskset`, so that the servers never wait behind their own load generators
 * for a core and the load's bursts land on the other core. Every path gets the same: they run
 * in this one process and share the same load processes' cores. Where `taskset` is missing or
 * there is one CPU, nothing is pinned and the JSON line says so (`pinned: null`). The rest of
 * the machine (other processes, the host's steal) can still use both CPUs.
 */
export function pinCores(): string | null {
  if (argOf("pin", "0") !== "1") return null;
  const taskset = Bun.which("taskset");
  const cpus = availableParallelism();
  if (!taskset || cpus < 2 || process.platform !== "linux") return null;
  const pinned = Bun.spawnSync([taskset, "-a", "-p", "-c", "0", String(process.pid)], { stdout: "ignore", stderr: "pipe" });
  if (pinned.exitCode !== 0) {
    log(`  not pinned: taskset said ${pinned.stderr.toString().trim()}`);
    return null;
  }
  const load = cpus === 2 ? "1" : `1-${cpus - 1}`;
  setLoadPrefix([taskset, "-c", load]);
  return `servers on cpu 0, load processes on cpu ${load}`;
}

/** `--start`, the first offered load, with a bench's own default (slash-command trips/s are fewer than deliveries). */
export const capStart = (benchDefault: number): number => Number(argOf("start", String(benchDefault)));
/** The first offered load in deliveries/s; a bench's warm-up step may use it too. */
export const CAP_START = capStart(20000);
/** Where a search stops rising (deliveries/s). A path still keeping up there is reported as `capped`, with no ratio. */
const CAP_MAX = Number(argOf("max", "20000000"));
const CAP_REFINE = Number(argOf("refine", "2"));
/** A step keeps up only with p99 at most this (50 ms by default). A lone message reaches the
 *  5,000th socket of the fan-out 50-90 ms after the first on this machine, on every path, so at
 *  5,000 sockets no step can meet 50 ms; `--p99-ms 250` measures throughput there instead. */
export const CAP_P99_MS = Number(argOf("p99-ms", "50"));
/**
 * Open requests at most for an open-loop client at `offered` a second: the p99 bound's worth (a
 * server answering within the bound never reaches it; one that falls behind has the rest
 * dropped), and at least 256, which the bursts of a late tick reach at 100k requests/s with
 * the server half idle.
 */
export const maxInFlight = (offered: number): number => Math.max(256, Math.ceil((offered * CAP_P99_MS) / 1000));
/** ... and with at least this share of the offered deliveries delivered. */
const CAP_DELIVERED = 0.99;

/** One step's figures. */
export interface Step {
  offered: number;
  delivered_per_s: number;
  /** Delivered / offered deliveries. */
  ratio: number;
  p99_ms: number;
  /** Server CPU per delivery, µs. */
  cpu_us: number;
  ok: boolean;
  /** The longest the bench process's event loop (the servers') was late during the step, ms. */
  loop_lag_ms?: number;
  /** Fan-out steps: the p99 of how late the in-process sender issued its sends, ms (held to the p99 bound). */
  send_lag_p99_ms?: number;
  /** The bench process's CPU over the step's wall time, % of one core: a long loop lag with a
   *  low share means the servers were waiting for the machine, not busy. */
  server_cpu_pct?: number;
  /** The load generators' CPU, % of one core: the audio bench's sender / receiver processes;
   *  the slash-command bench's client process (as `senders_cpu_pct`). */
  senders_cpu_pct?: number;
  receivers_cpu_pct?: number;
  /** Receiver connections the server closed during the step (a slow consumer past its send
   *  buffer bound), each opened again at once by its process. */
  receivers_reconnected?: number;
  /** The worst loop lag split by the JS thread's scheduler statistics (watchLoop). */
  lag_run_ms?: number | null;
  lag_runq_wait_ms?: number | null;
  /** The whole machine during the step, % of all cores (watchMachine). */
  steal_pct?: number;
  softirq_pct?: number;
  idle_pct?: number;
  /** Fell behind while the servers waited for a core at least the p99 bound: not counted (`--void-tries`). */
  void?: boolean;
  /** The native audio relay's step: frame deliveries it skipped for listeners over its high-water mark, and its stall sweeps. */
  relay_dropped?: number;
  relay_sweeps?: number;
}

/** The main thread's CPU time and time spent runnable but waiting for a core, ns (Linux
 *  `/proc/thread-self/schedstat`); null where it cannot be read. */
function schedOfThisThread(): [number, number] | null {
  try {
    // An open file read again at offset 0 (procfs regenerates it): ~2 µs against ~8 for readFileSync.
    schedFd ??= openSync("/proc/thread-self/schedstat", "r");
    const n = readSync(schedFd, schedBuf, 0, schedBuf.length, 0);
    const [run, wait] = schedBuf.toString("latin1", 0, n).split(" ").map(Number);
    return Number.isFinite(run) && Number.isFinite(wait) ? [run!, wait!] : null;
  } catch {
    return null;
  }
}
let schedFd: number | undefined;
const schedBuf = Buffer.alloc(128);

/** Where the longest loop lag of a step went: ms the JS thread ran, ms it waited for a core
 *  (runnable, not running: the machine's scheduling), and the rest, ms it slept (blocked in the
 *  kernel or idle in its poll). */
export interface LagDetail {
  lag_ms: number;
  run_ms: number | null;
  runq_wait_ms: number | null;
}

/**
 * Watches the event loop of this process (which runs the servers under test) from now: a 5 ms
 * timer's lateness. `stop()` answers the worst, in ms: a long pause of the server itself (a GC,
 * a sweep) shows here, while a step that falls behind with a short one was slowed elsewhere
 * (the receivers, the senders, the rest of the machine). `worst()` (after `stop`) splits the
 * worst lateness by the JS thread's scheduler statistics: a GC pause or long task is `run_ms`,
 * the machine not giving the thread a core is `runq_wait_ms`.
 */
export function watchLoop(): { stop(): number; worst(): LagDetail } {
  let worst: LagDetail = { lag_ms: 0, run_ms: null, runq_wait_ms: null };
  let last = performance.now();
  let sched = schedOfThisThread();
  const tick = () => {
    const now = performance.now();
    const lag = now - last - 5;
    const s = schedOfThisThread();
    if (lag > worst.lag_ms) {
      worst = {
        lag_ms: Math.round(lag),
        run_ms: s && sched ? Math.round((s[0] - sched[0]) / 1e5) / 10 : null,
        runq_wait_ms: s && sched ? Math.round((s[1] - sched[1]) / 1e5) / 10 : null,
      };
    }
    last = now;
    sched = s;
  };
  const timer = setInterval(tick, 5);
  return {
    stop() {
      clearInterval(timer);
      tick();
      return Math.round(Math.max(worst.lag_ms, 0));
    },
    worst: () => worst,
  };
}

/** The machine's CPU time over a step, % of all cores (Linux `/proc/stat`): stolen by the host,
 *  in softirq (the network stack's receive work lands here), idle; null where unreadable. */
export function watchMachine(): { stop(): { steal_pct: number; softirq_pct: number; idle_pct: number } | null } {
  const read = (): number[] | null => {
    try {
      return readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
    } catch {
      return null;
    }
  };
  const a = read();
  return {
    stop() {
      const b = read();
      if (!a || !b) return null;
      const d = b.map((v, i) => v - (a[i] ?? 0));
      const total = d.slice(0, 8).reduce((x, y) => x + y, 0) || 1;
      const pc = (v: number) => Math.round((v / total) * 1000) / 10;
      // user nice system idle iowait irq softirq steal
      return { idle_pct: pc(d[3]! + d[4]!), softirq_pct: pc(d[6]!), steal_pct: pc(d[7]!) };
    },
  };
}
/** A step's figures, `ok` when it kept up (nothing failed to send, `failures`; the sender kept its schedule, `sendLagP99Ms`). */
export function stepOf(offered: number, delivered: number, expected: number, deliveredPerSecond: number, p99_ms: number, cpu_us: number, failures = 0, sendLagP99Ms = 0): Step {
  const ratio = delivered / Math.max(1, expected);
  return {
    offered: Math.round(offered),
    delivered_per_s: Math.round(deliveredPerSecond),
    ratio: Math.round(ratio * 1000) / 1000,
    p99_ms,
    cpu_us,
    // Latency is timed from each send, so a sender that fell behind its schedule (in the fan-out
    // bench it shares the servers' thread) would hide the wait before it: that lateness is held
    // to the same bound.
    ok: ratio >= CAP_DELIVERED && p99_ms <= CAP_P99_MS && sendLagP99Ms <= CAP_P99_MS && failures === 0,
  };
}

/** A path: its name, how to make it the one exercised, and one step at an offered load. */
export interface Path {
  mode: string;
  use(): void;
  step(offered: number): Promise<Step>;
}

/** `--confirm`: a step that falls behind is tried up to this many more times before it counts. */
const CAP_CONFIRM = Number(argOf("confirm", "2"));
/**
 * `--void-tries`: a try that falls behind while this process's JS thread (the servers) waited
 * for a core, runnable but not running, for at least the p99 bound in one stretch (watchLoop's
 * `runq_wait_ms`: the machine's other work or the host's steal held the core), and ran less than
 * that bound in the same stretch (`run_ms`: not the server's own work), is void: it is run again
 * on the path's next turn and does not count as a miss, up to this many times per offered load;
 * after that it counts like any other. A server that is itself behind (its thread running for
 * longer than the bound at a stretch) is not given another try, however long it also waited.
 */
const CAP_VOID_TRIES = Number(argOf("void-tries", "4"));
/** `--rounds`: the whole search is run this many times; capacities and ratios are the medians, with their range. */
export const CAP_ROUNDS = Number(argOf("rounds", "1"));

/** A path's search in one round: where it stands; `best` is its highest step that kept up. */
interface Search {
  path: Path;
  next: number;
  stage: "up" | "down" | "refine" | "done";
  lo: number;
  hi: number;
  refineLeft: number;
  /** Tries of the current offered load that fell behind so far. */
  misses: number;
  /** Tries of the current offered load made void so far (`--void-tries`). */
  voids: number;
  best: Step | null;
  steps: Step[];
  /** The search passed `--max` without a step falling behind: the capacity is at least `best`, not measured. */
  capped: boolean;
}

/** Each path's figures over the rounds. */
export interface Capacity {
  mode: string;
  /** Per round: the delivered rate of the highest step that kept up (0: none did). */
  runs: number[];
  /** Per round: server CPU per delivery at that step (µs). */
  cpu_us: (number | null)[];
  steps: Step[][];
  /** Per round: the search passed `--max` still keeping up, so `runs` holds a lower bound, not a capacity. */
  capped: boolean[];
}

/** The median of numbers (null when there are none). */
export const median = (values: number[]): number | null => {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (!sorted.length) return null;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/**
 * Each path's capacity, `--rounds` times. In a round the offered load rises by 1.5x from
 * `--start` deliveries/s (later rounds: from half the path's previous capacity) until a step
 * falls behind, or, for a path behind from the first step (stock), falls by 1.5x until one keeps
 * up; then `--refine` bisections between the last load that kept up and the first that did not.
 * A step that falls behind counts only when `--confirm` more tries at the same load fall behind
 * too; the paths take turns step by step, retries included, so the tries of one load are seconds
 * apart with the other paths' steps between them, not back to back in one slow moment of the
 * shared machine. One try that keeps up is enough: the machine's noise only ever makes a path
 * look slower, never faster. A path's capacity in a round is the delivered rate of its highest
 * step that kept up. `what` names the load in the log ("50 receivers"); `start` is `--start`
 * (a bench's own default through `capStart`).
 */
export async function capacitySearch(paths: Path[], what: string, start = CAP_START): Promise<Capacity[]> {
  const results: Capacity[] = paths.map((p) => ({ mode: p.mode, runs: [], cpu_us: [], steps: [], capped: [] }));
  for (let round = 0; round < CAP_ROUNDS; round++) {
    const searches: Search[] = paths.map((path, i) => {
      const previous = results[i]!.runs.at(-1);
      const next = previous ? Math.max(start, previous / 2.25) : start;
      return { path, next, stage: "up", lo: 0, hi: 0, refineLeft: CAP_REFINE, misses: 0, voids: 0, best: null, steps: [], capped: false };
    });
    if (CAP_ROUNDS > 1) log(`  round ${round + 1} of ${CAP_ROUNDS}`);
    await searchRound(searches, what, start);
    searches.forEach((x, i) => {
      results[i]!.runs.push(x.best?.delivered_per_s ?? 0);
      results[i]!.cpu_us.push(x.best?.cpu_us ?? null);
      results[i]!.steps.push(x.steps);
      results[i]!.capped.push(x.capped);
      if (x.capped) log(`  ${x.path.mode}: still keeping up past --max ${CAP_MAX}/s: its capacity was not reached (no ratio with it this round; raise --max)`);
    });
  }
  return results;
}

async function searchRound(searches: Search[], what: string, start: number): Promise<void> {
  const refine = (x: Search) => {
    if (x.refineLeft-- <= 0) x.stage = "done";
    else {
      x.stage = "refine";
      x.next = (x.lo + x.hi) / 2;
    }
  };
  while (searches.some((x) => x.stage !== "done")) {
    for (const x of searches) {
      if (x.stage === "done") continue;
      x.path.use();
      const step = await x.path.step(x.next);
      const waited = step.lag_runq_wait_ms ?? 0;
      const ran = step.lag_run_ms ?? 0;
      if (!step.ok && waited >= CAP_P99_MS && ran < CAP_P99_MS && x.voids < CAP_VOID_TRIES) {
        step.void = true;
        x.voids++;
      }
      x.steps.push(step);
      log(`  ${x.path.mode} ${what}: offered ${step.offered}/s -> ${step.delivered_per_s}/s (${step.ratio}), p99 ${step.p99_ms} ms${step.send_lag_p99_ms ? `, sends late by ${step.send_lag_p99_ms} ms (p99)` : ""}, ${step.cpu_us} µs/delivery, loop lag ${step.loop_lag_ms ?? "-"} ms${step.lag_runq_wait_ms == null ? "" : ` (ran ${step.lag_run_ms}, waited for a core ${step.lag_runq_wait_ms})`}, server CPU ${step.server_cpu_pct ?? "-"}%${step.senders_cpu_pct === undefined ? "" : ` (senders ${step.senders_cpu_pct}%${step.receivers_cpu_pct === undefined ? "" : `, receivers ${step.receivers_cpu_pct}%`})`}${step.receivers_reconnected ? `, ${step.receivers_reconnected} receivers closed by the server and reconnected` : ""}${step.relay_dropped === undefined ? "" : `, relay: ${step.relay_dropped} deliveries dropped for listeners behind, ${step.relay_sweeps} sweeps`}${step.steal_pct === undefined ? "" : `, machine: idle ${step.idle_pct}%, steal ${step.steal_pct}%, softirq ${step.softirq_pct}%`} ${step.ok ? "ok" : step.void ? `void: the servers waited ${waited} ms for a core (${x.voids} of ${CAP_VOID_TRIES})` : `behind (${x.misses + 1} of ${CAP_CONFIRM + 1})`}`);
      if (step.void) continue; // tried again at the same load on this path's next turn
      if (!step.ok && x.misses < CAP_CONFIRM) {
        x.misses++; // tried again at the same load on this path's next turn
        continue;
      }
      x.misses = 0;
      x.voids = 0;
      if (step.ok) {
        if (!x.best || step.delivered_per_s > x.best.delivered_per_s) x.best = step;
        x.lo = x.next;
      } else x.hi = x.next;
      if (x.stage === "up") {
        if (step.ok) {
          x.next *= 1.5;
          if (x.next > CAP_MAX) {
            x.stage = "done";
            x.capped = true;
          }
        } else if (x.best) refine(x);
        else {
          x.stage = "down";
          x.next /= 1.5;
        }
      } else if (x.stage === "down") {
        if (step.ok) refine(x);
        else if ((x.next /= 1.5) < start / 20) x.stage = "done";
      } else refine(x);
    }
  }
}

/** The capacities for a JSON line: `<mode>_capacity` (the median over rounds), its runs, CPU per delivery. */
export function capacityFields(results: Capacity[]): Record<string, unknown> {
  const fields: Record<string, unknown> = { step_seconds: STEP_SECONDS, p99_bound_ms: CAP_P99_MS, confirm: CAP_CONFIRM, void_tries: CAP_VOID_TRIES, rounds: CAP_ROUNDS };
  for (const x of results) fields[`${x.mode}_void_tries`] = x.steps.flat().filter((s) => s.void).length;
  for (const x of results) {
    fields[`${x.mode}_capacity`] = median(x.runs);
    fields[`${x.mode}_capacity_runs`] = x.runs;
    if (x.capped.some(Boolean)) fields[`${x.mode}_capped_runs`] = x.capped;
    fields[`${x.mode}_cpu_us_per_delivery`] = median(x.cpu_us.filter((c): c is number => c !== null));
  }
  return fields;
}

/** a / b to two decimals, or null when either is missing. */
const ratioOf = (a: number | undefined, b: number | undefined) => (typeof a === "number" && typeof b === "number" && a > 0 && b > 0 ? Math.round((a / b) * 100) / 100 : null);

/**
 * `a`'s capacity over `b`'s, round by round (both measured in the same round, so in the same
 * stretch of the machine's load): the median, the range and each round's.
 */
export function capacityRatio(results: Capacity[], a: string, b: string): { median: number | null; min: number | null; max: number | null; runs: (number | null)[] } {
  const ra = results.find((x) => x.mode === a);
  const rb = results.find((x) => x.mode === b);
  // A round where either search passed --max has no ratio: one side's capacity is only a lower bound.
  const runs = ra && rb ? ra.runs.map((v, i) => (ra.capped[i] || rb.capped[i] ? null : ratioOf(v, rb.runs[i]))) : [];
  const known = runs.filter((r): r is number => r !== null);
  const m = median(known);
  return { median: m === null ? null : Math.round(m * 100) / 100, min: known.length ? Math.min(...known) : null, max: known.length ? Math.max(...known) : null, runs };
}

/** `<a>_over_<b>` (the median over rounds), its `_range` and its `_runs`, for a JSON line. */
export function ratioFields(results: Capacity[], a: string, b: string): Record<string, unknown> {
  const r = capacityRatio(results, a, b);
  return { [`${a}_over_${b}`]: r.median, [`${a}_over_${b}_range`]: [r.min, r.max], [`${a}_over_${b}_runs`]: r.runs };
}

/**
 * Server CPU per delivery of `a` over `b` where both were offered the same load and kept up
 * (any round; the first round's loads are the same ladder for every path): the median over
 * those loads of a's median over b's. Steadier than the capacities when the machine's steal
 * decides where a search ends, and read at loads that both paths carried in full.
 */
export function cpuRatioAtCommonLoads(results: Capacity[], a: string, b: string): { ratio: number | null; at_offered: number[] } {
  const okAt = (mode: string) => {
    const byLoad = new Map<number, number[]>();
    for (const s of results.find((x) => x.mode === mode)?.steps.flat() ?? []) if (s.ok && Number.isFinite(s.cpu_us)) byLoad.set(s.offered, [...(byLoad.get(s.offered) ?? []), s.cpu_us]);
    return byLoad;
  };
  const ca = okAt(a);
  const cb = okAt(b);
  const common = [...ca.keys()].filter((load) => cb.has(load)).sort((x, y) => x - y);
  const ratio = median(common.map((load) => median(ca.get(load)!)! / median(cb.get(load)!)!));
  return { ratio: ratio === null ? null : Math.round(ratio * 1000) / 1000, at_offered: common };
}

/** Every step of every path, by mode (one list per round). */
export const capacitySteps = (results: Capacity[]) => Object.fromEntries(results.map((x) => [x.mode, x.steps]));

/** "0.83 (0.61-1.02)" for the log. */
export const ratioText = (r: ReturnType<typeof capacityRatio>) =>
  r.median === null ? "-" : r.runs.length > 1 ? `${r.median} (${r.min}-${r.max}; ${r.runs.map((x) => x ?? "-").join(", ")})` : String(r.median);

/** The machine's 1-minute load average, to one decimal (the figures depend on it: the machine is shared). */
export const loadAverage = () => Math.round(loadavg()[0]! * 10) / 10;
