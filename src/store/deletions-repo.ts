import type { Database, Statement, Transaction } from "./database.ts";
import { nowSeconds } from "./time.ts";

/** What a deletion job removes: a server, a channel, or a member's messages in a server since a time. */
export type DeletionKind = "server" | "channel" | "member_messages";

export interface DeletionJobRow {
  id: string;
  kind: DeletionKind;
  server_id: string;
  channel_id: string | null;
  user_id: string | null;
  since: number | null;
  lease_until: number;
  created_at: number;
}

/** One batch of a job: whether it is finished, and the messages this batch deleted. */
export interface DeletionStep {
  done: boolean;
  /** The number of rows the batch deleted (its own table's, without what cascaded). */
  rows: number;
  messages: { id: string; channel_id: string }[];
}

/** A delete of at most `?2` rows of one table keyed by `?1` (a server's or a channel's id). */
interface BatchDelete {
  table: string;
  statement: Statement<unknown, [string, number]>;
  /** Notes the files of all the key's rows in deletion_files (`?2`: the time), before the batch deletes some. */
  files?: Statement<unknown, [string, number]>;
}

/**
 * Background deletes (sqlite/migrations.ts version 22; src/domain/community/deletions.ts): the
 * request marks a server or channel deleted (`deleted_at`, which every read of them leaves out)
 * and queues a job in `deletion_jobs`; the worker runs the job in batches, each one transaction
 * deleting at most `limit` rows of one table by an index, children before parents, the server
 * or channel row last (its cascades then find nothing left, or a straggler written meanwhile).
 * Files of deleted rows are noted in `deletion_files` in the batch's transaction and removed by
 * the worker after it commits, so a restart in between forgets none.
 */
export class DeletionsRepo {
  private readonly hideServerStmt;
  private readonly hideServerChannels;
  private readonly hideChannelStmt;
  private readonly insertJob;
  private readonly claimStmt;
  private readonly renewStmt;
  private readonly releaseStmt;
  private readonly releaseAllStmt;
  private readonly finishStmt;
  private readonly pendingStmt;
  private readonly firstLeaseEndStmt;
  private readonly hasWorkStmt;
  private readonly firstChannel;
  private readonly channelMessages;
  private readonly memberMessages;
  private readonly messageFiles;
  private readonly deleteMessages;
  private readonly channelBatches: BatchDelete[];
  private readonly serverBatches: BatchDelete[];
  private readonly deleteChannelStmt;
  private readonly serverFiles;
  private readonly deleteServerStmt;
  private readonly filesStmt;
  private readonly forgetFileStmt;

