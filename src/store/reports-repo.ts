import type { Database } from "./database.ts";
import { nowSeconds } from "./time.ts";

export type ReportType = "message" | "user";
export type ReportStatus = "open" | "resolved" | "dismissed";

export interface ReportRow {
  id: string;
  reporter_id: string | null;
  reporter_username: string | null;
  target_type: ReportType;
  target_id: string;
  target_user_id: string | null;
  target_username: string | null;
  message_server_id: string | null;
  message_channel_id: string | null;
  message_conversation_id: string | null;
  message_content: string | null;
  message_created_at: number | null;
  reason: string;
  status: ReportStatus;
  action: string | null;
  note: string | null;
  resolved_by: string | null;
  resolved_by_username: string | null;
  resolved_at: number | null;
  created_at: number;
}

/** A message as a report sees it: in a server channel, or in a DM / group DM. */
export interface ReportedMessage {
  id: string;
  user_id: string;
  content: string;
  created_at: number;
  server_id: string | null;
  channel_id: string | null;
  conversation_id: string | null;
}

export interface NewReport {
  reporterId: string;
  type: ReportType;
  targetId: string;
  targetUserId: string;
  message: ReportedMessage | null;
  reason: string;
}

type ResolveResult = { ok: true; row: ReportRow } | { ok: false; reason: "not_found" | "closed" };

/**
 * Reports (docs/reports.md). Filing is one transaction: an open report by the same reporter
 * about the same target is answered instead of a second one. Lists are newest first by id.
 */
export class ReportsRepo {
  private readonly channelMessageStmt;
  private readonly dmMessageStmt;
  private readonly byIdStmt;
  private readonly openOneStmt;
  private readonly insertStmt;
  private readonly byReporterStmt;
  private readonly listStmt;
  private readonly listByStatusStmt;
  private readonly resolveStmt;
  private readonly openAgainstStmt;

  constructor(private readonly db: Database) {
    this.channelMessageStmt = db.prepare<ReportedMessage, [string]>(
      `SELECT id, user_id, content, created_at, server_id, channel_id, NULL AS conversation_id FROM messages WHERE id = ?`,
    );
    this.dmMessageStmt = db.prepare<ReportedMessage, [string]>(
      `SELECT id, user_id, content, created_at, NULL AS server_id, NULL AS channel_id, conversation_id FROM dm_messages WHERE id = ?`,
    );
    const select = `SELECT r.*, rep.username AS reporter_username, tgt.username AS target_username,
         res.username AS resolved_by_username
       FROM reports r LEFT JOIN users rep ON rep.id = r.reporter_id LEFT JOIN users tgt ON tgt.id = r.target_user_id
         LEFT JOIN users res ON res.id = r.resolved_by`;
    this.byIdStmt = db.prepare<ReportRow, [string]>(`${select} WHERE r.id = ?`);
    this.openOneStmt = db.prepare<{ id: string }, [string, string, string]>(
      "SELECT id FROM reports WHERE reporter_id = ? AND target_type = ? AND target_id = ? AND status = 'open'",
    );
    this.insertStmt = db.prepare(
      `INSERT INTO reports (id, reporter_id, target_type, target_id, target_user_id, message_server_id, message_channel_id,
         message_conversation_id, message_content, message_created_at, reason, created_at)
       VALUES ($id, $reporter_id, $target_type, $target_id, $target_user_id, $server_id, $channel_id,
         $conversation_id, $content, $message_created_at, $reason, $now)`,
    );
    this.byReporterStmt = db.prepare<ReportRow, [string, string, number]>(
      `${select} WHERE r.reporter_id = ? AND r.id < ? ORDER BY r.id DESC LIMIT ?`,
    );
    // Two statements, so a status filter walks reports_status and "all" walks the primary key.
    this.listStmt = db.prepare<ReportRow, [Record<string, string | number | null>]>(
      `${select} WHERE r.id < $before AND (CAST($type AS TEXT) IS NULL OR r.target_type = $type) ORDER BY r.id DESC LIMIT $limit`,
    );
    this.listByStatusStmt = db.prepare<ReportRow, [Record<string, string | number | null>]>(
      `${select} WHERE r.status = $status AND r.id < $before AND (CAST($type AS TEXT) IS NULL OR r.target_type = $type)
       ORDER BY r.id DESC LIMIT $limit`,
    );
    this.resolveStmt = db.prepare<{ id: string }, [Record<string, string | number | null>]>(
      `UPDATE reports SET status = $status, action = $action, note = $note, resolved_by = $resolved_by, resolved_at = $now
       WHERE id = $id AND status = 'open' RETURNING id`,
    );
    this.openAgainstStmt = db.prepare<{ n: number }, [string]>(
      "SELECT count(*) AS n FROM reports WHERE target_user_id = ? AND status = 'open'",
    );
  }

