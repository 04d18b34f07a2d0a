import { Redis, type RedisOptions } from "ioredis";
import type { Logger } from "../log.ts";
import { Availability } from "../store/availability.ts";
import { RedisUnavailableError } from "./redis-unavailable.ts";

/**
 * The Redis connections of one node: a main client and every duplicate made from it (the
 * Socket.IO adapter makes its own for reading the stream and for pub/sub; so does the signal
 * subscriber). `close()` ends them all, so a stopping node leaves no blocked read behind.
 *
 * Nothing waits on Redis without a bound (docs/operations.md, "Failure modes"): the main
 * client, which every request-time command goes through, queues nothing while disconnected
 * (a command fails at once) and gives a command `COMMAND_TIMEOUT_MS` to be answered, so a
 * request that touches Redis during an outage falls back (local rate limits, local delivery,
 * local presence counts) within that bound. The duplicates keep ioredis's queue: they only hold
 * the stream reader's blocking XREAD and subscriptions, which wait for Redis to come back and
 * then go on from where they were (the reader from its last offset: the broadcasts of the
 * outage that reached the stream arrive late, in order).
 *
 * `availability` says whether Redis answers: down when the main connection closes or a bounded
 * command of the node's own (the heartbeat, a broadcast) fails, up again once it is ready. The
 * log says it once each way, not once per failed command or reconnect attempt.
 */
interface RedisConnections {
  readonly client: Redis;
  readonly availability: Availability;
  duplicate(): Redis;
  close(): Promise<void>;
}

/** How long a request-time Redis command may take before it counts as failed. */
export const COMMAND_TIMEOUT_MS = 2000;

const MAIN_OPTIONS: RedisOptions = { lazyConnect: true, connectionName: "hearth", enableOfflineQueue: false, commandTimeout: COMMAND_TIMEOUT_MS, maxRetriesPerRequest: 0 };
/** What a duplicate overrides of the main client's options (see above). */
const DUPLICATE_OPTIONS: RedisOptions = { enableOfflineQueue: true, commandTimeout: undefined, maxRetriesPerRequest: null };

/** `onError` hears every connection's errors (the metrics count them: hearth_cluster_errors_total). */
export async function connectRedis(url: string, log: Logger, onError: () => void = () => {}): Promise<RedisConnections> {
  const made: Redis[] = [];
  const availability = new Availability();
  let closing = false;
  const watch = (client: Redis, role: string) => {
    made.push(client);
    // The Socket.IO adapter sends some commands without waiting for them (a session saved on
    // disconnect, a pub/sub publish): failing at once while Redis is out, each would be an
    // unhandled rejection, which ends a Bun process. Every command's promise gets a handler
    // here; those awaited still see the error. On the main client a failure to reach Redis
    // becomes a RedisUnavailableError (503 to clients) and marks the outage.
    const send = client.sendCommand.bind(client);
    const main = role === "main";
    client.sendCommand = (...args: Parameters<Redis["sendCommand"]>) => {
      const sent = send(...args);
      if (!(sent instanceof Promise)) return sent;
      const settled = main
        ? sent.catch((error: unknown) => {
            if (error instanceof Error && error.name === "ReplyError") throw error;
            if (!closing) availability.failed();
            throw new RedisUnavailableError(error);
          })
        : sent;
      settled.catch(() => {});
      return settled;
    };
    // ioredis reconnects by itself; an error is worth a line, not a crash, and one per outage.
    client.on("error", (error: Error) => {
      onError();
      if (availability.downSince === null) log.warn("redis error", { role, error: error.message });
      else log.debug("redis error", { role, error: error.message });
    });
    return client;
  };
  const client = watch(new Redis(url, MAIN_OPTIONS), "main");
  // The adapter duplicates the client it is given: duplicates are watched and closed with it.
  const duplicateOf = client.duplicate.bind(client);
  client.duplicate = (override) => watch(duplicateOf({ ...DUPLICATE_OPTIONS, ...override }), "duplicate");
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    throw new Error(`Cannot reach Redis at REDIS_URL: ${error instanceof Error ? error.message : String(error)}`);
  }
  client.on("close", () => closing || availability.failed());
  client.on("ready", () => availability.answered());
  availability.onChange((available, downForMs) => {
    if (available) log.warn("redis reachable again: cross-node delivery resumed", { down_ms: downForMs });
    else log.warn("redis unreachable: serving this node's sockets alone, rate limits counted on this node, until it is back");
  });
  return {
    client,
    availability,
    duplicate: () => client.duplicate(),
    async close() {
      closing = true;
      for (const connection of made) connection.disconnect();
    },
  };
}
