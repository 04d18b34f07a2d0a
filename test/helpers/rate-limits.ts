import type { Config } from "../../src/config.ts";
import { DEFAULT_REST_RATE_LIMITS, REST_RATE_FAMILIES, type RestRateFamily, type RestRateLimits } from "../../src/http/rate-limit-families.ts";

/**
 * The REST rate limits (docs/operations.md, "Rate limits") raised far past what a test or a
 * bench sends: only `families` when named (`sends` with the sends over all channels), every
 * family otherwise. For the tests and benches that flood on purpose (each says why where it
 * uses this); every other test runs with the defaults, as a real client does.
 */
export function raisedRestRateLimits(...families: RestRateFamily[]): Pick<Config, "restRateLimits"> {
  const raised: readonly RestRateFamily[] = families.length === 0 ? REST_RATE_FAMILIES : families.includes("sends") ? [...families, "user-sends"] : families;
  const limits = { ...DEFAULT_REST_RATE_LIMITS } as RestRateLimits;
  for (const family of raised) limits[family] = { requests: 1_000_000_000, windowSeconds: 60 };
  return { restRateLimits: limits };
}
