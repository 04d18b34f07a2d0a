export interface RateDecision {
  allowed: boolean;
  /** Seconds until the window that refused this resets. */
  retryAfter: number;
}

/**
 * Fixed-window counters keyed by a string (a client address, an account, a webhook).
 * Memory is bounded: past `maxKeys` expired windows are swept, then the oldest tenth dropped.
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

  /**
   * Every window lasts `windowMs` from its creation and a renewed key is inserted again, so the
   * Map's insertion order is also the order of `resetAt`: expired windows are at the front. The
   * sweep stops at the first live one, and when it frees nothing a tenth of the oldest go at
   * once, so a flood of new keys costs O(1) per hit on average, never a scan per hit.
   */
  private evict(now: number) {
    for (const [key, window] of this.windows) {
      if (window.resetAt > now) break;
      this.windows.delete(key);
    }
    if (this.windows.size < this.maxKeys) return;
    const keep = this.maxKeys - Math.max(1, Math.floor(this.maxKeys / 10));
    for (const key of this.windows.keys()) {
      if (this.windows.size <= keep) break;
      this.windows.delete(key);
    }
  }
}
