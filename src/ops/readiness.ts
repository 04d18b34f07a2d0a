/**
 * What /readyz answers (docs/operations.md, "Health and readiness"): ready when every
 * registered dependency answers within `timeoutMs` and the node is not draining.
 *
 * The app registers "database" (a trivial query) and "disk" (free space under DATA_DIR at least
 * DATA_DIR_MIN_FREE_MB: ./disk-space.ts). Cluster mode adds "redis" (a PING) as a
 * dependency the node can do without (`addDegradable`): while Redis is out the node stays ready
 * and serves its own sockets and REST (docs/operations.md, "Failure modes"), so a load balancer
 * keeps it in; the check then reads "degraded", and /healthz says so too.
 */
type ReadinessCheck = () => Promise<unknown>;

export type CheckState = "ok" | "degraded";
type ReadinessResult = { ready: true; checks: Record<string, CheckState> } | { ready: false; error: string };

export const DRAINING = "draining: this node is shutting down";

export class Readiness {
  private readonly checks = new Map<string, ReadinessCheck>();
  /** Dependencies the node can do without, and whether each is out now (known without I/O). */
  private readonly degradable = new Map<string, () => boolean>();
  private drainingSince: number | null = null;

  constructor(private readonly timeoutMs = 2000) {}

  /** A dependency that must answer (resolve) for the node to be ready; a rejection or a timeout is "not ready". */
  add(name: string, check: ReadinessCheck): void {
    this.checks.set(name, check);
  }

  /** A dependency whose failure leaves the node ready but degraded; `down` says so at once (/healthz). */
  addDegradable(name: string, check: ReadinessCheck, down: () => boolean): void {
    this.checks.set(name, check);
    this.degradable.set(name, down);
  }

  /** The degradable dependencies out now, without I/O (/healthz). */
  degraded(): string[] {
    return [...this.degradable].flatMap(([name, down]) => (down() ? [name] : []));
  }

  /** From now on the node is not ready (it is being stopped). */
  startDraining(): void {
    this.drainingSince ??= Date.now();
  }

  get draining(): boolean {
    return this.drainingSince !== null;
  }

  /** Runs every check at once; the error names each one that failed, and why. */
  async check(): Promise<ReadinessResult> {
    if (this.draining) return { ready: false, error: DRAINING };
    const names = [...this.checks.keys()];
    const outcomes = await Promise.all([...this.checks.values()].map((check) => this.bounded(check)));
    const failed = names.flatMap((name, i) => (outcomes[i] === null || this.degradable.has(name) ? [] : [`${name}: ${outcomes[i]}`]));
    if (failed.length > 0) return { ready: false, error: `not ready: ${failed.join("; ")}` };
    return { ready: true, checks: Object.fromEntries(names.map((name, i): [string, CheckState] => [name, outcomes[i] === null ? "ok" : "degraded"])) };
  }

  /** null when the check answered in time, else why not. */
  private async bounded(check: ReadinessCheck): Promise<string | null> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve(`no answer within ${this.timeoutMs} ms`), this.timeoutMs);
    });
    try {
      return await Promise.race([
        check().then(
          () => null,
          (error: unknown) => (error instanceof Error ? error.message : String(error)) || "failed",
        ),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
}
