import type { Redis } from "ioredis";
import type { VoiceHomes } from "../gateway/voice-proxy.ts";
import { NODE_TTL_MS } from "./redis-shared-state.ts";

/**
 * Which node holds each voice room (docs/audio.md, "Several nodes"): `hearth:voice-home:<channelId>`
 * names the node, for as long as that node is alive and keeps renewing it (while the room has
 * participants there). The first node to claim a room with no living home gets it. A node's
 * address for the others is the value of its heartbeat key `hearth:node:<id>`.
 */
const homeKey = (channelId: string) => `hearth:voice-home:${channelId}`;

const CLAIM = `local home = redis.call('GET', KEYS[1])
if home and home ~= ARGV[1] then
  local url = redis.call('GET', ARGV[3] .. home)
  if url then return {home, url} end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return {ARGV[1], ''}`;

type Scripted = Redis & { hearthVoiceClaim(key: string, nodeId: string, ttl: number, nodePrefix: string): Promise<[string, string]> };

export function redisVoiceHomes(redis: Redis, nodeId: string): VoiceHomes {
  redis.defineCommand("hearthVoiceClaim", { numberOfKeys: 1, lua: CLAIM });
  const scripted = redis as Scripted;
  return {
    async claim(channelId) {
      const [home, url] = await scripted.hearthVoiceClaim(homeKey(channelId), nodeId, NODE_TTL_MS, "hearth:node:");
      return home === nodeId ? null : url;
    },
    async renew(channelIds) {
      for (const channelId of channelIds) await scripted.hearthVoiceClaim(homeKey(channelId), nodeId, NODE_TTL_MS, "hearth:node:");
    },
  };
}
