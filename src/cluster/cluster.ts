import { createAdapter } from "@socket.io/redis-streams-adapter";
import type { ServerOptions } from "socket.io";
import type { Logger } from "../log.ts";
import { connectRedis } from "./redis-client.ts";
import { redisSharedState, type RedisSharedState } from "./redis-shared-state.ts";
import { redisVoiceHomes, type ClusterHomes } from "./voice-homes.ts";
import { redisVoiceStates } from "./redis-voice-states.ts";
import type { VoiceStates } from "../domain/voice/voice-states.ts";
import type { Availability } from "../store/availability.ts";

/**
 * Cluster mode (REDIS_URL; docs/operations.md, "Running several nodes"): what one node needs to
 * be one of many. The Socket.IO Redis Streams adapter carries room broadcasts, room joins and
 * leaves, disconnects and socket lookups between nodes (given to `new Server` in
 * src/gateway/gateway.ts); `shared` is the domain's SharedState in Redis.
 */
export interface ClusterNode {
  readonly nodeId: string;
  readonly adapter: NonNullable<ServerOptions["adapter"]>;
  readonly shared: RedisSharedState;
  /** Which node holds each voice room and DM call, and the calls held here (src/cluster/voice-homes.ts). */
  readonly voiceHomes: ClusterHomes;
  /** Each voice room's snapshot, written by its home, read by every node (src/cluster/redis-voice-states.ts). */
  readonly voiceStates: VoiceStates;
  /**
   * Whether Redis answers (src/cluster/redis-client.ts): while it does not, the node serves its
   * own sockets and REST alone, and /readyz, /healthz and the metrics say "degraded".
   */
  readonly redis: Availability;
  /** Resolves when Redis answers PING (/readyz's degraded check). */
  ping(): Promise<unknown>;
  /** The Redis server's run id: a new one means Redis restarted (src/gateway/outage-recovery.ts). */
  runId(): Promise<string>;
  stop(): Promise<void>;
}

/** Redis keys and channels of the gateway adapter, apart from anything else in that Redis. */
const ADAPTER_OPTIONS = {
  streamName: "hearth:gateway",
  channelPrefix: "hearth:gateway",
  sessionKeyPrefix: "hearth:gateway-session:",
  // Room broadcasts kept in the stream for catching up; about a minute of a busy platform.
  maxLen: 100_000,
};

export async function joinCluster(redisUrl: string, log: Logger, onRedisError?: () => void): Promise<ClusterNode> {
  const redis = await connectRedis(redisUrl, log, onRedisError);
  const nodeId = Bun.randomUUIDv7();
  const shared = redisSharedState(redis.client, redis.duplicate(), nodeId, log, redis.availability);
  const adapter = createAdapter(redis.client, ADAPTER_OPTIONS) as unknown as NonNullable<ServerOptions["adapter"]>;
  return {
    nodeId,
    adapter,
    shared,
    voiceHomes: redisVoiceHomes(redis.client, nodeId, log, () => shared.sweepNow()),
    voiceStates: redisVoiceStates(redis.client, nodeId),
    redis: redis.availability,
    ping: () => redis.client.ping(),
    runId: async () => /run_id:(\w+)/.exec(await redis.client.info("server"))?.[1] ?? "",
    async stop() {
      await shared.stop();
      await redis.close();
    },
  };
}
