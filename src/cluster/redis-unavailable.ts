/**
 * A Redis command of the main client that failed because Redis could not be reached or did not
 * answer in time (src/cluster/redis-client.ts), as opposed to an error Redis answered. REST
 * answers it `503 {"error": "Redis unavailable"}` with Retry-After, a gateway ack says the same,
 * and the outage is logged once (docs/operations.md, "Failure modes"). Kept apart from the
 * client so that one node, which never loads ioredis, can still recognise it.
 */
export class RedisUnavailableError extends Error {
  override name = "RedisUnavailableError";
  constructor(override readonly cause: unknown) {
    super("Redis unavailable");
  }
}

/** Seconds a client is told to wait before trying again (Retry-After). */
export const REDIS_RETRY_AFTER_SECONDS = 5;
