import type { Redis } from "ioredis";
import type { RateDecision } from "../domain/shared/rate-limit.ts";
import type { SharedRateLimiter } from "../domain/shared/shared-state.ts";

/**
 * RateLimiter's fixed windows (src/domain/shared/rate-limit.ts) kept in Redis, so every node
 * counts into the same window: one key per limited thing, expiring with its window. Each
 * operation is one Lua script, atomic across nodes (a reserve cannot be overtaken).
 */
const SCRIPTS = {
  // -> {count after, ms left}
  hit: `local c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {c, redis.call('PTTL', KEYS[1])}`,
  // -> {1 when a unit was taken else 0, ms left}
  reserve: `local c = tonumber(redis.call('GET', KEYS[1]) or '0')
if c >= tonumber(ARGV[2]) then return {0, redis.call('PTTL', KEYS[1])} end
c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {1, redis.call('PTTL', KEYS[1])}`,
  refund: `local c = tonumber(redis.call('GET', KEYS[1]) or '0')
if c > 0 then redis.call('DECR', KEYS[1]) end
return 0`,
} as const;

type Scripted = Redis & {
  hearthRateHit(key: string, windowMs: number): Promise<[number, number]>;
  hearthRateReserve(key: string, windowMs: number, limit: number): Promise<[number, number]>;
  hearthRateRefund(key: string): Promise<number>;
};

export function defineRateScripts(redis: Redis): void {
  redis.defineCommand("hearthRateHit", { numberOfKeys: 1, lua: SCRIPTS.hit });
  redis.defineCommand("hearthRateReserve", { numberOfKeys: 1, lua: SCRIPTS.reserve });
  redis.defineCommand("hearthRateRefund", { numberOfKeys: 1, lua: SCRIPTS.refund });
}

export function redisRateLimiter(redis: Redis, name: string, limit: number, windowMs: number): SharedRateLimiter {
  const scripted = redis as Scripted;
  const keyOf = (key: string) => `hearth:rate:${name}:${key}`;
  const decide = (allowed: boolean, msLeft: number): RateDecision => ({
    allowed,
    retryAfter: allowed ? 0 : Math.max(1, Math.ceil((msLeft > 0 ? msLeft : windowMs) / 1000)),
  });
  return {
    async hit(key) {
      const [count, msLeft] = await scripted.hearthRateHit(keyOf(key), windowMs);
      return decide(count <= limit, msLeft);
    },
    async check(key) {
      const [count, msLeft] = (await redis.multi().get(keyOf(key)).pttl(keyOf(key)).exec()) ?? [];
      return decide(Number(count?.[1] ?? 0) < limit, Number(msLeft?.[1] ?? -1));
    },
    async reserve(key) {
      const [taken, msLeft] = await scripted.hearthRateReserve(keyOf(key), windowMs, limit);
      return decide(taken === 1, msLeft);
    },
    async refund(key) {
      await scripted.hearthRateRefund(keyOf(key));
    },
    async reset(key) {
      await redis.del(keyOf(key));
    },
  };
}
