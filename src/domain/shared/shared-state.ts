import type { Activity } from "./shapes.ts";
import { memoryRateLimiter, type RateLimiterOptions, type SharedRateLimiter } from "./rate-limit.ts";

export type { SharedRateLimiter } from "./rate-limit.ts";

/**
 * The state that every node of a cluster must see alike (docs/operations.md, "Running several
 * nodes"): shared rate-limit windows, gateway connections per user across nodes (presence), and
 * signals that tell the other nodes a cache of theirs is stale. One node uses the in-process
 * implementation below; cluster mode (REDIS_URL) uses Redis (src/cluster/redis-shared-state.ts).
 * The domain never knows which one runs.
 */
export interface SharedState {
  /**
   * A fixed-window limit of `limit` attempts per `windowMs` (whole seconds, rounded up) named
   * `name`: the same name on every node shares the counts. Each key's window is dropped when it
   * ends, so memory follows the keys seen within one window.
   */
  rateLimiter(name: string, limit: number, windowMs: number, options?: RateLimiterOptions): SharedRateLimiter;
  readonly connections: ConnectionCounts;
  /** Tells the other nodes (never this one) that `topic` changed; `data` says what. */
  signal(topic: SignalTopic, data?: string): void;
  /** Runs `handler` when another node signals `topic`. */
  onSignal(topic: SignalTopic, handler: (data: string) => void): void;
}

/**
 * What a signal says is stale: cached permission decisions, the platform settings cache, the
 * live state (voice rooms) held by each node (src/domain/voice/live-state-everywhere.ts), or the
 * queue of background deletes (a job was queued: src/domain/community/deletions.ts), or the
 * next custom status expiry (src/domain/accounts/custom-status.ts; the data is its time).
 */
export type SignalTopic = "permissions" | "settings" | "live-state" | "deletions" | "custom-status";

/** Gateway connections per user, counted over every node, and the activities of connected users. */
export interface ConnectionCounts {
  /** Counts one more connection of `userId` (on this node); the count over all nodes after it. */
  connected(userId: string): Promise<number>;
  /** Counts one connection less; the count over all nodes after it. */
  disconnected(userId: string): Promise<number>;
  count(userId: string): Promise<number>;
  activity(userId: string): Promise<Activity | null>;
  setActivity(userId: string, activity: Activity | null): Promise<void>;
  /**
   * Runs `handler` for each user whose count changed without a connect or disconnect here: their
   * last connections were on a node that died (its counts taken back by a surviving node), or
   * the counts were published again after a Redis outage (docs/operations.md, "Failure modes").
   * Never called on one node.
   */
  onRecount(handler: (userId: string) => void): void;
}

/** One process: everything in memory, signals go nowhere (there is no other node). */
export function localSharedState(): SharedState {
  const sockets = new Map<string, number>();
  const activities = new Map<string, Activity>();
  return {
    rateLimiter: (name, limit, windowMs) => memoryRateLimiter(name, limit, windowMs),
    connections: {
      async connected(userId) {
        const count = (sockets.get(userId) ?? 0) + 1;
        sockets.set(userId, count);
        return count;
      },
      async disconnected(userId) {
        const count = Math.max(0, (sockets.get(userId) ?? 0) - 1);
        if (count > 0) sockets.set(userId, count);
        else {
          sockets.delete(userId);
          activities.delete(userId);
        }
        return count;
      },
      async count(userId) {
        return sockets.get(userId) ?? 0;
      },
      async activity(userId) {
        return activities.get(userId) ?? null;
      },
      async setActivity(userId, activity) {
        if (activity) activities.set(userId, activity);
        else activities.delete(userId);
      },
      onRecount() {},
    },
    signal() {},
    onSignal() {},
  };
}
