import type { Redis } from "ioredis";
import type { VoiceChannelState } from "../domain/shared/shapes.ts";
import type { VoiceStates } from "../domain/voice/voice-states.ts";
import { nodeKey } from "./redis-shared-state.ts";

/**
 * VoiceStates in Redis (cluster mode; docs/voice.md, "Who is in each voice channel"):
 * `hearth:voice-states:<serverId>` is a hash, channel id -> `{node, state}` as JSON, written by
 * the room's home. A node that dies leaves its entries behind; they count for nothing once its
 * heartbeat key is gone, and the next home of the room writes over them.
 */
const statesKey = (serverId: string) => `hearth:voice-states:${serverId}`;

/** Deletes the room's entry only when this node wrote it (another node may hold the room since). */
const REMOVE = `local raw = redis.call('HGET', KEYS[1], ARGV[1])
if raw and cjson.decode(raw).node == ARGV[2] then redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0`;

/** Deletes, from one server's hash, the entries the node ARGV[1] wrote; answers their channel ids. */
const TAKE_NODE = `local taken = {}
local flat = redis.call('HGETALL', KEYS[1])
for i = 1, #flat, 2 do
  local ok, entry = pcall(cjson.decode, flat[i + 1])
  if ok and type(entry) == 'table' and entry.node == ARGV[1] then
    redis.call('HDEL', KEYS[1], flat[i])
    table.insert(taken, flat[i])
  end
end
return taken`;

interface Entry {
  node: string;
  state: VoiceChannelState;
}

type Scripted = Redis & {
  hearthVoiceStateRemove(key: string, channelId: string, nodeId: string): Promise<number>;
  hearthVoiceStatesTakeNode(key: string, nodeId: string): Promise<string[]>;
};

export function redisVoiceStates(redis: Redis, nodeId: string): VoiceStates {
  redis.defineCommand("hearthVoiceStateRemove", { numberOfKeys: 1, lua: REMOVE });
  redis.defineCommand("hearthVoiceStatesTakeNode", { numberOfKeys: 1, lua: TAKE_NODE });
  const scripted = redis as Scripted;
  return {
    async put(serverId, state) {
      await redis.hset(statesKey(serverId), state.channel_id, JSON.stringify({ node: nodeId, state } satisfies Entry));
    },
    async remove(serverId, channelId) {
      await scripted.hearthVoiceStateRemove(statesKey(serverId), channelId, nodeId);
    },
    async ofServer(serverId) {
      const entries: Entry[] = [];
      for (const raw of Object.values(await redis.hgetall(statesKey(serverId)))) {
        try {
          entries.push(JSON.parse(raw) as Entry);
        } catch {
          // Not written by Hearth: nothing to show for it.
        }
      }
      const nodes = [...new Set(entries.map((entry) => entry.node))];
      const addresses = nodes.length ? await redis.mget(nodes.map(nodeKey)) : [];
      const alive = new Set(nodes.filter((_, i) => addresses[i] !== null));
      return entries.filter((entry) => alive.has(entry.node)).map((entry) => entry.state);
    },
    async takeRoomsOf(deadNodeId) {
      const rooms: { serverId: string; channelId: string }[] = [];
      const prefix = statesKey("");
      let cursor = "0";
      do {
        const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 200);
        cursor = next;
        for (const key of keys) {
          for (const channelId of await scripted.hearthVoiceStatesTakeNode(key, deadNodeId)) rooms.push({ serverId: key.slice(prefix.length), channelId });
        }
      } while (cursor !== "0");
      return rooms;
    },
  };
}
