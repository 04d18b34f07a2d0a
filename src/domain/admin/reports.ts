import * as v from "valibot";
import type { Dms } from "../dms/dms.ts";
import type { Messages } from "../messaging/messages.ts";
import type { Store } from "../../store/store.ts";
import type { ReportRow, ReportStatus, ReportType, ReportedMessage } from "../../store/reports-repo.ts";
import type { UserRow } from "../../store/users-repo.ts";
import type { Access } from "../access/access.ts";
import { NamedUser, type AdminUsers } from "./admin-users.ts";
import type { Admins } from "./admins.ts";
import { ApiError, badRequest, forbidden, notFound, tooManyRequests } from "../shared/errors.ts";
import { PERMISSIONS } from "../access/permission-bits.ts";
import type { SharedRateLimiter, SharedState } from "../shared/shared-state.ts";
import { isUuid } from "../shared/validation.ts";
import { LIMITS } from "../shared/limits.ts";
import type { NewReportInput } from "./report-schemas.ts";
import { UnixSeconds, Uuid } from "../shared/shapes.ts";

/** What an administrator did about a report; `user_disabled` disables the reported user. */
export const REPORT_ACTIONS = ["none", "warned", "user_disabled", "message_deleted"] as const;
type ReportAction = (typeof REPORT_ACTIONS)[number];

/** A report as its reporter sees it. */
export const OwnReport = v.object({
  id: Uuid,
  type: v.picklist(["message", "user"]),
  target_id: Uuid,
  reason: v.string(),
  status: v.picklist(["open", "resolved", "dismissed"]),
  created_at: UnixSeconds,
  resolved_at: v.nullable(UnixSeconds),
});
export type OwnReport = v.InferOutput<typeof OwnReport>;

/** A report as administrators see it: who, about whom, the message as it was, and the outcome. */
export const AdminReport = v.object({
  ...OwnReport.entries,
  reporter: v.nullable(NamedUser),
  target_user: v.nullable(NamedUser),
  message: v.nullable(
    v.object({
      id: Uuid,
      server_id: v.nullable(Uuid),
      channel_id: v.nullable(Uuid),
      conversation_id: v.nullable(Uuid),
      content: v.string(),
      created_at: UnixSeconds,
    }),
  ),
  action: v.nullable(v.picklist(REPORT_ACTIONS)),
  note: v.nullable(v.string()),
  resolved_by: v.nullable(NamedUser),
});
export type AdminReport = v.InferOutput<typeof AdminReport>;

const toOwnReport = (row: ReportRow): OwnReport => ({
  id: row.id,
  type: row.target_type,
  target_id: row.target_id,
  reason: row.reason,
  status: row.status,
  created_at: row.created_at,
  resolved_at: row.resolved_at,
});

const who = (id: string | null, username: string | null) => (id === null ? null : { id, username });

const toAdminReport = (row: ReportRow): AdminReport => ({
  ...toOwnReport(row),
  reporter: who(row.reporter_id, row.reporter_username),
  target_user: who(row.target_user_id, row.target_username),
  message:
    row.target_type === "message"
      ? {
          id: row.target_id,
          server_id: row.message_server_id,
          channel_id: row.message_channel_id,
          conversation_id: row.message_conversation_id,
          content: row.message_content ?? "",
          created_at: row.message_created_at ?? 0,
        }
      : null,
  action: row.action as ReportAction | null,
  note: row.note,
  resolved_by: who(row.resolved_by, row.resolved_by_username),
});

/**
 * Reports (docs/reports.md): a user reports a message they can see, or a user, with a reason;
 * administrators list them and close them (resolved or dismissed) with an action and a note.
 */
export class Reports {
  /** Shared by every node in cluster mode. */
  private readonly perUser: SharedRateLimiter;

  constructor(
    private readonly store: Store,
    private readonly access: Access,
    private readonly admins: Admins,
    private readonly adminUsers: AdminUsers,
    private readonly messages: Messages,
    private readonly dms: Dms,
    shared: SharedState,
  ) {
    this.perUser = shared.rateLimiter("reports", LIMITS.report.perHour, 60 * 60_000);
  }

