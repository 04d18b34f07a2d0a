import { ApiError } from "../domain/shared/errors.ts";
import type { RateDecision } from "../domain/shared/rate-limit.ts";
import type { SharedRateLimiter, SharedState } from "../domain/shared/shared-state.ts";
import { FAMILY_LABELS, REST_RATE_FAMILIES, restRateFamilyOf, scopeParamOf, type RestRateFamily, type RestRateLimits } from "./rate-limit-families.ts";

/** The headers a limited route answers with, as Discord names them. */
type RateHeaders = Record<string, string>;

/** The limit of one route: counts a request of a caller against the route family's bucket. */
interface RouteRateLimit {
  readonly family: RestRateFamily;
  /**
   * Counts one request of `userId` (with the route's path parameters): the headers to answer
   * with, or a 429 ApiError carrying them and Retry-After.
   */
  take(userId: string, params: Record<string, string> | undefined): Promise<RateHeaders>;
}

/**
 * The REST rate limits (docs/operations.md, "Rate limits"): one fixed-window bucket per caller
 * and route family (src/http/rate-limit-families.ts), in SharedState, so in cluster mode every
 * node counts into the same bucket (Redis). Called by the `auth` and `bot` macros
 * (src/http/auth.ts), right after the bearer check and before anything else reads the request, so a refusal costs a token check,
 * one count and a short answer.
 */
export class RestRateLimiter {
  private readonly buckets = new Map<RestRateFamily, SharedRateLimiter>();
  private readonly routes = new Map<string, RouteRateLimit | null>();

  constructor(shared: SharedState, limits: RestRateLimits) {
    for (const family of REST_RATE_FAMILIES) {
      const { requests, windowSeconds } = limits[family];
      // Only ever hit: in cluster mode a spent bucket is refused from memory, without Redis.
      this.buckets.set(family, shared.rateLimiter(`rest-${family}`, requests, windowSeconds * 1000, { hitOnly: true }));
    }
  }

  /** The limit of a route by method and pattern, or null when no family limits it; worked out once per route. */
  forRoute(method: string, pattern: string): RouteRateLimit | null {
    const name = `${method} ${pattern}`;
    let limit = this.routes.get(name);
    if (limit === undefined) {
      const family = restRateFamilyOf(method, pattern);
      limit = family ? this.limitOf(family, scopeParamOf(family, pattern)) : null;
      this.routes.set(name, limit);
    }
    return limit;
  }

  private limitOf(family: RestRateFamily, scope: string | null): RouteRateLimit {
    const count = this.counter(family);
    if (family !== "sends") return { family, take: (userId) => count(userId) };
    // A send counts against the caller's sends over all channels first: past that, no bucket of
    // the channel is made at all.
    const overall = this.counter("user-sends");
    const ofChannel = (userId: string, params: Record<string, string> | undefined) => count(`${userId}:${(scope && params?.[scope]) ?? ""}`);
    return {
      family,
      async take(userId, params) {
        await overall(userId);
        return ofChannel(userId, params);
      },
    };
  }

  /** Counts one request under `key` in the family's bucket: its headers, or a 429. */
  private counter(family: RestRateFamily): (key: string) => Promise<RateHeaders> {
    const bucket = this.buckets.get(family)!;
    const { bucket: bucketName, refusal } = FAMILY_LABELS[family];
    const answer = (decision: RateDecision): RateHeaders => {
      const headers = rateHeaders(decision, bucketName);
      if (!decision.allowed) {
        throw new ApiError(429, `You are being rate limited: ${refusal}; retry in ${decision.retryAfter} s`, { ...headers, "Retry-After": String(decision.retryAfter) });
      }
      return headers;
    };
    return async (key) => answer(await bucket.hit(key));
  }
}

/**
 * `X-RateLimit-*` of a decision: Reset in epoch seconds and Reset-After in seconds, both to the
 * millisecond (as Discord; `String` of whole milliseconds over 1000, cheaper than `toFixed`).
 */
function rateHeaders(decision: RateDecision, bucket: string): RateHeaders {
  const resetAt = Math.round(decision.resetAt);
  return {
    "X-RateLimit-Limit": String(decision.limit),
    "X-RateLimit-Remaining": String(decision.remaining),
    "X-RateLimit-Reset": String(resetAt / 1000),
    "X-RateLimit-Reset-After": String(Math.max(0, resetAt - Date.now()) / 1000),
    "X-RateLimit-Bucket": bucket,
  };
}
