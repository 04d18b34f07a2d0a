import { Elysia } from "elysia";
import * as v from "valibot";
import type { Domain } from "../../domain/domain.ts";
import { badRequest } from "../../domain/shared/errors.ts";
import { boundedText, integer, isUuid } from "../../domain/shared/validation.ts";
import { LIMITS } from "../../domain/shared/limits.ts";
import { ASSIGNABLE_BUILTIN_ROLES } from "../../domain/community/moderation.ts";
import { AUDIT_ACTIONS } from "../../domain/access/audit-actions.ts";
import type { AuthPlugin } from "../auth.ts";
import { body } from "../schemas.ts";
import { doc } from "../operation-doc.ts";
import { Success } from "../../domain/shared/shapes.ts";
import { AuditLogPage, Ban, BuiltinRoleChange, TimeoutState } from "../responses/community.ts";

/** `?limit=&before=&action=&actor_id=`, read by the handler (`before`: unix seconds or an entry id). */
const AuditLogQuery = v.object({ limit: v.optional(v.string()), before: v.optional(v.string()), action: v.optional(v.string()), actor_id: v.optional(v.string()) });

const targetUserId = v.pipe(v.string("must be a string"), v.uuid("must be a user id"));
const reason = v.optional(v.nullable(boundedText(LIMITS.moderation.reasonLength)));

const BanBody = body({ targetUserId, reason, delete_message_seconds: v.optional(integer(0, LIMITS.moderation.deleteMessageMaxSeconds)) });
const TimeoutBody = body({ targetUserId, duration: integer(LIMITS.timeoutMinSeconds, LIMITS.timeoutMaxSeconds), reason });
const RoleBody = body({ role: v.picklist(ASSIGNABLE_BUILTIN_ROLES, "must be admin, moderator or member") });

/** A query integer: digits only, within bounds, else 400 naming the parameter. */
function queryInteger(value: string | undefined, name: string, min: number, max: number, message: string): number | undefined {
  if (value === undefined) return undefined;
  const n = /^\d{1,16}$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw badRequest(`${name}: ${message}`);
  return n;
}

/** /api/v1/servers: member moderation (kick, bans, timeouts, built-in roles) and the audit log. */
export const moderationRoutes = (domain: Domain, auth: AuthPlugin) =>
  new Elysia({ prefix: "/api/v1/servers", tags: ["Moderation"] })
    .use(auth)
    .delete(
      "/:id/members/:targetUserId",
      async ({ user, params }) => {
        await domain.moderation.kick(params.id, user.id, params.targetUserId);
        return { success: true };
      },
      { auth: true, detail: doc("kickMember", Success) },
    )
    .put(
      "/:id/members/:targetUserId/role",
      ({ user, params, body }) => domain.moderation.setBuiltinRole(params.id, user.id, params.targetUserId, body.role),
      { auth: true, body: RoleBody, detail: doc("setBuiltinRole", BuiltinRoleChange) },
    )
    .get("/:id/bans", ({ user, params }) => domain.moderation.bans(params.id, user.id), { auth: true, detail: doc("listBans", v.array(Ban)) })
    .post(
      "/:id/bans",
      async ({ user, params, body, set }) => {
        const ban = await domain.moderation.ban(params.id, user.id, body.targetUserId, body.reason ?? null, body.delete_message_seconds ?? 0);
        set.status = 201;
        return ban;
      },
      { auth: true, body: BanBody, detail: doc("banMember", { 201: Ban }, { errors: [409] }) },
    )
    .delete(
      "/:id/bans/:targetUserId",
      async ({ user, params }) => {
        await domain.moderation.unban(params.id, user.id, params.targetUserId);
        return { success: true };
      },
      { auth: true, detail: doc("unbanMember", Success) },
    )
    .post(
      "/:id/timeouts",
      ({ user, params, body }) => domain.moderation.timeout(params.id, user.id, body.targetUserId, body.duration, body.reason ?? null),
      { auth: true, body: TimeoutBody, detail: doc("timeoutMember", TimeoutState) },
    )
    .delete("/:id/timeouts/:targetUserId", ({ user, params }) => domain.moderation.removeTimeout(params.id, user.id, params.targetUserId), {
      auth: true,
      detail: doc("removeTimeout", TimeoutState),
    })
    .get(
      "/:id/audit-log",
      ({ user, params, query }) => {
        const q = query as Record<string, string | undefined>;
        const limit = queryInteger(q.limit, "limit", 1, LIMITS.auditLogPageMax, `must be an integer between 1 and ${LIMITS.auditLogPageMax}`);
        // An entry id pages exactly (docs/moderation.md); otherwise the spec's unix seconds.
        const before =
          q.before !== undefined && isUuid(q.before)
            ? q.before
            : queryInteger(q.before, "before", 0, Number.MAX_SAFE_INTEGER, "must be a unix timestamp in seconds or an audit log entry id");
        // Hearth's filters (docs/moderation.md): one action of the spec's list, one actor by user id.
        if (q.action !== undefined && !(AUDIT_ACTIONS as readonly string[]).includes(q.action)) {
          throw badRequest("action: must be one of the audit log's actions");
        }
        if (q.actor_id !== undefined && !isUuid(q.actor_id)) throw badRequest("actor_id: must be a user id");
        const filter = { action: q.action ?? null, actorId: q.actor_id ?? null };
        return domain.audit.list(params.id, user.id, limit ?? LIMITS.auditLogPageDefault, before, filter);
      },
      { auth: true, detail: doc("getAuditLog", AuditLogPage, { query: AuditLogQuery, params: { before: "The page before: entries older than this, given as an entry id (the last of the previous page) or as unix seconds." } }) },
    );
