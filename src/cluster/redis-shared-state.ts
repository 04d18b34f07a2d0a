import type { Redis } from "ioredis";
import type { Logger } from "../log.ts";
import type { Activity } from "../domain/shared/shapes.ts";
import type { ConnectionCounts, SharedState, SignalTopic } from "../domain/shared/shared-state.ts";
import { redisRateLimiter } from "./redis-rate-limiter.ts";

/**
 * SharedState in Redis (cluster mode; docs/operations.md, "What the nodes share").
 *
 * Connections per user: `hearth:conn` holds the count over every node (the number presence
 * reads), and `hearth:conn:node:<id>` each node's own part of it, so that when a node dies
 * (SIGKILL, a lost machine) a surviving node takes its part back and the users it leaves with
 * no connection go offline. A node is alive while its key `hearth:node:<id>` exists: it renews
 * it every HEARTBEAT_MS and it expires NODE_TTL_MS after the last renewal.
 * Signals: one pub/sub channel; a node ignores its own.
 */
const CONN = "hearth:conn";
const ACTIVITY = "hearth:activity";
const NODES = "hearth:nodes";
const SIGNALS = "hearth:signals";
/** A node is alive while this key exists (its heartbeat renews it); its value is the node's address. */
export const nodeKey = (id: string) => `hearth:node:${id}`;
const nodeConnKey = (id: string) => `hearth:conn:node:${id}`;
export const HEARTBEAT_MS = 3000;
export const NODE_TTL_MS = 10_000;

const SCRIPTS = {
  connected: `redis.call('HINCRBY', KEYS[2], ARGV[1], 1)
return redis.call('HINCRBY', KEYS[1], ARGV[1], 1)`,
  disconnected: `local mine = redis.call('HINCRBY', KEYS[2], ARGV[1], -1)
if mine <= 0 then redis.call('HDEL', KEYS[2], ARGV[1]) end
if mine < 0 then return tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0') end
local n = redis.call('HINCRBY', KEYS[1], ARGV[1], -1)
if n <= 0 then
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[3], ARGV[1])
  return 0
end
return n`,
  // Takes a dead node's connections back; returns the users left with none.
  reclaim: `local flat = redis.call('HGETALL', KEYS[2])
local gone = {}
for i = 1, #flat, 2 do
  local n = redis.call('HINCRBY', KEYS[1], flat[i], -tonumber(flat[i + 1]))
  if n <= 0 then
    redis.call('HDEL', KEYS[1], flat[i])
    redis.call('HDEL', KEYS[3], flat[i])
    table.insert(gone, flat[i])
  end
end
redis.call('DEL', KEYS[2])
return gone`,
} as const;

type Scripted = Redis & {
  hearthConnected(total: string, mine: string, userId: string): Promise<number>;
  hearthDisconnected(total: string, mine: string, activity: string, userId: string): Promise<number>;
  hearthReclaim(total: string, dead: string, activity: string): Promise<string[]>;
};

export interface RedisSharedState extends SharedState {
  readonly nodeId: string;
  /** Whether another node is alive now (a starting node then leaves stored presence alone). */
  othersAlive(): Promise<boolean>;
  /**
   * Announces this node, reachable by the other nodes at `url` (its voice rooms are relayed
   * there), and starts the heartbeat and the sweep of dead nodes.
   */
  start(url: string): Promise<void>;
  /** Runs `handler` with the id of each dead node this node sweeps (once over the cluster). */
  onNodeLost(handler: (nodeId: string) => void): void;
  /** Stops the heartbeat and withdraws this node's connections (a clean stop). */
  stop(): Promise<void>;
}

