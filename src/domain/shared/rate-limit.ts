import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";

export interface RateDecision {
  allowed: boolean;
  /** Seconds until the window that refused this resets (0 when allowed). */
  retryAfter: number;
  /** Attempts a window allows. */
  limit: number;
  /** Attempts left in the current window. */
  remaining: number;
  /** When the current window ends, in epoch milliseconds. */
  resetAt: number;
}

/**
 * Fixed-window counts keyed by a string (a client address, an account, a webhook), kept by
 * rate-limiter-flexible: in this process (RateLimiterMemory) or, in cluster mode, in Redis for
 * every node (src/cluster/redis-rate-limiter.ts). Every window lasts the limiter's `windowMs`
 * from its key's first attempt.
 */
export interface SharedRateLimiter {
  /** Counts one attempt (refused ones too) and says whether it is within the limit. */
  hit(key: string): Promise<RateDecision>;
  /** Whether `key` is already at its limit, without counting anything. */
  check(key: string): Promise<RateDecision>;
  /**
   * Takes one unit of `key`'s budget when one is left, and refuses without counting when none
   * is. Reserve before the work the limit guards (a password check): concurrent attempts then
   * cannot all pass a check made before any of them was counted.
   */
  reserve(key: string): Promise<RateDecision>;
  /** Gives back one unit taken by `reserve` (the attempt turned out not to count), within the same window. */
  refund(key: string): Promise<void>;
  reset(key: string): Promise<void>;
}

export interface RateLimiterOptions {
  /**
   * The limiter is only ever `hit` (never reserved, refunded or reset): once a key's window is
   * spent, a node refuses the key from its own memory until the window ends instead of asking
   * the store again (rate-limiter-flexible's `inMemoryBlockOnConsumed`), so a flood of refused
   * requests costs no Redis round trip. A refund would not lift that, hence hits only.
   */
  hitOnly?: boolean;
}

/** What the adapter uses of a rate-limiter-flexible limiter: RateLimiterMemory and RateLimiterRedis have it alike. */
type PointsLimiter = Pick<RateLimiterAbstract, "consume" | "get" | "reward" | "delete">;

/**
 * A window as rate-limiter-flexible counts it, in whole seconds: its Redis store drops a
 * fraction of a second, and a window of 0 would never end.
 */
export const windowSeconds = (windowMs: number): number => Math.max(1, Math.ceil(windowMs / 1000));

/** A limiter of `limit` attempts per `windowMs` in this process's memory; `name` keeps its keys apart. */
export function memoryRateLimiter(name: string, limit: number, windowMs: number): SharedRateLimiter {
  return pointsRateLimiter(new RateLimiterMemory({ keyPrefix: name, points: limit, duration: windowSeconds(windowMs) }), limit, windowMs);
}

const noop = () => {};

/**
 * `ok` of what `promise` gives, or `refused` of the RateLimiterRes it is rejected with (the
 * library's way of saying "over the limit"); another rejection (a store error) passes through.
 */
async function settle<V, T>(promise: Promise<V>, ok: (value: V) => T | Promise<T>, refused: (res: RateLimiterRes) => T | Promise<T>): Promise<T> {
  let value: V;
  try {
    value = await promise;
  } catch (error) {
    if (error instanceof RateLimiterRes) return refused(error);
    throw error;
  }
  return ok(value);
}

/**
 * SharedRateLimiter over a rate-limiter-flexible limiter of `limit` points per `windowMs`.
 *
 * The library counts every consume, refused ones included; `reserve` gives a refused unit back
 * at once, and `refund` gives one back only while the window that took it lasts (the library's
 * `reward` on an ended window would open a new one below zero). On the Redis store each call is
 * atomic but a reserve's give-back is a second call: a window ending between the two leaves the
 * next window one unit short or, for a refund, one unit long, at most once per attempt in flight.
 */
export function pointsRateLimiter(limiter: PointsLimiter, limit: number, windowMs: number): SharedRateLimiter {
  const decision = (res: RateLimiterRes | null, allowed: boolean): RateDecision => {
    const msLeft = res && res.msBeforeNext > 0 ? res.msBeforeNext : windowMs;
    return {
      allowed,
      retryAfter: allowed ? 0 : Math.max(1, Math.ceil(msLeft / 1000)),
      limit,
      remaining: res ? res.remainingPoints : limit,
      resetAt: Date.now() + msLeft,
    };
  };
  /** The current window of `res`, or null when there is none (the memory store keeps an ended one until its timer runs). */
  const live = (res: RateLimiterRes | null) => (res && res.msBeforeNext > 0 ? res : null);
  const allowed = (res: RateLimiterRes | null) => decision(res, true);
  const refused = (res: RateLimiterRes) => decision(res, false);
  return {
    hit: (key) => settle(limiter.consume(key), allowed, refused),
    check: (key) =>
      settle(
        limiter.get(key),
        (res) => {
          const window = live(res);
          return decision(window, !window || window.consumedPoints < limit);
        },
        refused,
      ),
    reserve: (key) =>
      settle(
        limiter.consume(key),
        allowed,
        (res) =>
          settle(
            limiter.reward(key),
            () => decision(res, false),
            () => decision(res, false),
          ),
      ),
    refund: (key) =>
      settle(
        limiter.get(key),
        (res) => {
          const window = live(res);
          if (!window || window.consumedPoints <= 0) return;
          return settle(limiter.reward(key), noop, noop);
        },
        noop,
      ),
    reset: (key) => settle(limiter.delete(key), noop, noop),
  };
}