  /** A channel or DM message by id, for a report to check and keep. */
  async message(id: string): Promise<ReportedMessage | null> {
    return (await this.db.get(this.channelMessageStmt, id)) ?? this.db.get(this.dmMessageStmt, id);
  }

  /** Files a report, unless the reporter already has an open one about this target (`created` false). */
  async file(report: NewReport): Promise<{ created: boolean; row: ReportRow }> {
    return this.db.transaction(async (tx) => {
      await tx.lock(`reports:${report.reporterId}`);
      const open = await tx.get(this.openOneStmt, report.reporterId, report.type, report.targetId);
      if (open) return { created: false, row: (await tx.get(this.byIdStmt, open.id))! };
      const id = Bun.randomUUIDv7();
      await tx.run(this.insertStmt, {
        id,
        reporter_id: report.reporterId,
        target_type: report.type,
        target_id: report.targetId,
        target_user_id: report.targetUserId,
        server_id: report.message?.server_id ?? null,
        channel_id: report.message?.channel_id ?? null,
        conversation_id: report.message?.conversation_id ?? null,
        content: report.message?.content ?? null,
        message_created_at: report.message?.created_at ?? null,
        reason: report.reason,
        now: nowSeconds(),
      });
      return { created: true, row: (await tx.get(this.byIdStmt, id))! };
    });
  }

  async find(id: string): Promise<ReportRow | null> {
    return this.db.get(this.byIdStmt, id);
  }

  async byReporter(reporterId: string, before: string | null, limit: number): Promise<ReportRow[]> {
    return this.db.all(this.byReporterStmt, reporterId, before ?? "\uffff", limit);
  }

  async list(filter: { status: ReportStatus | null; type: ReportType | null }, before: string | null, limit: number): Promise<ReportRow[]> {
    const params = { before: before ?? "\uffff", type: filter.type, limit };
    return filter.status === null ? this.db.all(this.listStmt, params) : this.db.all(this.listByStatusStmt, { ...params, status: filter.status });
  }

  /** Closes an open report; a report already closed is left as it is (`closed`). */
  async resolve(
    id: string,
    resolution: { status: Exclude<ReportStatus, "open">; action: string; note: string | null; resolvedBy: string },
  ): Promise<ResolveResult> {
    return this.db.transaction(async (tx): Promise<ResolveResult> => {
      const done = await tx.get(this.resolveStmt, {
        id,
        status: resolution.status,
        action: resolution.action,
        note: resolution.note,
        resolved_by: resolution.resolvedBy,
        now: nowSeconds(),
      });
      const row = await tx.get(this.byIdStmt, id);
      if (!row) return { ok: false, reason: "not_found" };
      return done ? { ok: true, row } : { ok: false, reason: "closed" };
    });
  }

  /** Open reports about a user (their messages included). */
  async openAgainst(userId: string): Promise<number> {
    return (await this.db.get(this.openAgainstStmt, userId))?.n ?? 0;
  }
}
