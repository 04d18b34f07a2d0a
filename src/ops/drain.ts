import type { Server } from "bun";

/**
 * Draining (docs/operations.md, "Draining"): a node being stopped finishes what it started and
 * starts nothing new. The listening socket stays open until the requests in flight are done, so
 * a load balancer's /readyz check sees 503 and every new request gets a quick 503 it can retry
 * elsewhere, instead of hanging.
 */

export const SHUTTING_DOWN = "This node is shutting down: retry on another";

/** Answered as usual while draining: liveness, readiness (503 by then) and the last scrapes. */
const ANSWERED_WHILE_DRAINING = new Set(["/healthz", "/readyz", "/metrics"]);

export function isAnsweredWhileDraining(request: Request): boolean {
  return ANSWERED_WHILE_DRAINING.has(new URL(request.url).pathname);
}

/** 503 {error}, and the connection is not kept for another request. */
export function drainingResponse(): Response {
  return new Response(JSON.stringify({ error: SHUTTING_DOWN }), {
    status: 503,
    headers: { "content-type": "application/json; charset=utf-8", connection: "close", "retry-after": "1" },
  });
}

/**
 * Resolves once no request is in flight on `server` any more, or after `timeoutMs`; true when
 * they all finished. A request that came in while draining is answered at once (above), so it
 * holds nothing up.
 */
export async function waitForRequestsInFlight(server: Server<unknown>, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (server.pendingRequests > 0) {
    if (performance.now() >= deadline) return false;
    await Bun.sleep(10);
  }
  return true;
}
