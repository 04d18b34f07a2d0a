import { Elysia } from "elysia";
import * as v from "valibot";
import type { Domain } from "../../domain/domain.ts";
import { LIMITS } from "../../domain/shared/limits.ts";
import type { AuthPlugin } from "../auth.ts";
import { body, queryLimit } from "../schemas.ts";
import { NewReport } from "../../domain/admin/report-schemas.ts";
import { doc } from "../operation-doc.ts";
import { OwnReport } from "../responses/admin.ts";

const ReportBody = body(NewReport.entries);
const MineQuery = v.object({
  before: v.optional(v.pipe(v.string(), v.uuid("must be an id from a previous page"))),
  limit: queryLimit(LIMITS.report.pageMax),
});

/** /api/v1/reports: users report messages and users; they see their own reports (docs/reports.md). */
export const reportRoutes = (domain: Domain, auth: AuthPlugin) =>
  new Elysia({ prefix: "/api/v1/reports", tags: ["Reports"] })
    .use(auth)
    .post(
      "",
      async ({ user, body, set }) => {
        const { created, report } = await domain.reports.file(user, body);
        set.status = created ? 201 : 200;
        return report;
      },
      {
        auth: true,
        body: ReportBody,
        detail: doc("fileReport", { 200: OwnReport, 201: OwnReport }, {
          errors: [404, 429],
          description: "201 with a new report; 200 with the open one when the caller already reported the same thing.",
        }),
      },
    )
    .get("", ({ user, query }) => domain.reports.mine(user, query.before ?? null, query.limit ?? LIMITS.report.pageDefault), {
      auth: true,
      query: MineQuery,
      detail: doc("listMyReports", v.array(OwnReport)),
    });
