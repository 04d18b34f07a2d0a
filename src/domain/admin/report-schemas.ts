/** The payload that files a report: the REST route parses with it, and Reports takes its output. */
import * as v from "valibot";
import { LIMITS } from "../shared/limits.ts";

const id = (what: string) => v.optional(v.pipe(v.string("must be a string"), v.uuid(`must be a ${what} id`)));
const { reasonLength } = LIMITS.report;

export const NewReport = v.object({
  message_id: id("message"),
  user_id: id("user"),
  reason: v.pipe(
    v.string("must be a string"),
    v.trim(),
    v.minLength(1, `must be 1-${reasonLength} characters`),
    v.maxLength(reasonLength, `must be 1-${reasonLength} characters`),
  ),
});
export type NewReportInput = v.InferOutput<typeof NewReport>;
