import type { Redis } from "ioredis";
import type { Logger } from "../log.ts";
import type { Availability } from "../store/availability.ts";
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
 *
 * Redis outages (docs/operations.md, "Failure modes"): each node also counts its own connections
 * in memory, the truth of its share. A count that could not reach Redis (or any connect and
 * disconnect while it is out) is answered from that memory, and once Redis answers again the
 * node publishes its whole share at once (`republish`: the totals move by the difference from
 * what Redis holds for it, so with or without Redis persistence they come out right) and asks
 * presence to look again at every user whose count changed meanwhile. The heartbeat re-registers
 * the node whenever its key was gone (Redis restarted, or the node was swept while cut off), and
 * a node that has just seen Redis come back sweeps no peer for `NODE_TTL_MS`, so peers whose keys
 * expired during the outage have time to renew them instead of being declared dead.
 */
const CONN = "hearth:conn";
const ACTIVITY = "hearth:activity";
/** The set of announced nodes' ids. */
export const NODES = "hearth:nodes";
const SIGNALS = "hearth:signals";
/** A node is alive while this key exists (its heartbeat renews it); its value is the node's address. */
export const nodeKey = (id: string) => `hearth:node:${id}`;
const nodeConnKey = (id: string) => `hearth:conn:node:${id}`;
export const HEARTBEAT_MS = 3000;
/**
 * The signals a node assumes it missed when Redis comes back (their data is only a hint: the
 * handler reloads). A lost `live-state` change cannot be rebuilt: voice needs Redis anyway.
 */
const RESENT_AFTER_OUTAGE: SignalTopic[] = ["permissions", "settings", "deletions", "custom-status"];
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
  // This node's whole share, published again: ARGV is user, count, user, count... Each total
  // moves by the difference from the share Redis holds (nothing after a restart without
  // persistence); returns the users whose total went to or from zero.
  republish: `local old = {}
local flat = redis.call('HGETALL', KEYS[2])
for i = 1, #flat, 2 do old[flat[i]] = tonumber(flat[i + 1]) end
redis.call('DEL', KEYS[2])
local changed = {}
local function move(user, delta)
  if delta == 0 then return end
  local before = tonumber(redis.call('HGET', KEYS[1], user) or '0')
  local after = redis.call('HINCRBY', KEYS[1], user, delta)
  if after <= 0 then
    redis.call('HDEL', KEYS[1], user)
    redis.call('HDEL', KEYS[3], user)
  end
  if (before > 0) ~= (after > 0) then table.insert(changed, user) end
end
for i = 1, #ARGV, 2 do
  local user, count = ARGV[i], tonumber(ARGV[i + 1])
  redis.call('HSET', KEYS[2], user, count)
  move(user, count - (old[user] or 0))
  old[user] = nil
end
for user, count in pairs(old) do move(user, -count) end
return changed`,
} as const;

type Scripted = Redis & {
  hearthConnected(total: string, mine: string, userId: string): Promise<number>;
  hearthDisconnected(total: string, mine: string, activity: string, userId: string): Promise<number>;
  hearthReclaim(total: string, dead: string, activity: string): Promise<string[]>;
  hearthRepublish(total: string, mine: string, activity: string, ...counts: (string | number)[]): Promise<string[]>;
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
  /** Sweeps dead nodes now, not at the next heartbeat (a voice home found dead: src/cluster/voice-homes.ts). */
  sweepNow(): Promise<void>;
  /** Stops the heartbeat and withdraws this node's connections (a clean stop). */
  stop(): Promise<void>;
}

