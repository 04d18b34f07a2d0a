import { DEFAULT_EVENT_LIMITS, EVENT_KIND } from "./generated/constants.js";

/**
 * Client event pacing (docs/gateway.md, "Limits"): the server gives each socket a token bucket
 * per event kind and refuses what exceeds it (and disconnects a socket that keeps going), so the
 * SDK waits for a token before it emits. Its buckets refill a little slower than the server's
 * and start as full as the server's, so what they let through never exceeds what the server
 * counts, whatever the network does to the spacing (a packet can only arrive later than sent).
 * A reconnect keeps the buckets: the new socket's buckets on the server start full, so the SDK's
 * stay below them, and emits buffered while disconnected have taken their tokens already.
 */

/** A kind's limit as the server publishes it (`GET /api/v1/platform/config`, `gateway_limits`). */
export interface KindLimit {
  per_second: number;
  burst: number;
}

/** The share of the server's rate the SDK uses. */
const MARGIN = 0.9;

class Bucket {
  private tokens: number;
  private updated = Date.now();
  private readonly waiting: (() => void)[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(private limit: KindLimit) {
    this.tokens = limit.burst;
  }

  set(limit: KindLimit): void {
    this.refill();
    this.limit = limit;
    this.tokens = Math.min(this.tokens, limit.burst);
    this.schedule();
  }

  /** Resolves when the event may go (at once when a token is there and nobody waits before it). */
  take(): Promise<void> | undefined {
    this.refill();
    if (this.waiting.length === 0 && this.tokens >= 1) {
      this.tokens -= 1;
      return undefined;
    }
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.schedule();
    });
  }

  private refill(): void {
    const now = Date.now();
    this.tokens = Math.min(this.limit.burst, this.tokens + ((now - this.updated) / 1000) * this.limit.per_second * MARGIN);
    this.updated = now;
  }

  private schedule(): void {
    if (this.timer || this.waiting.length === 0) return;
    const wait = Math.max(1, Math.ceil(((1 - this.tokens) / (this.limit.per_second * MARGIN)) * 1000));
    this.timer = setTimeout(() => {
      this.timer = null;
      this.refill();
      while (this.waiting.length > 0 && this.tokens >= 1) {
        this.tokens -= 1;
        this.waiting.shift()!();
      }
      this.schedule();
    }, wait);
    // A bot that has nothing else to do must still be able to exit while an emit waits.
    (this.timer as { unref?: () => void }).unref?.();
  }
}

export class EventPacer {
  private readonly buckets = new Map<string, Bucket>();
  private limits: Record<string, KindLimit> = Object.fromEntries(
    Object.entries(DEFAULT_EVENT_LIMITS).map(([kind, limit]) => [kind, { per_second: limit.perSecond, burst: limit.burst }]),
  );

  /** The server's own limits (its `gateway_limits.kinds`), replacing the defaults. */
  setLimits(kinds: Record<string, KindLimit>): void {
    this.limits = { ...this.limits, ...kinds };
    for (const [kind, bucket] of this.buckets) if (this.limits[kind]) bucket.set(this.limits[kind]);
  }

  /** Waits, if need be, until `event` may be emitted; undefined when it may go at once. */
  take(event: string): Promise<void> | undefined {
    const kind = (EVENT_KIND as Record<string, string>)[event];
    const limit = kind ? this.limits[kind] : undefined;
    if (!kind || !limit) return undefined;
    let bucket = this.buckets.get(kind);
    if (!bucket) this.buckets.set(kind, (bucket = new Bucket(limit)));
    return bucket.take();
  }
}
