/** Answers of the operators' routes (docs/operations.md, "Health and readiness"). */
import * as v from "valibot";

/** "ok", or "degraded" with the dependencies the node is serving without (cluster mode: "redis"). */
export const Health = v.union([v.object({ status: v.literal("ok") }), v.object({ status: v.literal("degraded"), degraded: v.array(v.string()) })]);
export const Ready = v.object({
  status: v.literal("ready"),
  /** Each dependency checked ("database", and "redis" in cluster mode): "ok", or "degraded" for one the node can serve without (Redis). */
  checks: v.record(v.string(), v.picklist(["ok", "degraded"])),
});