export function redisSharedState(redis: Redis, subscriber: Redis, nodeId: string, log: Logger): RedisSharedState {
  redis.defineCommand("hearthConnected", { numberOfKeys: 2, lua: SCRIPTS.connected });
  redis.defineCommand("hearthDisconnected", { numberOfKeys: 3, lua: SCRIPTS.disconnected });
  redis.defineCommand("hearthReclaim", { numberOfKeys: 3, lua: SCRIPTS.reclaim });
  const scripted = redis as Scripted;

  const lostHandlers: ((userId: string) => void)[] = [];
  const nodeLostHandlers: ((nodeId: string) => void)[] = [];
  const signalHandlers = new Map<SignalTopic, ((data: string) => void)[]>();
  let heartbeat: ReturnType<typeof setInterval> | null = null;

  subscriber.on("message", (channel: string, raw: string) => {
    if (channel !== SIGNALS) return;
    let message: { from?: string; topic?: SignalTopic; data?: string };
    try {
      message = JSON.parse(raw);
    } catch {
      return;
    }
    if (message.from === nodeId || !message.topic) return;
    for (const handler of signalHandlers.get(message.topic) ?? []) handler(message.data ?? "");
  });

  const connections: ConnectionCounts = {
    connected: (userId) => scripted.hearthConnected(CONN, nodeConnKey(nodeId), userId),
    disconnected: async (userId) => Math.max(0, await scripted.hearthDisconnected(CONN, nodeConnKey(nodeId), ACTIVITY, userId)),
    count: async (userId) => Number((await redis.hget(CONN, userId)) ?? 0),
    async activity(userId) {
      const raw = await redis.hget(ACTIVITY, userId);
      return raw ? (JSON.parse(raw) as Activity) : null;
    },
    async setActivity(userId, activity) {
      if (activity) await redis.hset(ACTIVITY, userId, JSON.stringify(activity));
      else await redis.hdel(ACTIVITY, userId);
    },
    onLost(handler) {
      lostHandlers.push(handler);
    },
  };

  async function liveNodes(): Promise<{ alive: string[]; dead: string[] }> {
    const ids = await redis.smembers(NODES);
    const alive: string[] = [];
    const dead: string[] = [];
    for (const id of ids) ((await redis.exists(nodeKey(id))) ? alive : dead).push(id);
    return { alive, dead };
  }

  /** Takes back the connections of nodes whose heartbeat stopped (one surviving node does each). */
  async function sweep(): Promise<void> {
    const { dead } = await liveNodes();
    for (const id of dead) {
      if (id === nodeId) continue;
      const claimed = await redis.set(`hearth:sweep:${id}`, nodeId, "PX", 60_000, "NX");
      if (claimed !== "OK") continue;
      const gone = await scripted.hearthReclaim(CONN, nodeConnKey(id), ACTIVITY);
      await redis.srem(NODES, id);
      log.info("cluster node gone: its connections taken back", { node: id, usersOffline: gone.length });
      for (const userId of gone) for (const handler of lostHandlers) handler(userId);
      for (const handler of nodeLostHandlers) handler(id);
    }
  }

  return {
    nodeId,
    rateLimiter: (name, limit, windowMs, options) => redisRateLimiter(redis, name, limit, windowMs, options),
    connections,
    signal(topic, data = "") {
      redis.publish(SIGNALS, JSON.stringify({ from: nodeId, topic, data })).catch((error: Error) => log.warn("cluster signal failed", { topic, error: error.message }));
    },
    onSignal(topic, handler) {
      const list = signalHandlers.get(topic) ?? [];
      list.push(handler);
      signalHandlers.set(topic, list);
    },
    onNodeLost(handler) {
      nodeLostHandlers.push(handler);
    },
    async othersAlive() {
      return (await liveNodes()).alive.some((id) => id !== nodeId);
    },
    async start(url) {
      await subscriber.subscribe(SIGNALS);
      await redis.set(nodeKey(nodeId), url, "PX", NODE_TTL_MS);
      await redis.sadd(NODES, nodeId);
      await sweep();
      heartbeat = setInterval(() => {
        redis
          .set(nodeKey(nodeId), url, "PX", NODE_TTL_MS)
          .then(() => sweep())
          .catch((error: Error) => log.warn("cluster heartbeat failed", { error: error.message }));
      }, HEARTBEAT_MS);
    },
    async stop() {
      if (heartbeat) clearInterval(heartbeat);
      heartbeat = null;
      // A clean stop: whatever this node still counts (a disconnect not yet handled) goes with it.
      await scripted.hearthReclaim(CONN, nodeConnKey(nodeId), ACTIVITY).catch(() => []);
      await redis.multi().del(nodeKey(nodeId)).srem(NODES, nodeId).exec().catch(() => {});
    },
  };
}
