/** Answers of the operators' routes (docs/operations.md, "Health and readiness"). */
import * as v from "valibot";

export const Health = v.object({ status: v.literal("ok") });
export const Ready = v.object({
  status: v.literal("ready"),
  /** Each dependency checked ("database", and "redis" in cluster mode), all "ok". */
  checks: v.record(v.string(), v.literal("ok")),
});
