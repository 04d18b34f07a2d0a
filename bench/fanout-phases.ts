/**
 * The receivers and the paced/saturating phases of the fan-out benches (bench/gateway-fanout.ts
 * on one node, bench/cluster-fanout.ts over three): receiver processes of bench/fanout-client.ts,
 * a window of messages not yet complete at every receiver, deliveries/s, latency percentiles
 * and the bench process's CPU per delivery; and a fan-out path for the capacity search
 * (`--capacity`, bench/capacity-search.ts, whose options apply). Options (both benches):
 * `--window 16 --per-process 500 --light-deliveries 20000 --yield`.
 */
import { join } from "node:path";
import { STEP_SECONDS, stepOf, watchLoop, watchMachine, type Path } from "./capacity-search.ts";
import { argOf, hasFlag, LineProcess, log, pct } from "./fixture.ts";
import { LatencyHistogram } from "./latency-histogram.ts";

export const WINDOW = Number(argOf("window", "16"));
export const PER_PROCESS = Number(argOf("per-process", "500"));
/** Each send awaited, then one more event-loop turn (as senders arriving one at a time), so no
 *  two messages can share a socket write. By default the saturate phase issues a window's sends
 *  without awaiting each, as requests arriving together would (the store commits them in one
 *  batch, src/store/write-batch.ts, and Bun can coalesce their publishes per socket). */
export const YIELD = hasFlag("yield");
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
export const LIGHT_DELIVERIES = Number(argOf("light-deliveries", "20000"));
/** A message some receiver never completes within this is given up on (a drop or a stall). */
const STALL_MS = 10_000;
/** `--capacity`: instead of the light and saturate phases, each path's sustainable deliveries/s (bench/capacity-search.ts). */
export const CAPACITY = hasFlag("capacity");
/** In a capacity step, a path that delivers nothing more for this long after the last send is behind. */
const STEP_DRAIN_MS = 1500;
const now = () => performance.timeOrigin + performance.now();

interface Report {
  deliveries: number;
  other: number;
  buckets: [number, number][];
  /** Connections the server closed since the reset, opened again (bench/fanout-client.ts). */
  reconnects?: number;
}

/** Wakes the sender whenever any receiver process reports progress. */
let wake: (() => void) | null = null;
const progressed = (timeoutMs: number) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      wake = null;
      resolve();
    }, timeoutMs);
    wake = () => {
      clearTimeout(timer);
      wake = null;
      resolve();
    };
  });

/** A receiver process driven by lines; `c <seq>` lines update `completed`. */
export class Receivers extends LineProcess {
  /** The highest sequence number every connection of this process has received. */
  completed = -1;
  constructor(config: object) {
    super([process.execPath, join(import.meta.dir, "fanout-client.ts")]);
    this.send(JSON.stringify(config));
  }
  protected override intercept(line: string): boolean {
    if (!line.startsWith("c ")) return false;
    this.completed = Number(line.slice(2));
    wake?.();
    return true;
  }
}

export async function spawnReceivers(base: object, tokens: string[] | null, n: number): Promise<Receivers[]> {
  const procs: Receivers[] = [];
  for (let i = 0; i < n; i += PER_PROCESS) {
    const k = Math.min(PER_PROCESS, n - i);
    procs.push(new Receivers({ ...base, ...(tokens ? { tokens: tokens.slice(i, i + k) } : { count: k }) }));
  }
  for (const p of procs) {
    const line = await p.next();
    if (line !== "ready") throw new Error(`receiver process not ready: ${line}`);
  }
  return procs;
}
export const allCompleted = (procs: Receivers[]) => procs.reduce((m, p) => Math.min(m, p.completed), Infinity);

