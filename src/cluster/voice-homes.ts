import type { Redis } from "ioredis";
import type { VoiceHomes } from "../gateway/voice-proxy.ts";
import type { CallRecords, LostCall } from "../domain/dms/dm-calls.ts";
import type { Logger } from "../log.ts";
import { NODE_TTL_MS, NODES } from "./redis-shared-state.ts";
import { refusesConnections } from "./refuses-connections.ts";

/**
 * Which node holds each voice room and DM call (docs/audio.md, "Several nodes"):
 * `hearth:home:voice:<channelId>`, `hearth:home:dm-conversation:<id>` and `hearth:home:dm-call:<id>`
 * name the node, for as long as that node is alive and keeps renewing them (while it holds them).
 * The first node to claim a room with no living home gets it. A node's address for the others is
 * the value of its heartbeat key `hearth:node:<id>`.
 *
 * `hearth:voice-user:<userId>` names the voice channel a user is in, written by the channel's home
 * when the user joins and removed when they leave. It only says where to ask: it counts while the
 * channel has a living home (an entry left by a node that died counts for nothing), and the home's
 * own rooms stay the authority.
 */
const homeKey = (key: string) => `hearth:home:${key}`;
const userKey = (userId: string) => `hearth:voice-user:${userId}`;
const NODE_PREFIX = "hearth:node:";
/** The DM calls a node holds: call id -> the JSON list of its members (docs/dm-calls.md, "Several nodes"). */
const callsKey = (nodeId: string) => `hearth:calls:node:${nodeId}`;

const TAKE_CALLS = `local calls = redis.call('HGETALL', KEYS[1])
redis.call('DEL', KEYS[1])
return calls`;

const CLAIM = `local home = redis.call('GET', KEYS[1])
if home and home ~= ARGV[1] then
  local url = redis.call('GET', ARGV[3] .. home)
  if url then return {home, url} end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return {ARGV[1], ''}`;

const FIND = `local home = redis.call('GET', KEYS[1])
if not home or home == ARGV[1] then return '' end
return redis.call('GET', ARGV[2] .. home) or ''`;

/** Deletes a user's entry only when it still names that channel (they may have joined another since). */
const USER_LEFT = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0`;

/** The user's channel and its home's address ('' when the home is this node); {} when none is alive. */
const USER_ROOM = `local channel = redis.call('GET', KEYS[1])
if not channel then return {} end
local home = redis.call('GET', ARGV[2] .. channel)
if not home then return {} end
if home == ARGV[1] then return {channel, ''} end
local url = redis.call('GET', ARGV[3] .. home)
if not url then return {} end
return {channel, url}`;

/**
 * Declares dead the node announced at ARGV[2] (its heartbeat key deleted, compare-and-delete on
 * the address, so a node that registered again since is left alone; never this node, ARGV[3]);
 * returns its id or ''.
 */
const NODE_DOWN = `for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if id ~= ARGV[3] and redis.call('GET', ARGV[1] .. id) == ARGV[2] then
    redis.call('DEL', ARGV[1] .. id)
    return id
  end
end
return ''`;

type Scripted = Redis & {
  hearthNodeDown(nodes: string, nodePrefix: string, url: string, self: string): Promise<string>;
  hearthVoiceFind(key: string, nodeId: string, nodePrefix: string): Promise<string>;
  hearthVoiceClaim(key: string, nodeId: string, ttl: number, nodePrefix: string): Promise<[string, string]>;
  hearthVoiceUserLeft(key: string, channelId: string): Promise<number>;
  hearthVoiceUserRoom(key: string, nodeId: string, homePrefix: string, nodePrefix: string): Promise<[string, string] | []>;
  hearthTakeCalls(key: string): Promise<string[]>;
};

/** Voice rooms' and DM calls' homes, and the calls this node holds (for the others if it dies). */
export type ClusterHomes = VoiceHomes &
  CallRecords & {
    /** The calls a dead node held, taken once (the surviving node that swept it ends them). */
    takeCallsOf(nodeId: string): Promise<LostCall[]>;
  };


/**
 * `sweep`: runs the sweep of dead nodes now (their connections, rooms' voice states and calls
 * released, src/cluster/redis-shared-state.ts) once a home has been found dead.
 */
export function redisVoiceHomes(redis: Redis, nodeId: string, log: Logger, sweep: () => Promise<void> = async () => {}): ClusterHomes {
  redis.defineCommand("hearthNodeDown", { numberOfKeys: 1, lua: NODE_DOWN });
  redis.defineCommand("hearthVoiceClaim", { numberOfKeys: 1, lua: CLAIM });
  redis.defineCommand("hearthVoiceFind", { numberOfKeys: 1, lua: FIND });
  redis.defineCommand("hearthVoiceUserLeft", { numberOfKeys: 1, lua: USER_LEFT });
  redis.defineCommand("hearthVoiceUserRoom", { numberOfKeys: 1, lua: USER_ROOM });
  redis.defineCommand("hearthTakeCalls", { numberOfKeys: 1, lua: TAKE_CALLS });
  const recordFailed = (error: Error) => log.warn("DM call record update failed", { error: error.message });
  const scripted = redis as Scripted;
  return {
    async claim(key) {
      const [home, url] = await scripted.hearthVoiceClaim(homeKey(key), nodeId, NODE_TTL_MS, NODE_PREFIX);
      return home === nodeId ? null : url;
    },
    async find(key) {
      return (await scripted.hearthVoiceFind(homeKey(key), nodeId, NODE_PREFIX)) || null;
    },
    async renew(keys) {
      for (const key of keys) await scripted.hearthVoiceClaim(homeKey(key), nodeId, NODE_TTL_MS, NODE_PREFIX);
    },
    async userJoined(userId, channelId) {
      await redis.set(userKey(userId), channelId);
    },
    async userLeft(userId, channelId) {
      await scripted.hearthVoiceUserLeft(userKey(userId), channelId);
    },
    async userRoom(userId) {
      const found = await scripted.hearthVoiceUserRoom(userKey(userId), nodeId, homeKey("voice:"), NODE_PREFIX);
      if (found.length !== 2) return null;
      return { channelId: found[0], url: found[1] || null };
    },
    async homeUnreachable(url) {
      if (!(await refusesConnections(url))) return false;
      const dead = await scripted.hearthNodeDown(NODES, NODE_PREFIX, url, nodeId);
      // '' : no living node announces that address any more (another node declared it dead first).
      if (!dead) return true;
      log.warn("cluster node refuses connections: declared dead before its heartbeat ran out", { node: dead, url });
      // Its rooms are claimable already (its key is gone); what it held is released meanwhile.
      sweep().catch((error: Error) => log.warn("sweep after a lost home failed", { error: error.message }));
      return true;
    },
    callHeld(callId, memberIds) {
      redis.hset(callsKey(nodeId), callId, JSON.stringify(memberIds)).catch(recordFailed);
    },
    callReleased(callId) {
      redis.hdel(callsKey(nodeId), callId).catch(recordFailed);
    },
    async takeCallsOf(deadNodeId) {
      const flat = await scripted.hearthTakeCalls(callsKey(deadNodeId));
      const calls: LostCall[] = [];
      for (let i = 0; i + 1 < flat.length; i += 2) calls.push({ callId: flat[i]!, memberIds: JSON.parse(flat[i + 1]!) as string[] });
      return calls;
    },
  };
}
