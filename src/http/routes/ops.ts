import { Elysia } from "elysia";
import type { Metrics } from "../../ops/metrics.ts";
import { metricsAccess } from "../../ops/metrics-access.ts";
import type { Readiness } from "../../ops/readiness.ts";
import { clientAddress } from "../client-address.ts";
import { doc, PROMETHEUS_TEXT } from "../operation-doc.ts";
import { Health, Ready } from "../responses/ops.ts";

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers } });

/**
 * For operators and load balancers (docs/operations.md): /healthz (the process answers),
 * /readyz (its dependencies answer and it is not draining), /metrics (Prometheus text, loopback
 * only unless METRICS_TOKEN is set). No user token on any of them.
 */
export const opsRoutes = (readiness: Readiness, metrics: Metrics, metricsToken: string | undefined) =>
  new Elysia({ tags: ["Operations"] })
    .get(
      "/healthz",
      () => {
        const degraded = readiness.degraded();
        return json(200, degraded.length ? { status: "degraded", degraded } : { status: "ok" });
      },
      {
        detail: doc("getHealth", Health, {
          description:
            "The process is alive: answers at once, checks nothing else. `degraded` names a dependency the node is serving without " +
            "(cluster mode: Redis out of reach; the node serves its own sockets alone).",
        }),
      },
    )
    .get(
      "/readyz",
      async () => {
        const result = await readiness.check();
        return result.ready ? json(200, { status: "ready", checks: result.checks }) : json(503, { error: result.error });
      },
      {
        detail: doc("getReadiness", Ready, {
          errors: [503],
          description:
            "Whether this node should get traffic: the database answered, the disk under DATA_DIR has at least DATA_DIR_MIN_FREE_MB free, and the node is not draining. " +
            "In cluster mode Redis is checked too, but a node without it stays ready (its check reads `degraded`). 503 names what is not ready.",
        }),
      },
    )
    .get(
      "/metrics",
      async ({ request, server }) => {
        const access = metricsAccess(clientAddress(request, server), request.headers, metricsToken);
        if (!access.ok) return json(access.status, { error: access.error }, access.status === 401 ? { "www-authenticate": "Bearer" } : {});
        return new Response(await metrics.text(), { headers: { "content-type": metrics.contentType, "cache-control": "no-store" } });
      },
      {
        detail: doc("getMetrics", PROMETHEUS_TEXT, {
          errors: [401, 403],
          headers: { Authorization: "`Bearer <METRICS_TOKEN>`: needed from a non-loopback address, when METRICS_TOKEN is set" },
          description:
            "The node's figures in the Prometheus text format. Served to loopback callers (without a forwarding header); " +
            "others need METRICS_TOKEN: 401 without it when it is set, 403 when it is not set.",
        }),
      },
    );
