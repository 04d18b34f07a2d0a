export interface RateDecision {
  allowed: boolean;
  /** Seconds until the window that refused this resets. */
  retryAfter: number;
}

/**
 * Fixed-window counters keyed by a string (a client address, an account, a webhook).
 * Memory is bounded: past `maxKeys` expired windows are swept, then the oldest dropped.
 */
export class RateLimiter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly maxKeys = 100_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one attempt and says whether it is within the limit. */
  hit(key: string): RateDecision {
    const window = this.current(key, true)!;
    window.count += 1;
    return this.decide(window, window.count <= this.limit);
  }

  /** Whether `key` is already at its limit, without counting anything. */
  check(key: string): RateDecision {
    const window = this.current(key, false);
    if (!window) return { allowed: true, retryAfter: 0 };
    return this.decide(window, window.count < this.limit);
  }

  /**
   * Takes one unit of `key`'s budget when one is left, and refuses without counting when none
   * is. Reserve before the work the limit guards (a password check): concurrent attempts then
   * cannot all pass a check made before any of them was counted.
   */
  reserve(key: string): RateDecision {
    const window = this.current(key, true)!;
    if (window.count >= this.limit) return this.decide(window, false);
    window.count += 1;
    return this.decide(window, true);
  }

  /** Gives back one unit taken by `reserve` (the attempt turned out not to count), within the same window. */
  refund(key: string): void {
    const window = this.current(key, false);
    if (window && window.count > 0) window.count -= 1;
  }

  reset(key: string): void {
    this.windows.delete(key);
  }

  get size(): number {
    return this.windows.size;
  }

  private decide(window: { resetAt: number }, allowed: boolean): RateDecision {
    return { allowed, retryAfter: allowed ? 0 : Math.max(1, Math.ceil((window.resetAt - this.now()) / 1000)) };
  }

  private current(key: string, create: boolean) {
    const now = this.now();
    let window = this.windows.get(key);
    if (window && window.resetAt <= now) {
      this.windows.delete(key);
      window = undefined;
    }
    if (!window && create) {
      if (this.windows.size >= this.maxKeys) this.evict(now);
      window = { count: 0, resetAt: now + this.windowMs };
      this.windows.set(key, window);
    }
    return window;
  }

  private evict(now: number) {
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
    // Still full: drop the oldest windows (Map keeps insertion order).
    for (const key of this.windows.keys()) {
      if (this.windows.size < this.maxKeys) break;
      this.windows.delete(key);
    }
  }
}
