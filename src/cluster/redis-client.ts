import { Redis } from "ioredis";
import type { Logger } from "../log.ts";

/**
 * The Redis connections of one node: a main client and every duplicate made from it (the
 * Socket.IO adapter makes its own for reading the stream and for pub/sub; so does the signal
 * subscriber). `close()` ends them all, so a stopping node leaves no blocked read behind.
 */
interface RedisConnections {
  readonly client: Redis;
  duplicate(): Redis;
  close(): Promise<void>;
}

/** `onError` hears every connection's errors (the metrics count them: hearth_cluster_errors_total). */
export async function connectRedis(url: string, log: Logger, onError: () => void = () => {}): Promise<RedisConnections> {
  const made: Redis[] = [];
  const watch = (client: Redis, role: string) => {
    made.push(client);
    // ioredis reconnects by itself; an error is worth a line, not a crash.
    client.on("error", (error: Error) => {
      onError();
      log.warn("redis error", { role, error: error.message });
    });
    return client;
  };
  const client = watch(new Redis(url, { lazyConnect: true, connectionName: "hearth" }), "main");
  // The adapter duplicates the client it is given: duplicates are watched and closed with it.
  const duplicateOf = client.duplicate.bind(client);
  client.duplicate = (override) => watch(duplicateOf(override), "duplicate");
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    throw new Error(`Cannot reach Redis at REDIS_URL: ${error instanceof Error ? error.message : String(error)}`);
  }
  return {
    client,
    duplicate: () => client.duplicate(),
    async close() {
      for (const connection of made) connection.disconnect();
    },
  };
}