  /** Files a report (`created`), or answers the caller's open report about the same target. */
  async file(user: UserRow, input: NewReportInput): Promise<{ created: boolean; report: OwnReport }> {
    if (user.is_bot) throw forbidden("Bots cannot file reports");
    if ((input.message_id === undefined) === (input.user_id === undefined)) {
      throw badRequest("body: give exactly one of message_id or user_id");
    }
    let target: { type: ReportType; id: string; userId: string; message: ReportedMessage | null };
    if (input.message_id !== undefined) {
      const message = await this.visibleMessage(user, input.message_id);
      if (message.user_id === user.id) throw badRequest("You cannot report your own message");
      target = { type: "message", id: message.id, userId: message.user_id, message };
    } else {
      const reported = isUuid(input.user_id) ? await this.store.users.findById(input.user_id.toLowerCase()) : null;
      if (!reported) throw notFound("User");
      if (reported.id === user.id) throw badRequest("You cannot report yourself");
      target = { type: "user", id: reported.id, userId: reported.id, message: null };
    }
    const limit = await this.perUser.check(user.id);
    if (!limit.allowed) throw tooManyRequests(limit.retryAfter, "You have filed too many reports, try again later");
    const { created, row } = await this.store.reports.file({
      reporterId: user.id,
      type: target.type,
      targetId: target.id,
      targetUserId: target.userId,
      message: target.message,
      reason: input.reason,
    });
    if (created) await this.perUser.hit(user.id);
    return { created, report: toOwnReport(row) };
  }

  async mine(user: UserRow, before: string | null, limit: number): Promise<OwnReport[]> {
    if (user.is_bot) throw forbidden("Bots cannot file reports");
    return (await this.store.reports.byReporter(user.id, before, limit)).map(toOwnReport);
  }

  async list(filter: { status: ReportStatus | null; type: ReportType | null }, before: string | null, limit: number): Promise<AdminReport[]> {
    return (await this.store.reports.list(filter, before, limit)).map(toAdminReport);
  }

  async get(id: string): Promise<AdminReport> {
    const row = isUuid(id) ? await this.store.reports.find(id.toLowerCase()) : null;
    if (!row) throw notFound("Report");
    return toAdminReport(row);
  }

  /**
   * Closes an open report. `user_disabled` disables the reported user (the message's author for
   * a message) through the same operation as the users route, before the report is closed.
   */
  async resolve(
    actor: UserRow,
    id: string,
    input: { status: "resolved" | "dismissed"; action: ReportAction; note: string | null },
  ): Promise<AdminReport> {
    const report = await this.get(id);
    if (report.status !== "open") throw badRequest(`This report is already ${report.status}`);
    if (input.status === "dismissed" && input.action !== "none") throw badRequest("action: a dismissed report takes no action");
    if (input.action === "user_disabled") {
      if (!report.target_user) throw badRequest("action: the reported user no longer exists");
      await this.adminUsers.setDisabled(actor, await this.adminUsers.find(report.target_user.id), true);
    }
    if (input.action === "message_deleted") {
      const message = report.message;
      if (report.type !== "message" || !message) throw badRequest("action: message_deleted is for message reports");
      const removed =
        message.channel_id !== null
          ? await this.messages.removeReported(message.id, actor, report.id)
          : message.conversation_id !== null && (await this.dms.removeReported(message.conversation_id, message.id));
      if (!removed) throw badRequest("action: the reported message no longer exists");
    }
    const result = await this.store.reports.resolve(report.id, { ...input, resolvedBy: actor.id });
    if (!result.ok) {
      if (result.reason === "not_found") throw notFound("Report");
      throw badRequest("This report is already closed");
    }
    await this.admins.record(actor, input.status === "resolved" ? "REPORT_RESOLVE" : "REPORT_DISMISS", { type: "report", id: report.id }, {
      action: input.action,
      ...(input.note === null ? {} : { note: input.note }),
    });
    return toAdminReport(result.row);
  }

  /**
   * A channel message the caller may read (VIEW_CHANNEL and READ_MESSAGE_HISTORY), or a message
   * of a DM or group DM they are in. Anything else is "not found", so reports do not leak messages.
   */
  private async visibleMessage(user: UserRow, messageId: string): Promise<ReportedMessage> {
    const message = isUuid(messageId) ? await this.store.reports.message(messageId.toLowerCase()) : null;
    if (!message) throw notFound("Message");
    if (message.channel_id !== null) {
      try {
        await this.access.requireChannel(message.channel_id, user.id, PERMISSIONS.READ_MESSAGE_HISTORY);
      } catch (error) {
        if (error instanceof ApiError && (error.status === 403 || error.status === 404)) throw notFound("Message");
        throw error;
      }
    } else if (message.conversation_id === null || !(await this.store.dms.isMember(message.conversation_id, user.id))) {
      throw notFound("Message");
    }
    return message;
  }
}
