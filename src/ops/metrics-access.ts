import { sameSecret } from "../domain/shared/same-secret.ts";

/**
 * Who may read /metrics (docs/operations.md, "Metrics"): a caller on loopback, or anyone with
 * `Authorization: Bearer <METRICS_TOKEN>` when that token is set.
 *
 * The address is the TCP peer (src/http/client-address.ts; no forwarding header is trusted for
 * it). A request that carries a forwarding header came through a proxy, and a proxy on the same
 * machine connects from loopback on behalf of anyone: such a request is never "loopback".
 */

/** 127.0.0.0/8, ::1, and IPv4 loopback written as an IPv6-mapped address. */
export function isLoopback(address: string): boolean {
  const v4 = address.startsWith("::ffff:") ? address.slice(7) : address;
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4)) return true;
  return address === "::1" || address === "0:0:0:0:0:0:0:1";
}

/** Headers a reverse proxy adds; their presence means the peer address is the proxy's. */
const FORWARDING_HEADERS = ["forwarded", "x-forwarded-for", "x-real-ip"] as const;

type MetricsAccess = { ok: true } | { ok: false; status: 401 | 403; error: string };

export const METRICS_TOKEN_NEEDED = "Authorization: Bearer <METRICS_TOKEN> is required from this address";
export const METRICS_LOOPBACK_ONLY = "Metrics are served to loopback callers only (set METRICS_TOKEN to allow others)";

export function metricsAccess(address: string, headers: Headers, token: string | undefined): MetricsAccess {
  if (token !== undefined) {
    const given = /^Bearer (.+)$/i.exec(headers.get("authorization") ?? "")?.[1];
    if (given !== undefined && sameSecret(given, token)) return { ok: true };
  }
  const proxied = FORWARDING_HEADERS.some((name) => headers.has(name));
  if (isLoopback(address) && !proxied) return { ok: true };
  return token !== undefined ? { ok: false, status: 401, error: METRICS_TOKEN_NEEDED } : { ok: false, status: 403, error: METRICS_LOOPBACK_ONLY };
}