export function redisSharedState(redis: Redis, subscriber: Redis, nodeId: string, log: Logger, availability: Availability): RedisSharedState {
  redis.defineCommand("hearthConnected", { numberOfKeys: 2, lua: SCRIPTS.connected });
  redis.defineCommand("hearthDisconnected", { numberOfKeys: 3, lua: SCRIPTS.disconnected });
  redis.defineCommand("hearthReclaim", { numberOfKeys: 3, lua: SCRIPTS.reclaim });
  redis.defineCommand("hearthRepublish", { numberOfKeys: 3, lua: SCRIPTS.republish });
  const scripted = redis as Scripted;

  const recountHandlers: ((userId: string) => void)[] = [];
  /** This node's connections per user: its share, whatever Redis holds. */
  const local = new Map<string, number>();
  /** Users whose connect or disconnect here did not reach Redis; their count is published again. */
  const unpublished = new Set<string>();
  /** Activities set while Redis was out (null: cleared), written once it is back. */
  const unwrittenActivities = new Map<string, Activity | null>();
  let republishing: Promise<void> | null = null;
  /** No peer is swept before this (ms since the epoch): see above. */
  let sweepFrom = 0;
  let announcedUrl: string | null = null;
  const countLocally = (userId: string, by: number) => {
    const count = Math.max(0, (local.get(userId) ?? 0) + by);
    if (count > 0) local.set(userId, count);
    else local.delete(userId);
    return count;
  };
  /** A command that could not reach Redis: the outage is noted, the caller falls back. */
  const unreachable = (error: Error) => {
    availability.failed();
    log.debug("redis command failed", { error: error.message });
  };
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

  /**
   * A connect or disconnect: counted here, then in Redis unless this node's share is to be
   * published again anyway (it covers this one too); answered from here when Redis is out.
   */
  async function counted(userId: string, by: 1 | -1): Promise<number> {
    const mine = countLocally(userId, by);
    if (unpublished.size === 0 && !republishing) {
      try {
        const total = by > 0 ? await scripted.hearthConnected(CONN, nodeConnKey(nodeId), userId) : await scripted.hearthDisconnected(CONN, nodeConnKey(nodeId), ACTIVITY, userId);
        return Math.max(0, total);
      } catch (error) {
        unreachable(error as Error);
      }
    }
    unpublished.add(userId);
    return mine;
  }

  const connections: ConnectionCounts = {
    connected: (userId) => counted(userId, 1),
    disconnected: (userId) => counted(userId, -1),
    async count(userId) {
      try {
        return Number((await redis.hget(CONN, userId)) ?? 0);
      } catch (error) {
        unreachable(error as Error);
        return local.get(userId) ?? 0;
      }
    },
    async activity(userId) {
      if (unwrittenActivities.has(userId)) return unwrittenActivities.get(userId) ?? null;
      try {
        const raw = await redis.hget(ACTIVITY, userId);
        return raw ? (JSON.parse(raw) as Activity) : null;
      } catch (error) {
        unreachable(error as Error);
        return null;
      }
    },
    async setActivity(userId, activity) {
      try {
        if (activity) await redis.hset(ACTIVITY, userId, JSON.stringify(activity));
        else await redis.hdel(ACTIVITY, userId);
        unwrittenActivities.delete(userId);
      } catch (error) {
        unreachable(error as Error);
        unwrittenActivities.set(userId, activity);
      }
    },
    onRecount(handler) {
      recountHandlers.push(handler);
    },
  };
  const recounted = (userIds: Iterable<string>) => {
    for (const userId of userIds) for (const handler of recountHandlers) handler(userId);
  };

  /**
   * Publishes this node's whole share again and the activities set meanwhile, then has presence
   * look again at the users whose count changed (theirs here, or their total in Redis). One at a
   * time; a failure leaves it to the next heartbeat.
   */
  function republish(): Promise<void> {
    republishing ??= (async () => {
      const touched = [...unpublished];
      unpublished.clear();
      try {
        const flat: (string | number)[] = [];
        for (const [userId, count] of local) flat.push(userId, count);
        const changed = await scripted.hearthRepublish(CONN, nodeConnKey(nodeId), ACTIVITY, ...flat);
        for (const [userId, activity] of [...unwrittenActivities]) {
          // Only for users still connected: a cleared count dropped the activity already.
          if (activity && (await redis.hexists(CONN, userId))) await redis.hset(ACTIVITY, userId, JSON.stringify(activity));
          else if (!activity) await redis.hdel(ACTIVITY, userId);
          unwrittenActivities.delete(userId);
        }
        log.info("cluster connection counts published again", { users: local.size, changed: changed.length });
        recounted(new Set([...touched, ...changed]));
      } catch (error) {
        for (const userId of touched) unpublished.add(userId);
        unreachable(error as Error);
      } finally {
        republishing = null;
      }
    })();
    return republishing;
  }

  /** Announces the node (again): its heartbeat key, and its place in the set of nodes. */
  async function register(url: string): Promise<void> {
    const previous = await redis.set(nodeKey(nodeId), url, "PX", NODE_TTL_MS, "GET");
    if (previous !== null) return;
    await redis.sadd(NODES, nodeId);
    // The key was gone: Redis restarted, or a peer swept this node while it was cut off.
    if (announcedUrl !== null) {
      log.warn("cluster node registered again (its key was gone)", { node: nodeId });
      await republish();
    }
    announcedUrl = url;
  }

  availability.onChange((available) => {
    if (!available) return;
    sweepFrom = Date.now() + NODE_TTL_MS;
    // Signals sent meanwhile were lost: each cache they keep fresh is dropped as if told.
    for (const topic of RESENT_AFTER_OUTAGE) for (const handler of signalHandlers.get(topic) ?? []) handler("");
    if (announcedUrl !== null) register(announcedUrl).then(() => republish()).catch(unreachable);
  });

  async function liveNodes(): Promise<{ alive: string[]; dead: string[] }> {
    const ids = await redis.smembers(NODES);
    const alive: string[] = [];
    const dead: string[] = [];
    for (const id of ids) ((await redis.exists(nodeKey(id))) ? alive : dead).push(id);
    return { alive, dead };
  }

  /** Takes back the connections of nodes whose heartbeat stopped (one surviving node does each). */
  async function sweep(): Promise<void> {
    if (Date.now() < sweepFrom) return;
    const { dead } = await liveNodes();
    for (const id of dead) {
      if (id === nodeId) continue;
      const claimed = await redis.set(`hearth:sweep:${id}`, nodeId, "PX", 60_000, "NX");
      if (claimed !== "OK") continue;
      const gone = await scripted.hearthReclaim(CONN, nodeConnKey(id), ACTIVITY);
      await redis.srem(NODES, id);
      log.info("cluster node gone: its connections taken back", { node: id, usersOffline: gone.length });
      recounted(gone);
      for (const handler of nodeLostHandlers) handler(id);
    }
  }

  return {
    nodeId,
    rateLimiter: (name, limit, windowMs, options) => redisRateLimiter(redis, name, limit, windowMs, options),
    connections,
    signal(topic, data = "") {
      redis.publish(SIGNALS, JSON.stringify({ from: nodeId, topic, data })).catch((error: Error) => {
        // Warned when Redis was up; during an outage (already warned once) every connect signals.
        const news = availability.downSince === null;
        unreachable(error);
        if (news) log.warn("cluster signal failed", { topic, error: error.message });
      });
    },
    onSignal(topic, handler) {
      const list = signalHandlers.get(topic) ?? [];
      list.push(handler);
      signalHandlers.set(topic, list);
    },
    onNodeLost(handler) {
      nodeLostHandlers.push(handler);
    },
    sweepNow: () => sweep(),
    async othersAlive() {
      return (await liveNodes()).alive.some((id) => id !== nodeId);
    },
    async start(url) {
      await subscriber.subscribe(SIGNALS);
      await register(url);
      await sweep();
      heartbeat = setInterval(() => {
        register(url)
          .then(() => {
            availability.answered();
            return unpublished.size > 0 ? republish() : undefined;
          })
          .then(() => sweep())
          .catch(unreachable);
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
