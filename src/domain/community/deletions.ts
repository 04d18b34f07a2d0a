import type { Store } from "../../store/store.ts";
import type { DeletionJobRow } from "../../store/deletions-repo.ts";
import type { Logger } from "../../log.ts";
import { rooms, type EventBus } from "../shared/events.ts";
import type { UploadStore } from "../shared/uploads.ts";
import type { SharedState } from "../shared/shared-state.ts";

export interface DeletionOptions {
  /** Rows per batch (one transaction). */
  batchRows: number;
  /** How long a claimed job stays this node's without a batch (another node takes it after). */
  leaseSeconds: number;
  /**
   * After each batch the worker waits this many times as long as the batch took, so a job takes
   * at most half of what it shares with requests: the event loop on SQLite (a batch runs on it),
   * the database's CPU and locks on PostgreSQL (bench/README.md, "Deletes").
   */
  pauseRatio: number;
}

export const DELETION_DEFAULTS: DeletionOptions = { batchRows: 1000, leaseSeconds: 30, pauseRatio: 1 };

/** Files removed per look at deletion_files. */
const FILES_PER_ROUND = 100;
/** After a failed batch, the next try waits this long. */
const RETRY_MS = 1000;

/** The next turn of the event loop, after the I/O callbacks already waiting (requests, sockets). */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The background worker of deletes (docs/servers.md, "Deleting a server"): a server's or a
 * channel's rows after the request marked it deleted, and a ban's "delete the member's recent
 * messages". It runs the queued jobs (store/deletions-repo.ts) one batch at a time, each one
 * transaction of at most `batchRows` rows, and gives the event loop back between batches, so a
 * delete of any size never holds a request for more than one batch. Jobs are in the database:
 * a restart resumes them (SQLite at once; PostgreSQL once the lease of a node that died runs
 * out), and on several nodes one node holds a job at a time. The queue is read only when there
 * is a reason: a job queued here or on another node (the `deletions` signal), the start, and the
 * end of the lease of a job another node holds (in case that node died); never on a timer.
 */
export class Deletions {
  private running: Promise<void> | null = null;
  private again = false;
  private stopping = false;
  /** Wakes the worker when the lease of a job another node holds runs out. */
  private leaseTimer: ReturnType<typeof setTimeout> | null = null;
  /** Batches run since start (tests and benches read it). */
  batches = 0;

  constructor(
    private readonly store: Store,
    private readonly uploads: UploadStore,
    private readonly bus: EventBus,
    private readonly log: Logger,
    private readonly shared: SharedState,
    private readonly options: DeletionOptions = DELETION_DEFAULTS,
  ) {}

  get batchRows(): number {
    return this.options.batchRows;
  }

  /** Resumes the jobs left by a previous run, and runs those other nodes queue from now on. */
  async start(): Promise<void> {
    await this.store.deletions.releaseAfterRestart();
    this.shared.onSignal("deletions", () => this.wake());
    // An empty queue is read once, here, and then not until a job is queued.
    if (await this.store.deletions.hasWork()) this.wake();
  }

  /** A job was queued here: this worker runs it, and the other nodes hear of it (in case this one dies). */
  queued(): void {
    this.shared.signal("deletions");
    this.wake();
  }

  /** Looks at the queue: runs what no one holds (at once, or after the job it is running). */
  wake(): void {
    if (this.stopping) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain().finally(() => {
      this.running = null;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  }

  /** Resolves when no job is left to run (tests and benches). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Ends after the batch in progress; the job is given back for the next start (or node). */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.leaseTimer) clearTimeout(this.leaseTimer);
    await this.running;
  }

  private async drain(): Promise<void> {
    try {
      while (!this.stopping) {
        while (!this.stopping && (await this.removeFiles()) > 0) await nextTurn();
        const job = await this.store.deletions.claim(this.leaseEnd());
        if (!job) return await this.wakeAtLeaseEnd();
        await this.run(job);
      }
    } catch (error) {
      this.log.warn("background delete failed; retrying", { error: (error as Error).message });
      if (!this.stopping) setTimeout(() => this.wake(), RETRY_MS).unref?.();
    }
  }

  private async run(job: DeletionJobRow): Promise<void> {
    let renewed = Date.now();
    try {
      while (!this.stopping) {
        const started = performance.now();
        const step = await this.store.deletions.step(job, this.options.batchRows);
        const took = performance.now() - started;
        this.batches++;
        for (const message of step.messages) {
          this.bus.publish(rooms.channel(message.channel_id), "message:deleted", { channelId: message.channel_id, messageId: message.id });
        }
        if (step.done) return;
        if (Date.now() - renewed > (this.options.leaseSeconds * 1000) / 3) {
          await this.store.deletions.renew(job.id, this.leaseEnd());
          renewed = Date.now();
        }
        await this.removeFiles();
        await nextTurn();
        if (this.options.pauseRatio > 0) await Bun.sleep(took * this.options.pauseRatio);
      }
      await this.store.deletions.release(job.id);
    } catch (error) {
      await this.store.deletions.release(job.id).catch(() => {});
      throw error;
    }
  }

  /** Jobs left are held by other workers: look again when the first lease runs out. */
  private async wakeAtLeaseEnd(): Promise<void> {
    const end = await this.store.deletions.firstLeaseEnd();
    if (end === null || this.stopping) return;
    if (this.leaseTimer) clearTimeout(this.leaseTimer);
    this.leaseTimer = setTimeout(() => this.wake(), Math.max(0, end * 1000 - Date.now()) + 1000);
    this.leaseTimer.unref?.();
  }

  /** Removes some of the files of deleted rows, each note forgotten once its file is gone; answers how many. */
  private async removeFiles(): Promise<number> {
    const paths = await this.store.deletions.files(FILES_PER_ROUND);
    for (const path of paths) {
      await this.uploads.remove(path);
      await this.store.deletions.forgetFile(path);
    }
    return paths.length;
  }

  private leaseEnd(): number {
    return Math.floor(Date.now() / 1000) + this.options.leaseSeconds;
  }
}
