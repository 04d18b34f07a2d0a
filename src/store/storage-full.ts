import { Availability } from "./availability.ts";

/**
 * Whether writes can be stored (docs/operations.md, "Failure modes" > "Disk full or unwritable"):
 * a write that failed because the disk under DATA_DIR (or PostgreSQL's) is full, or the data
 * folder cannot be written, is answered as InsufficientStorageError (REST: 507), every such
 * failure is counted, and listeners hear of it once when it starts and once when a write
 * succeeds again, so the log says it twice instead of once per request.
 */

export type StorageProblem = "full" | "unwritable";

/** The stable texts clients get (REST `{error}` with 507, gateway acks); documented in docs/operations.md. */
export const STORAGE_MESSAGES: Record<StorageProblem, string> = {
  full: "Insufficient storage: the disk is full",
  unwritable: "Insufficient storage: the data folder is not writable",
};

/** A write could not be stored; nothing of it was kept (SQLite rolled it back, a partial upload was removed). */
export class InsufficientStorageError extends Error {
  override name = "InsufficientStorageError";
  constructor(
    readonly problem: StorageProblem,
    override readonly cause: unknown,
  ) {
    super(STORAGE_MESSAGES[problem]);
  }
}

/** File-system codes: no space or quota left, and a folder (or file system) that refuses writes. */
const FULL_ERRNO = new Set(["ENOSPC", "EDQUOT"]);
const UNWRITABLE_ERRNO = new Set(["EROFS", "EACCES", "EPERM"]);

/**
 * What storage problem `error` is, or null when it is none. SQLite (bun:sqlite's `code`, an
 * extended result code name): SQLITE_FULL is a full disk; SQLITE_READONLY*, SQLITE_CANTOPEN* and
 * SQLITE_IOERR* are a file it could not write or open. PostgreSQL: SQLSTATE 53100 (disk_full,
 * "could not extend file") is a full disk on the database server.
 */
export function storageProblem(error: unknown): StorageProblem | null {
  if (error instanceof InsufficientStorageError) return error.problem;
  const { code, errno } = (error ?? {}) as { code?: unknown; errno?: unknown };
  if (typeof code === "string") {
    if (code === "SQLITE_FULL" || FULL_ERRNO.has(code)) return "full";
    if (code.startsWith("SQLITE_READONLY") || code.startsWith("SQLITE_CANTOPEN") || code.startsWith("SQLITE_IOERR") || UNWRITABLE_ERRNO.has(code)) return "unwritable";
  }
  return errno === "53100" ? "full" : null;
}

/** `error` as an InsufficientStorageError when it is a storage problem, else itself. */
export function asStorageError(error: unknown): unknown {
  if (error instanceof InsufficientStorageError) return error;
  const problem = storageProblem(error);
  return problem ? new InsufficientStorageError(problem, error) : error;
}

/** Failures already counted into a StorageHealth. */
const counted = new WeakSet<InsufficientStorageError>();

/**
 * Where a write is stored: the database (SQLite's file, or PostgreSQL), or the uploads' files
 * under `<DATA_DIR>/uploads` (src/domain/shared/file-storage.ts), which may be a volume of its own.
 */
export type StoragePlace = "database" | "files";

/**
 * Whether writes are being stored, shared by the database and the uploads' disk. Each place has
 * its own Availability, so writes under way when it changed count as old news, and a write
 * stored in one place does not end the other's outage: with a read-only uploads volume beside a
 * writable database, every text message would otherwise end the outage and the next upload
 * start it again, two log lines per upload. `state` is down while any place is, so an outage is
 * one warning and one recovery.
 */
export class StorageHealth {
  /** Down while any place is: what the log and `hearth_storage_writable` say. */
  readonly state = new Availability();
  private readonly places: Record<StoragePlace, Availability> = { database: new Availability(), files: new Availability() };
  /** The last failure's problem and place (what the outage's warning names). */
  problem: StorageProblem | null = null;
  place: StoragePlace | null = null;

  constructor() {
    for (const place of Object.values(this.places)) {
      place.onChange(() => {
        if (Object.values(this.places).some((p) => p.downSince !== null)) this.state.failed();
        else this.state.answered();
      });
    }
  }

  /** Failures for want of storage, since start (the `hearth_storage_full_errors_total` counter). */
  get errors(): number {
    return this.places.database.errors + this.places.files.errors;
  }

  /**
   * Runs one write to `place`: a storage failure becomes an InsufficientStorageError and marks
   * the outage; a success ends that place's, unless `wrote` says it stored nothing (a write that
   * only read, or changed no row, succeeds on a full disk too: no news). Synchronous work stays
   * synchronous (SQLite's statements).
   */
  guard<T>(write: () => T, wrote?: () => boolean, place: StoragePlace = "database"): T {
    const state = this.places[place];
    const ticket = state.begin();
    let result: T;
    try {
      result = write();
    } catch (error) {
      throw this.refused(error, ticket, place);
    }
    if (result instanceof Promise) {
      return result.then(
        (value: unknown) => {
          if (!wrote || wrote()) state.answered(ticket);
          return value;
        },
        (error: unknown) => {
          throw this.refused(error, ticket, place);
        },
      ) as T;
    }
    if (!wrote || wrote()) state.answered(ticket);
    return result;
  }

  /** Writes to `place` fail for want of storage now. */
  failingAt(place: StoragePlace): boolean {
    return this.places[place].downSince !== null;
  }

  /** Writes to some place fail for want of storage now (`hearth_storage_writable` 0). */
  get failing(): boolean {
    return this.state.downSince !== null;
  }

  /**
   * `error` as an InsufficientStorageError when it is a storage problem (counted once, however
   * many layers it passes: a statement's, its transaction's), else itself. Without a ticket the
   * failure is news (a statement inside a transaction).
   */
  refused(error: unknown, ticket?: number, place: StoragePlace = "database"): unknown {
    const converted = asStorageError(error);
    if (!(converted instanceof InsufficientStorageError) || counted.has(converted)) return converted;
    counted.add(converted);
    this.problem = converted.problem;
    this.place = place;
    this.places[place].failed(ticket);
    return converted;
  }

}
