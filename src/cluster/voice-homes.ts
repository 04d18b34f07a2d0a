import type { Redis } from "ioredis";
import type { VoiceHomes } from "../gateway/voice-proxy.ts";
import { NODE_TTL_MS } from "./redis-shared-state.ts";

/**
 * Which node holds each voice room and DM call (docs/audio.md, "Several nodes"):
 * `hearth:home:voice:<channelId>`, `hearth:home:dm-conversation:<id>` and `hearth:home:dm-call:<id>`
 * name the node, for as long as that node is alive and keeps renewing them (while it holds them). The first node to claim a room with no living home gets it. A node's
 * address for the others is the value of its heartbeat key `hearth:node:<id>`.
 */
const homeKey = (key: string) => `hearth:home:${key}`;

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

type Scripted = Redis & {
  hearthVoiceFind(key: string, nodeId: string, nodePrefix: string): Promise<string>;
  hearthVoiceClaim(key: string, nodeId: string, ttl: number, nodePrefix: string): Promise<[string, string]>;
};

export function redisVoiceHomes(redis: Redis, nodeId: string): VoiceHomes {
  redis.defineCommand("hearthVoiceClaim", { numberOfKeys: 1, lua: CLAIM });
  redis.defineCommand("hearthVoiceFind", { numberOfKeys: 1, lua: FIND });
  const scripted = redis as Scripted;
  return {
    async claim(key) {
      const [home, url] = await scripted.hearthVoiceClaim(homeKey(key), nodeId, NODE_TTL_MS, "hearth:node:");
      return home === nodeId ? null : url;
    },
    async find(key) {
      return (await scripted.hearthVoiceFind(homeKey(key), nodeId, "hearth:node:")) || null;
    },
    async renew(keys) {
      for (const key of keys) await scripted.hearthVoiceClaim(homeKey(key), nodeId, NODE_TTL_MS, "hearth:node:");
    },
  };
}
