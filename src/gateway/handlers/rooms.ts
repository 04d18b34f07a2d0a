import type { Domain } from "../../domain/domain.ts";
import { rooms } from "../../domain/shared/events.ts";
import { parseInput } from "../../domain/shared/validation.ts";
import type { ClientEventTable } from "../ack.ts";
import { ChannelId, ServerId } from "../client-events.ts";

/**
 * Scoped event rooms: `server:join` needs membership, `channel:join` needs VIEW_CHANNEL
 * (CONTRACT.md); leaving always succeeds. Losing access later removes the socket from the
 * room at once (Members.remove, Members.syncChannelRooms).
 */
export function roomEvents(domain: Domain): ClientEventTable {
  return {
    "server:join": async (socket, payload) => {
      const serverId = parseInput(ServerId, payload, "serverId");
      await domain.access.member(serverId, socket.data.userId);
      await socket.join(rooms.server(serverId));
      return { serverId };
    },
    "server:leave": async (socket, payload) => {
      const serverId = parseInput(ServerId, payload, "serverId");
      await socket.leave(rooms.server(serverId));
      return { serverId };
    },
    "channel:join": async (socket, payload) => {
      const channelId = parseInput(ChannelId, payload, "channelId");
      await domain.access.requireChannel(channelId, socket.data.userId);
      await socket.join(rooms.channel(channelId));
      return { channelId };
    },
    "channel:leave": async (socket, payload) => {
      const channelId = parseInput(ChannelId, payload, "channelId");
      await socket.leave(rooms.channel(channelId));
      return { channelId };
    },
  };
}
