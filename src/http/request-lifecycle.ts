import type { Logger } from "../log.ts";
import { UNMATCHED_ROUTE, type Metrics } from "../ops/metrics.ts";
import { drainingResponse, isAnsweredWhileDraining } from "../ops/drain.ts";
import type { Readiness } from "../ops/readiness.ts";
import { errorResponse, loggablePath } from "./errors.ts";

/** What the app does around every HTTP request, called by Elysia's global hooks (src/app.ts). */
interface RequestLifecycle {
  /** The checks before anything reads the request: a Response refuses it. */
  refuse(request: Request): Response | undefined;
  /** A failure as `{error}` with its status. */
  error(code: string | number, error: unknown, request: Request): Response;
  /**
   * The request's metrics and log line. `pattern` is the matched route's pattern (none for an
   * unknown path); `ms` the time since the request was taken (unknown when it never was);
   * `client` the caller's address (./client-address.ts: through a trusted proxy, the one it names).
   */
  record(request: Request, pattern: string | undefined, status: number, ms: number | undefined, client: string): void;
  /**
   * The Cache-Control an answer gets when its route set none, from the request's URL:
   * `no-store` for everything under `/api` (answers for a token, and public
   * ones that change: discovery, stats), so no browser or proxy keeps a copy; undefined
   * elsewhere (the web app's pages and assets, uploaded files and health checks set their own).
   * docs/operations.md#caching.
   */
  cacheControl(url: string): string | undefined;
}

/** Paths answered to a request without a Host header (health checks). */
const HOSTLESS_PATHS: ReadonlySet<string> = new Set(["/healthz", "/readyz"]);
/**
 * Routes a load balancer or Prometheus calls every few seconds: logged at debug, so the info
 * log keeps what people did (docs/operations.md, "Logging"). A failed one is still a warning.
 */
const PROBE_ROUTES: ReadonlySet<string> = new Set(["/healthz", "/readyz", "/metrics"]);

/**
 * Whether Bun gives this request an absolute URL that parses: the rule is read off the Host
 * header, not off `request.url`, whose getter formats and parses the URL again on every read.
 * Bun builds `http://<host><path>`
 * only when the first Host header is made of RFC 3986's host and port characters
 * (`HOST_CHARS`), and a bare path otherwise; the path cannot make the URL unparsable. A
 * repeated Host header (RFC 9112 says 400) reads as "a, b" and is refused.
 * test/http/host-header.test.ts holds this to `URL.canParse(request.url)` on raw requests.
 */
const HOST_CHARS = /^[A-Za-z0-9\-._~%!$&'()*+,;=:[\]]+$/;
/** The last Host found usable: nearly every request names the same one, and it is then one string compare. */
let usableHost = "";
function hasUsableHost(request: Request): boolean {
  const host = request.headers.get("host");
  if (host === null) return false;
  if (host === usableHost) return true;
  if (!HOST_CHARS.test(host) || !URL.canParse(`http://${host}/`)) return false;
  usableHost = host;
  return true;
}

/**
 * Whether `url`'s path is `/api` or under it. `url` is absolute, or a bare path (a Host-less
 * request's URL); read without parsing it, as every request does this.
 */
function isUnderApi(url: string): boolean {
  const start = url.startsWith("/") ? 0 : url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0 || !url.startsWith("/api", start)) return false;
  const next = url[start + 4];
  return next === undefined || next === "/" || next === "?";
}

export function requestLifecycle(readiness: Readiness, metrics: Metrics, log: Logger): RequestLifecycle {
  return {
    refuse(request) {
      // HTTP/1.0 allows a request without Host; Bun then gives a bare path as its URL (so it does
      // for a Host it cannot use), which nothing here can make absolute (discovery's links,
      // logs): refused before anything reads it.
      // Health checks are still answered (a load balancer's plain `option httpchk` sends none).
      if (!hasUsableHost(request) && !HOSTLESS_PATHS.has(request.url)) return Response.json({ error: "A Host header is required" }, { status: 400 });
      // Draining: requests already in flight finish; new ones are refused (src/ops/drain.ts).
      if (readiness.draining && !isAnsweredWhileDraining(request)) return drainingResponse();
      return undefined;
    },
    error: (code, error, request) => errorResponse(code, error, request, log),
    cacheControl: (url) => (isUnderApi(url) ? "no-store" : undefined),
    record(request, pattern, status, ms, client) {
      // The route's pattern, never the raw path: unknown paths share one label.
      const method = request.method;
      metrics.observeRequest(method, pattern || UNMATCHED_ROUTE, status, (ms ?? 0) / 1000);
      const fields = { method, route: pattern ?? loggablePath(request), status, ms: ms === undefined ? undefined : Math.round(ms * 10) / 10, client };
      if (pattern !== undefined && PROBE_ROUTES.has(pattern)) {
        if (status < 400) log.debug("request", fields);
        else log.warn("request", fields);
      } else log.info("request", fields);
    },
  };
}
