/**
 * The capacity search shared by `bench/audio-relay.ts --scenario capacity` and the fan-out
 * benches' `--capacity` (bench/fanout-phases.ts; bench/README.md, "Capacity"): each path's
 * highest offered load (deliveries/s) it sustains, the paths taking turns at every step so that
 * the shared machine's slow moments fall on all of them alike. Options (every bench that uses
 * it): `--step-seconds 2 --start 20000 --max 3000000 --refine 2 --p99-ms 50`.
 */
import { argOf, log } from "./fixture.ts";

export const STEP_SECONDS = Number(argOf("step-seconds", "2"));
/** The first offered load (deliveries/s); a bench's warm-up step may use it too. */
export const CAP_START = Number(argOf("start", "20000"));
const CAP_MAX = Number(argOf("max", "3000000"));
const CAP_REFINE = Number(argOf("refine", "2"));
/** A step keeps up only with p99 at most this (issue 21: 50 ms). A lone message reaches the
 *  5,000th socket of the fan-out 50-90 ms after the first on this machine, on every path, so at
 *  5,000 sockets no step can meet 50 ms; `--p99-ms 250` measures throughput there instead. */
export const CAP_P99_MS = Number(argOf("p99-ms", "50"));
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
}
/** A step's figures, `ok` when it kept up (and nothing failed to send, `failures`). */
export function stepOf(offered: number, delivered: number, expected: number, deliveredPerSecond: number, p99_ms: number, cpu_us: number, failures = 0): Step {
  const ratio = delivered / Math.max(1, expected);
  return {
    offered: Math.round(offered),
    delivered_per_s: Math.round(deliveredPerSecond),
    ratio: Math.round(ratio * 1000) / 1000,
    p99_ms,
    cpu_us,
    ok: ratio >= CAP_DELIVERED && p99_ms <= CAP_P99_MS && failures === 0,
  };
}

/** A path: its name, how to make it the one exercised, and one step at an offered load. */
export interface Path {
  mode: string;
  use(): void;
  step(offered: number): Promise<Step>;
}
/** A path's search: where it stands; `best` is its highest step that kept up. */
export interface Search extends Path {
  next: number;
  stage: "up" | "down" | "refine" | "done";
  lo: number;
  hi: number;
  refineLeft: number;
  best: Step | null;
  steps: Step[];
}
export const newSearch = (path: Path): Search => ({ ...path, next: CAP_START, stage: "up", lo: 0, hi: 0, refineLeft: CAP_REFINE, best: null, steps: [] });

/**
 * Each path's capacity: the offered load rises by 1.5x from `--start` deliveries/s until a step
 * falls behind (a failing step is tried once more before it counts), or, for a path behind from
 * the first step (stock), falls by 1.5x until one keeps up; then `--refine` bisections between
 * the last step that kept up and the first that did not. A path's capacity is the delivered
 * rate of its highest step that kept up. `what` names the load in the log ("50 receivers").
 */
export async function capacitySearch(searches: Search[], what: string): Promise<void> {
  const tryAt = async (x: Search, offered: number) => {
    x.use();
    let step: Step | null = null;
    for (let attempt = 0; attempt < 2 && !step?.ok; attempt++) {
      step = await x.step(offered);
      x.steps.push(step);
      log(`  ${x.mode} ${what}: offered ${step.offered}/s -> ${step.delivered_per_s}/s (${step.ratio}), p99 ${step.p99_ms} ms, ${step.cpu_us} µs/delivery ${step.ok ? "ok" : "behind"}`);
    }
    return step!;
  };
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
      const step = await tryAt(x, x.next);
      if (step.ok) {
        x.best = step;
        x.lo = x.next;
      } else x.hi = x.next;
      if (x.stage === "up") {
        if (step.ok) {
          x.next *= 1.5;
          if (x.next > CAP_MAX) x.stage = "done";
        } else if (x.best) refine(x);
        else {
          x.stage = "down";
          x.next /= 1.5;
        }
      } else if (x.stage === "down") {
        if (step.ok) refine(x);
        else if ((x.next /= 1.5) < CAP_START / 20) x.stage = "done";
      } else refine(x);
    }
  }
}

/** The searches' results for a JSON line: `<mode>_capacity`, its CPU per delivery and p99. */
export function capacityFields(searches: Search[]): Record<string, unknown> {
  const fields: Record<string, unknown> = { step_seconds: STEP_SECONDS, p99_bound_ms: CAP_P99_MS };
  for (const x of searches) {
    fields[`${x.mode}_capacity`] = x.best?.delivered_per_s ?? 0;
    fields[`${x.mode}_cpu_us_per_delivery`] = x.best?.cpu_us ?? null;
    fields[`${x.mode}_p99_ms`] = x.best?.p99_ms ?? null;
  }
  return fields;
}
/** Every step of every path, by mode. */
export const capacitySteps = (searches: Search[]) => Object.fromEntries(searches.map((x) => [x.mode, x.steps]));
/** a / b to two decimals, or null when either is missing. */
export const capacityRatio = (a: unknown, b: unknown) => (typeof a === "number" && typeof b === "number" && b > 0 ? Math.round((a / b) * 100) / 100 : null);
