import { Elysia } from "elysia";
import * as v from "valibot";
import type { Domain } from "../../domain/domain.ts";
import { GENERAL_SETTINGS, type GeneralSettingName } from "../../domain/admin/general-settings.ts";
import { REPORT_ACTIONS } from "../../domain/admin/reports.ts";
import { LIMITS } from "../../domain/shared/limits.ts";
import { boolean, password, username } from "../../domain/shared/validation.ts";
import type { AdminPlugin } from "../admin-auth.ts";
import { body, queryLimit } from "../schemas.ts";
import { doc } from "../operation-doc.ts";
import { AdminReport, AdminServer, AdminUser, AdminUserDetail, GeneralSettings, PlatformLogPage } from "../responses/admin.ts";

/** `?before=<id>`: a UUID of the previous page's last item. */
const before = v.optional(v.pipe(v.string(), v.uuid("must be an id from a previous page")));
/** `?flag=true|false`. */
const queryFlag = v.optional(
  v.pipe(v.picklist(["true", "false"], "must be true or false"), v.transform((value) => value === "true")),
);
/** `?q=`: at most LIMITS.admin.searchLength characters after trimming; empty means no search. */
const search = v.optional(
  v.pipe(v.string("must be a string"), v.trim(), v.maxLength(LIMITS.admin.searchLength, `must be at most ${LIMITS.admin.searchLength} characters`), v.transform((q) => (q === "" ? null : q))),
);

const UsersQuery = v.object({
  q: search,
  bot: queryFlag,
  premium: queryFlag,
  admin: queryFlag,
  disabled: queryFlag,
  before,
  limit: queryLimit(LIMITS.admin.pageMax),
});
const ServersQuery = v.object({ q: search, verified: queryFlag, before, limit: queryLimit(LIMITS.admin.pageMax) });
const ReportsQuery = v.object({
  status: v.optional(v.picklist(["open", "resolved", "dismissed", "all"], "must be one of open, resolved, dismissed, all"), "open"),
  type: v.optional(v.picklist(["message", "user"], "must be message or user")),
  before,
  limit: queryLimit(LIMITS.admin.pageMax),
});
const LogQuery = v.object({ before, limit: queryLimit(LIMITS.admin.pageMax) });

const SettingsBody = body(
  Object.fromEntries((Object.keys(GENERAL_SETTINGS) as GeneralSettingName[]).map((name) => [name, v.optional(boolean)])) as Record<
    GeneralSettingName,
    v.OptionalSchema<typeof boolean, undefined>
  >,
);
const NewUserBody = body({
  username,
  email: v.pipe(v.string("must be a string"), v.trim(), v.maxLength(LIMITS.account.emailLength, `must be at most ${LIMITS.account.emailLength} characters`), v.email("must be a valid email address")),
  password,
});
const UserFlagsBody = body({ premium: v.optional(boolean), platform_admin: v.optional(boolean), disabled: v.optional(boolean) });
const ServerFlagsBody = body({ verified: v.optional(boolean) });
const ResolveBody = body({
  status: v.optional(v.picklist(["resolved", "dismissed"], "must be resolved or dismissed"), "resolved"),
  action: v.optional(v.picklist(REPORT_ACTIONS, `must be one of ${REPORT_ACTIONS.join(", ")}`), "none"),
  note: v.optional(
    v.nullable(v.pipe(v.string("must be a string"), v.trim(), v.maxLength(LIMITS.report.noteLength, `must be at most ${LIMITS.report.noteLength} characters`))),
  ),
});

/**
 * /api/v1/admin: platform administration (docs/admin.md). Every route needs a platform
 * administrator's user token; every change is written to the platform log.
 */
export const adminRoutes = (domain: Domain, admin: AdminPlugin) =>
  new Elysia({ prefix: "/api/v1/admin", tags: ["Admin"] })
    .use(admin)
    .get("/settings", () => domain.generalSettings.get(), { admin: true, detail: doc("getGeneralSettings", GeneralSettings) })
    .patch("/settings", ({ user, body }) => domain.generalSettings.update(user, body), { admin: true, body: SettingsBody, detail: doc("updateGeneralSettings", GeneralSettings) })
    .get(
      "/users",
      ({ query }) =>
        domain.adminUsers.list(
          {
            q: query.q ?? null,
            bot: query.bot ?? null,
            premium: query.premium ?? null,
            admin: query.admin ?? null,
            disabled: query.disabled ?? null,
          },
          query.before ?? null,
          query.limit ?? LIMITS.admin.pageDefault,
        ),
      { admin: true, query: UsersQuery, detail: doc("adminListUsers", v.array(AdminUser)) },
    )
    .post(
      "/users",
      async ({ user, body, set }) => {
        const created = await domain.adminUsers.create(user, body);
        set.status = 201;
        return created;
      },
      { admin: true, body: NewUserBody, detail: doc("adminCreateUser", { 201: AdminUserDetail }, { errors: [409] }) },
    )
    .get("/users/:id", ({ params }) => domain.adminUsers.get(params.id), { admin: true, detail: doc("adminGetUser", AdminUserDetail) })
    .patch("/users/:id", ({ user, params, body }) => domain.adminUsers.update(user, params.id, body), {
      admin: true,
      body: UserFlagsBody,
      detail: doc("adminUpdateUser", AdminUserDetail),
    })
    .get(
      "/servers",
      ({ query }) =>
        domain.adminServers.list({ q: query.q ?? null, verified: query.verified ?? null }, query.before ?? null, query.limit ?? LIMITS.admin.pageDefault),
      { admin: true, query: ServersQuery, detail: doc("adminListServers", v.array(AdminServer)) },
    )
    .get("/servers/:id", ({ params }) => domain.adminServers.get(params.id), { admin: true, detail: doc("adminGetServer", AdminServer) })
    .patch(
      "/servers/:id",
      async ({ user, params, body }) => {
        if (body.verified === undefined) return domain.adminServers.get(params.id);
        return domain.adminServers.setVerified(user, params.id, body.verified);
      },
      { admin: true, body: ServerFlagsBody, detail: doc("adminUpdateServer", AdminServer) },
    )
    .get(
      "/reports",
      ({ query }) =>
        domain.reports.list(
          { status: query.status === "all" ? null : query.status, type: query.type ?? null },
          query.before ?? null,
          query.limit ?? LIMITS.admin.pageDefault,
        ),
      { admin: true, query: ReportsQuery, detail: doc("adminListReports", v.array(AdminReport)) },
    )
    .get("/reports/:id", ({ params }) => domain.reports.get(params.id), { admin: true, detail: doc("adminGetReport", AdminReport) })
    .post(
      "/reports/:id/resolve",
      ({ user, params, body }) => domain.reports.resolve(user, params.id, { status: body.status, action: body.action, note: body.note || null }),
      { admin: true, body: ResolveBody, detail: doc("adminResolveReport", AdminReport) },
    )
    .get("/log", ({ query }) => domain.admins.logPage(query.before ?? null, query.limit ?? LIMITS.admin.pageDefault), {
      admin: true,
      query: LogQuery,
      detail: doc("getPlatformLog", PlatformLogPage),
    });