  constructor(private readonly db: Database) {
    const { dialect } = db;
    this.hideServerStmt = db.prepare<unknown, [number, string]>("UPDATE servers SET deleted_at = ?, vanity_code = NULL WHERE id = ? AND deleted_at IS NULL");
    this.hideServerChannels = db.prepare<unknown, [number, string]>("UPDATE channels SET deleted_at = ?1 WHERE server_id = ?2 AND deleted_at IS NULL");
    this.hideChannelStmt = db.prepare<unknown, [number, string]>("UPDATE channels SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL");
    this.insertJob = db.prepare<unknown, [string, DeletionKind, string, string | null, string | null, number | null, number]>(
      "INSERT INTO deletion_jobs (id, kind, server_id, channel_id, user_id, since, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    // The oldest job whose lease ran out; on PostgreSQL the UPDATE's WHERE is checked again on the
    // locked row, so of two nodes claiming the same job one gets it.
    this.claimStmt = db.prepare<DeletionJobRow, [number, number]>(
      `UPDATE deletion_jobs SET lease_until = ?1
       WHERE id = (SELECT id FROM deletion_jobs WHERE lease_until < ?2 ORDER BY lease_until, created_at LIMIT 1) AND lease_until < ?2
       RETURNING *`,
    );
    this.renewStmt = db.prepare<unknown, [number, string]>("UPDATE deletion_jobs SET lease_until = ? WHERE id = ?");
    this.releaseStmt = db.prepare<unknown, [string]>("UPDATE deletion_jobs SET lease_until = 0 WHERE id = ?");
    this.releaseAllStmt = db.prepare<unknown, []>("UPDATE deletion_jobs SET lease_until = 0 WHERE lease_until > 0");
    this.finishStmt = db.prepare<unknown, [string]>("DELETE FROM deletion_jobs WHERE id = ?");
    this.pendingStmt = db.prepare<DeletionJobRow, []>("SELECT * FROM deletion_jobs ORDER BY created_at, id");
    this.firstLeaseEndStmt = db.prepare<{ at: number | null }, []>("SELECT min(lease_until) AS at FROM deletion_jobs");
    this.hasWorkStmt = db.prepare<{ work: number }, []>(
      "SELECT CASE WHEN EXISTS (SELECT 1 FROM deletion_jobs) OR EXISTS (SELECT 1 FROM deletion_files) THEN 1 ELSE 0 END AS work",
    );
    this.firstChannel = db.prepare<{ id: string }, [string]>("SELECT id FROM channels WHERE server_id = ? LIMIT 1");
    // The oldest first: a channel's newest message (channel_last_messages) changes only at its last batch.
    this.channelMessages = db.prepare<{ id: string; channel_id: string }, [string, number]>(
      "SELECT id, channel_id FROM messages WHERE channel_id = ? ORDER BY id LIMIT ?",
    );
    this.memberMessages = db.prepare<{ id: string; channel_id: string }, [string, string, number, number]>(
      "SELECT id, channel_id FROM messages WHERE user_id = ? AND server_id = ? AND created_at >= ? ORDER BY created_at LIMIT ?",
    );
    this.messageFiles = db.prepare<unknown, [number, ReturnType<typeof dialect.idList>]>(
      `INSERT INTO deletion_files (path, created_at) SELECT filename, ?1 FROM attachments WHERE message_id ${dialect.inIdList("?2")} ON CONFLICT DO NOTHING`,
    );
    // Their attachments, reactions, pins and mentions go with them (ON DELETE CASCADE, each indexed).
    this.deleteMessages = db.prepare<unknown, [ReturnType<typeof dialect.idList>]>(`DELETE FROM messages WHERE id ${dialect.inIdList("?1")}`);
    const byId = (table: string, column: string): BatchDelete => ({
      table,
      statement: db.prepare(`DELETE FROM ${table} WHERE id IN (SELECT id FROM ${table} WHERE ${column} = ?1 LIMIT ?2)`),
    });
    const byUser = (table: string, column: string): BatchDelete => ({
      table,
      statement: db.prepare(`DELETE FROM ${table} WHERE ${column} = ?1 AND user_id IN (SELECT user_id FROM ${table} WHERE ${column} = ?1 LIMIT ?2)`),
    });
    // Emojis, GIFs and sounds: a few per server (capped), so all of their files are noted at once.
    const withFiles = (table: string): BatchDelete => ({
      ...byId(table, "server_id"),
      files: db.prepare(
        `INSERT INTO deletion_files (path, created_at) SELECT file_path, ?2 FROM ${table} WHERE server_id = ?1 ON CONFLICT DO NOTHING`,
      ),
    });
    // A channel's rows that may be many (one per member, one per command use); the rest (overrides,
    // webhooks, its newest message) are few and go with the channel's row.
    this.channelBatches = [byUser("channel_read_states", "channel_id"), byId("interactions", "channel_id")];
    // After the channels: members (their roles go with them), then what refers to roles and
    // invites, then the rest of the server's rows.
    this.serverBatches = [
      byUser("server_members", "server_id"),
      byUser("bans", "server_id"),
      byId("audit_log", "server_id"),
      {
        table: "invite_uses",
        statement: db.prepare(
          "DELETE FROM invite_uses WHERE id IN (SELECT u.id FROM invites i JOIN invite_uses u ON u.invite_id = i.id WHERE i.server_id = ?1 LIMIT ?2)",
        ),
      },
      byId("invites", "server_id"),
      byId("interactions", "server_id"),
      byId("commands", "server_id"),
      byId("webhooks", "server_id"),
      byId("roles", "server_id"),
      byId("categories", "server_id"),
      withFiles("emojis"),
      withFiles("server_gifs"),
      withFiles("soundboard_sounds"),
    ];
    this.deleteChannelStmt = db.prepare<unknown, [string]>("DELETE FROM channels WHERE id = ?");
    this.serverFiles = db.prepare<unknown, [number, string]>(
      `INSERT INTO deletion_files (path, created_at)
       SELECT icon, ?1 FROM servers WHERE id = ?2 AND icon IS NOT NULL
       UNION ALL SELECT banner, ?1 FROM servers WHERE id = ?2 AND banner IS NOT NULL
       ON CONFLICT DO NOTHING`,
    );
    this.deleteServerStmt = db.prepare<unknown, [string]>("DELETE FROM servers WHERE id = ?");
    this.filesStmt = db.prepare<{ path: string }, [number]>("SELECT path FROM deletion_files ORDER BY path LIMIT ?");
    this.forgetFileStmt = db.prepare<unknown, [string]>("DELETE FROM deletion_files WHERE path = ?");
  }

  /**
   * Marks the server and its channels deleted and queues their job, in one transaction; false
   * when it is already marked (or gone).
   */
  async deleteServer(serverId: string): Promise<boolean> {
    const now = nowSeconds();
    return this.db.transaction(async (tx) => {
      if ((await tx.run(this.hideServerStmt, now, serverId)) === 0) return false;
      await tx.run(this.hideServerChannels, now, serverId);
      await tx.run(this.insertJob, Bun.randomUUIDv7(), "server", serverId, null, null, null, now);
      return true;
    });
  }

  /** Marks the channel deleted and queues its job; false when it is already marked (or gone). */
  async deleteChannel(serverId: string, channelId: string): Promise<boolean> {
    const now = nowSeconds();
    return this.db.transaction(async (tx) => {
      if ((await tx.run(this.hideChannelStmt, now, channelId)) === 0) return false;
      await tx.run(this.insertJob, Bun.randomUUIDv7(), "channel", serverId, channelId, null, null, now);
      return true;
    });
  }

  /** Queues the delete of the user's messages in the server created at `since` or later. */
  async deleteMemberMessages(serverId: string, userId: string, since: number): Promise<void> {
    await this.db.run(this.insertJob, Bun.randomUUIDv7(), "member_messages", serverId, null, userId, since, nowSeconds());
  }

  /** The oldest job no worker holds, now held until `leaseUntil`; null when there is none. */
  async claim(leaseUntil: number): Promise<DeletionJobRow | null> {
    return this.db.get(this.claimStmt, leaseUntil, nowSeconds());
  }

  async renew(jobId: string, leaseUntil: number): Promise<void> {
    await this.db.run(this.renewStmt, leaseUntil, jobId);
  }

  /** Gives the job back (a stopping worker), for the next claim to take at once. */
  async release(jobId: string): Promise<void> {
    await this.db.run(this.releaseStmt, jobId);
  }

  /**
   * At start. SQLite: every lease given back, since one Hearth process uses the file, so none is
   * held by a live worker. PostgreSQL: nothing, another node may be running a job (a dead node's
   * lease runs out).
   */
  async releaseAfterRestart(): Promise<void> {
    if (this.db.dialect.name === "sqlite") await this.db.run(this.releaseAllStmt);
  }

  /** Whether a job is queued or a file waits to be removed. */
  async hasWork(): Promise<boolean> {
    return Number((await this.db.get(this.hasWorkStmt))?.work ?? 0) === 1;
  }

  /** When the first lease of the jobs queued runs out (unix seconds), or null when none is queued. */
  async firstLeaseEnd(): Promise<number | null> {
    const at = (await this.db.get(this.firstLeaseEndStmt))?.at;
    return at === null || at === undefined ? null : Number(at);
  }

  /** Every job still queued, the oldest first (for tests and operators). */
  async pending(): Promise<DeletionJobRow[]> {
    return this.db.all(this.pendingStmt);
  }

  /** Runs one batch of the job, in one transaction; `done` once the job is finished and gone. */
  async step(job: DeletionJobRow, limit: number): Promise<DeletionStep> {
    return this.db.transaction(async (tx) => {
      switch (job.kind) {
        case "member_messages":
          return this.memberMessagesStep(tx, job, limit);
        case "channel":
          return (await this.channelStep(tx, job.channel_id!, limit)) ?? (await this.finish(tx, job));
        case "server":
          return this.serverStep(tx, job, limit);
      }
    });
  }

  private async memberMessagesStep(tx: Transaction, job: DeletionJobRow, limit: number): Promise<DeletionStep> {
    const messages = await tx.all(this.memberMessages, job.user_id!, job.server_id, job.since ?? 0, limit);
    if (messages.length === 0) return this.finish(tx, job);
    await this.eraseMessages(tx, messages.map((m) => m.id));
    return { done: false, rows: messages.length, messages };
  }

  /** One batch of the channel's rows, the channel's row once nothing else is left; null when the channel is gone. */
  private async channelStep(tx: Transaction, channelId: string, limit: number): Promise<DeletionStep | null> {
    const messages = await tx.all(this.channelMessages, channelId, limit);
    if (messages.length > 0) {
      await this.eraseMessages(tx, messages.map((m) => m.id));
      return { done: false, rows: messages.length, messages: [] };
    }
    for (const batch of this.channelBatches) {
      const rows = await tx.run(batch.statement, channelId, limit);
      if (rows > 0) return { done: false, rows, messages: [] };
    }
    const rows = await tx.run(this.deleteChannelStmt, channelId);
    return rows > 0 ? { done: false, rows, messages: [] } : null;
  }

  private async serverStep(tx: Transaction, job: DeletionJobRow, limit: number): Promise<DeletionStep> {
    const channel = await tx.get(this.firstChannel, job.server_id);
    if (channel) {
      const step = await this.channelStep(tx, channel.id, limit);
      if (step) return step;
    }
    const now = nowSeconds();
    for (const batch of this.serverBatches) {
      if (batch.files) await tx.run(batch.files, job.server_id, now);
      const rows = await tx.run(batch.statement, job.server_id, limit);
      if (rows > 0) return { done: false, rows, messages: [] };
    }
    await tx.run(this.serverFiles, now, job.server_id);
    await tx.run(this.deleteServerStmt, job.server_id);
    return this.finish(tx, job);
  }

  private async eraseMessages(tx: Transaction, ids: string[]): Promise<void> {
    const list = this.db.dialect.idList(ids);
    await tx.run(this.messageFiles, nowSeconds(), list);
    await tx.run(this.deleteMessages, list);
  }

  private async finish(tx: Transaction, job: DeletionJobRow): Promise<DeletionStep> {
    await tx.run(this.finishStmt, job.id);
    return { done: true, rows: 0, messages: [] };
  }

  /** Files of deleted rows not removed yet (in the order of their paths, the primary key). */
  async files(limit: number): Promise<string[]> {
    return (await this.db.all(this.filesStmt, limit)).map((row) => row.path);
  }

  /** The file is removed: its note goes. */
  async forgetFile(path: string): Promise<void> {
    await this.db.run(this.forgetFileStmt, path);
  }
}
