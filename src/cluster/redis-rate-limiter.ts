import type { Redis } from "ioredis";
import { RateLimiterMemory, RateLimiterRedis } from "rate-limiter-flexible";
import { pointsRateLimiter, windowSeconds, type RateLimiterOptions, type SharedRateLimiter } from "../domain/shared/rate-limit.ts";

/**
 * A SharedRateLimiter whose windows are kept in Redis by rate-limiter-flexible's RateLimiterRedis,
 * so every node counts into the same window: one key `hearth:rate:<name>:<key>` per limited
 * thing, expiring with its window; each count is one atomic script of the library's.
 *
 * The client is ioredis (the library tells it from node-redis by its class: `useRedisPackage`
 * stays off). While Redis is unreachable (`rejectIfRedisNotReady`, or a command failing) this
 * node counts in its own memory instead (`insuranceLimiter`), so a Redis outage loosens the
 * limits to one node's share instead of failing the requests. A `hitOnly` limiter's spent keys
 * are refused from this node's memory until their window ends (RateLimiterOptions).
 */
export function redisRateLimiter(redis: Redis, name: string, limit: number, windowMs: number, options: RateLimiterOptions = {}): SharedRateLimiter {
  const duration = windowSeconds(windowMs);
  const limiter = new RateLimiterRedis({
    storeClient: redis,
    keyPrefix: `hearth:rate:${name}`,
    points: limit,
    duration,
    rejectIfRedisNotReady: true,
    ...(options.hitOnly ? { inMemoryBlockOnConsumed: limit } : {}),
    insuranceLimiter: new RateLimiterMemory({ keyPrefix: name, points: limit, duration }),
  });
  return pointsRateLimiter(limiter, limit, windowMs);
}