// ---- phases ----
export interface Row {
  mode: string;
  sockets: number;
  phase: "light" | "saturate" | "step";
  messages: number;
  delivered: number;
  expected: number;
  seconds: number;
  messages_per_s: number;
  deliveries_per_s: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  cpu_us_per_delivery: number;
  /** The kernel's share of it (system time: one socket write per receiver, unless batched). */
  cpu_sys_us_per_delivery: number;
  server_cpu_pct: number;
  stalled: boolean;
  send_errors: number;
  /** Receiver connections the server closed during the phase (each opened again at once). */
  receivers_reconnected: number;
  /** The worst lateness of this process's event loop during the phase, ms (capacity-search.ts `watchLoop`). */
  loop_lag_ms: number;
  /**
   * A capacity step: how late this process issued its sends against their schedule, p99, ms. A
   * send issued late was not offered at the step's rate (the sender shares the servers' thread).
   */
  send_lag_p99_ms: number;
  /** Where that lateness went, and the machine during the phase (capacity-search.ts). */
  lag_run_ms: number | null;
  lag_runq_wait_ms: number | null;
  machine: { steal_pct: number; softirq_pct: number; idle_pct: number } | null;
}

/** p50, p99 and max of the receivers' histograms (bench/latency-histogram.ts), ms. */
function percentiles(reports: Report[]): { p50: number; p99: number; max: number } {
  const [p50, p99, max] = LatencyHistogram.quantiles(reports.map((r) => r.buckets), [0.5, 0.99, 1]).at;
  return { p50: p50!, p99: p99!, max: max! };
}

/** Sends message `seq` (its content carries seq and the send time). */
export type Send = (seq: number) => Promise<unknown> | void;
let seq = 0;
/** The next message sequence number (the content and the receivers' progress use it). */
export const nextSeq = () => seq++;
/** Sends in flight (saturate phase), and the ones that failed. */
const sending = new Set<Promise<unknown>>();
let sendErrors = 0;
const track = (p: Promise<unknown> | void) => {
  if (!p) return;
  sending.add(p);
  p.then(
    () => sending.delete(p),
    (error: unknown) => {
      sending.delete(p);
      if (sendErrors++ === 0) log(`send failed: ${String(error)}`);
    },
  );
};
export const content = (s: number) => `fo ${s} ${now().toFixed(3)}`;

/** One phase; a capacity step (`kind` "step") offers `stepRate` messages/s. */
export async function phase(mode: string, kind: Row["phase"], n: number, procs: Receivers[], send: Send, seconds: number, stepRate = 0): Promise<Row> {
  await Promise.all(procs.map((p) => p.ask("reset")));
  for (const p of procs) p.completed = -1;
  Bun.gc(true);
  const first = seq;
  const errors0 = sendErrors;
  let stalled = false;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const until = t0 + seconds * 1000;
  const loop = watchLoop();
  const machine = watchMachine();
  const sendLags: number[] = [];
  if (kind === "step") {
    // Capacity step: `stepRate` messages/s on a fixed schedule, each send issued without
    // waiting for the previous one (requests arriving on their own), whether or not the
    // receivers keep up.
    const total = Math.max(1, Math.round(stepRate * seconds));
    for (let i = 0; i < total; i++) {
      const wait = t0 + (i * 1000) / stepRate - performance.now();
      if (wait > 1) await Bun.sleep(wait);
      sendLags.push(Math.max(0, -(t0 + (i * 1000) / stepRate - performance.now())));
      track(send(nextSeq()));
    }
  } else if (kind === "light") {
    const rate = Math.max(1, LIGHT_DELIVERIES / n);
    const total = Math.max(1, Math.round(rate * seconds));
    for (let i = 0; i < total; i++) {
      const due = t0 + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0.5) await Bun.sleep(wait);
      await send(nextSeq());
    }
  } else {
    let lastProgress = performance.now();
    let done = first - 1;
    while (performance.now() < until) {
      // Read progress right before deciding to wait, so no report is missed while sending.
      const d = allCompleted(procs);
      if (d > done) {
        done = d;
        lastProgress = performance.now();
      }
      if (seq - 1 - done < WINDOW) {
        if (YIELD) {
          await send(nextSeq());
          await nextTurn();
        } else track(send(nextSeq()));
        continue;
      }
      if (performance.now() - lastProgress >= STALL_MS) {
        stalled = true;
        break;
      }
      await progressed(STALL_MS);
    }
  }
  await Promise.allSettled(sending);
  // Drain: until every process has the last message (or nothing moves for STALL_MS).
  let tEnd = performance.now();
  const last = seq - 1;
  let lastProgress = performance.now();
  let done = Math.max(first - 1, allCompleted(procs));
  while (done < last) {
    await progressed(250);
    const d = allCompleted(procs);
    if (d > done) {
      done = d;
      lastProgress = performance.now();
    } else if (performance.now() - lastProgress >= (kind === "step" ? STEP_DRAIN_MS : STALL_MS)) {
      stalled = kind !== "step";
      break;
    }
  }
  if (done >= last) tEnd = performance.now();
  await Bun.sleep(50);
  const loopLag = loop.stop();
  const box = machine.stop();
  const cpu = process.cpuUsage(cpu0);
  const reports = (await Promise.all(procs.map((p) => p.ask("report")))).map((l) => JSON.parse(l) as Report);
  const messages = seq - first;
  const delivered = reports.reduce((s, r) => s + r.deliveries, 0);
  const elapsed = (tEnd - t0) / 1000;
  const lat = percentiles(reports);
  return {
    mode,
    sockets: n,
    phase: kind,
    messages,
    delivered,
    expected: messages * n,
    seconds: Math.round(elapsed * 100) / 100,
    messages_per_s: Math.round(messages / elapsed),
    deliveries_per_s: Math.round(delivered / elapsed),
    p50_ms: lat.p50,
    p99_ms: lat.p99,
    max_ms: lat.max,
    cpu_us_per_delivery: delivered ? Math.round(((cpu.user + cpu.system) / delivered) * 100) / 100 : NaN,
    cpu_sys_us_per_delivery: delivered ? Math.round((cpu.system / delivered) * 100) / 100 : NaN,
    server_cpu_pct: Math.round(((cpu.user + cpu.system) / 1e4 / elapsed) * 10) / 10,
    stalled,
    send_errors: sendErrors - errors0,
    receivers_reconnected: reports.reduce((a, r) => a + (r.reconnects ?? 0), 0),
    loop_lag_ms: loopLag,
    send_lag_p99_ms: pct(sendLags.sort((a, b) => a - b), 0.99, 0),
    lag_run_ms: loop.worst().run_ms,
    lag_runq_wait_ms: loop.worst().runq_wait_ms,
    machine: box,
  };
}

