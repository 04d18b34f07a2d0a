import { RedisUnavailableError } from "../cluster/redis-unavailable.ts";

/**
 * Whether the database can be reached (docs/operations.md, "Failure modes"): a statement that
 * failed because the server could not be reached or went away is answered as DatabaseUnavailable
 * (REST: 503 with Retry-After), every such failure is counted, and listeners hear of the outage
 * once when it starts and once when a statement begun after that succeeds, so the log says it
 * twice instead of once per request (or per straggler of a busy pool).
 */

/** The store could not reach its database; nothing of the failed operation was committed. */
export class DatabaseUnavailableError extends Error {
  override name = "DatabaseUnavailableError";
  constructor(override readonly cause: unknown) {
    super("Database unavailable");
  }
}

/**
 * Bun's client's codes for a connection it could not open or lost, the socket errors under them,
 * and PostgreSQL's SQLSTATEs of a server that is shutting down, starting or out of connections
 * (classes 08 and 57P, 53300).
 */
const UNAVAILABLE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT"]);

export function isUnavailable(error: unknown): boolean {
  if (error instanceof DatabaseUnavailableError) return true;
  const { code, errno } = (error ?? {}) as { code?: unknown; errno?: unknown };
  // ERR_POSTGRES_CONNECTION_REFUSED, _CLOSED, _FAILED, _TIMEOUT: Bun's client could not open or keep one.
  if (typeof code === "string" && (code.startsWith("ERR_POSTGRES_CONNECTION_") || UNAVAILABLE_CODES.has(code))) return true;
  return typeof errno === "string" && (errno.startsWith("08") || errno.startsWith("57P") || errno === "53300");
}

export class Availability {
  /** Failures for want of the database, since start (the `hearth_db_unavailable_errors_total` counter). */
  errors = 0;
  /** When the current outage began (ms since the epoch), or null while the database answers. */
  downSince: number | null = null;
  private readonly listeners = new Set<(available: boolean, downForMs: number) => void>();
  /** Operations begun so far; an operation's ticket is its number. */
  private begun = 0;
  /** `begun` when the state last changed. */
  private changedAt = 0;

  onChange(listener: (available: boolean, downForMs: number) => void): void {
    this.listeners.add(listener);
  }

  /**
   * Called as an operation starts; its outcome is reported with the ticket returned. Under load
   * operations overlap a change: one that began before the database came back can still fail
   * after others succeeded (it waited on a connection that was refused), and one that began
   * before the outage can still succeed after others failed. Such an outcome is old news and
   * changes nothing, so an outage is one warning and one recovery, not a flap of them.
   */
  begin(): number {
    return ++this.begun;
  }

  /** Without a ticket the outcome is news (a connection's own state change, as Redis reports). */
  failed(ticket = this.begin()): void {
    this.errors++;
    if (this.downSince !== null || ticket <= this.changedAt) return;
    this.downSince = Date.now();
    this.changedAt = this.begun;
    for (const listener of this.listeners) listener(false, 0);
  }

  answered(ticket = this.begin()): void {
    if (this.downSince === null || ticket <= this.changedAt) return;
    const downFor = Date.now() - this.downSince;
    this.downSince = null;
    this.changedAt = this.begun;
    for (const listener of this.listeners) listener(true, downFor);
  }
}

/**
 * A `.catch` for background work (presence, sweeps): its failure is logged as an error, unless
 * the database (or, in cluster mode, Redis) is out of reach, or the disk is full, which was said
 * once already (one debug line each then).
 */
/** The two levels it logs at (any Logger: not imported, which would make an import cycle). */
interface FailureLog {
  debug(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export function logFailure(log: FailureLog, message: string): (error: unknown) => void {
  return (error) => {
    // A storage failure by its name: ./storage-full.ts imports this module.
    if (error instanceof DatabaseUnavailableError || error instanceof RedisUnavailableError || (error as Error | null)?.name === "InsufficientStorageError") {
      log.debug(message, { error: (error as Error).message });
    } else log.error(message, { error });
  };
}
