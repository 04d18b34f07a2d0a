import { statfs } from "node:fs/promises";

/** A readiness probe and a metrics scrape in the same second share one statfs call. */
const CACHE_MS = 1000;

const megabytes = (bytes: number) => `${Math.floor(bytes / 1024 / 1024)} MB`;

/**
 * Free space on the file system under DATA_DIR (docs/operations.md, "Disk full or unwritable"):
 * the `hearth_data_dir_free_bytes` gauge, and the "disk" readiness check that fails while it is
 * below DATA_DIR_MIN_FREE_MB, so a load balancer takes the node out before every write answers 507.
 * The space counted is what an unprivileged writer may use (`bavail`), as the server is one.
 */
export class DiskSpace {
  private measured: { at: number; free: Promise<number> } | null = null;

  constructor(
    readonly dir: string,
    readonly minFreeBytes: number,
  ) {}

  /** Bytes free under `dir` (measured at most once a second). */
  free(): Promise<number> {
    const now = Date.now();
    if (this.measured && now - this.measured.at < CACHE_MS) return this.measured.free;
    const free = statfs(this.dir).then((stats) => stats.bavail * stats.bsize);
    // A failed measurement is not kept: the next call tries again.
    free.catch(() => {
      if (this.measured?.free === free) this.measured = null;
    });
    this.measured = { at: now, free };
    return free;
  }

  /** The readiness check: rejects, saying how much is left, while free space is below the floor. */
  async check(): Promise<void> {
    const free = await this.free();
    if (free < this.minFreeBytes) {
      throw new Error(`${megabytes(free)} free under DATA_DIR, below DATA_DIR_MIN_FREE_MB (${megabytes(this.minFreeBytes)})`);
    }
  }
}