/** The rows as a table on stderr. */
export function logRows(rows: Row[]): void {
  log("mode    sockets  phase      messages  delivered/expected   deliveries/s   p50 ms    p99 ms    max ms  cpu µs/deliv (sys)   cpu%");
  for (const r of rows.slice().sort((a, b) => a.sockets - b.sockets || a.phase.localeCompare(b.phase))) {
    log(
      `${r.mode.padEnd(7)} ${String(r.sockets).padStart(7)}  ${r.phase.padEnd(9)} ${String(r.messages).padStart(9)} ${`${r.delivered}/${r.expected}`.padStart(19)} ${String(r.deliveries_per_s).padStart(14)} ${String(r.p50_ms).padStart(8)} ${String(r.p99_ms).padStart(9)} ${String(r.max_ms).padStart(9)} ${String(r.cpu_us_per_delivery).padStart(13)} ${`(${r.cpu_sys_us_per_delivery})`.padStart(7)} ${String(r.server_cpu_pct).padStart(6)}${r.stalled ? "  STALLED" : ""}${r.send_errors ? `  ${r.send_errors} SEND ERRORS` : ""}${r.receivers_reconnected ? `  ${r.receivers_reconnected} RECONNECTED` : ""}`,
    );
  }
}

// ---- capacity (bench/capacity-search.ts): a step is `phase("step")` at the offered load ----
/** A fan-out path for the capacity search: `send` to the receivers of `procs`, after `use()`. */
export function fanoutPath(mode: string, n: number, procs: Receivers[], send: Send, use: () => void = () => {}): Path {
  return {
    mode,
    use,
    async step(offered) {
      const row = await phase(mode, "step", n, procs, send, STEP_SECONDS, offered / n);
      return { ...stepOf(offered, row.delivered, row.expected, row.deliveries_per_s, row.p99_ms, row.cpu_us_per_delivery, row.send_errors, row.send_lag_p99_ms), send_lag_p99_ms: row.send_lag_p99_ms, loop_lag_ms: row.loop_lag_ms, server_cpu_pct: row.server_cpu_pct, receivers_reconnected: row.receivers_reconnected, lag_run_ms: row.lag_run_ms, lag_runq_wait_ms: row.lag_runq_wait_ms, ...row.machine };
    },
  };
}
