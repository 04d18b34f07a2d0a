import * as v from "valibot";
import type { Domain } from "../../domain/domain.ts";
import { rooms } from "../../domain/events.ts";
import { parseInput } from "../../domain/validation.ts";
import type { Logger } from "../../log.ts";
import { onClientEvent } from "../ack.ts";
import type { GatewaySocket } from "../gateway.ts";

const Id = (what: string) => v.pipe(v.string(`must be a ${what} id`), v.uuid(`must be a ${what} id`));
const ServerId = Id("server");
const ChannelId = Id("channel");

/**
 * Scoped event rooms: `server:join` needs membership, `channel:join` needs VIEW_CHANNEL
 * (CONTRACT.md); leaving always succeeds. Losing access later removes the socket from the
 * room at once (Members.remove, Members.syncChannelRooms).
 */
export function registerRoomEvents(socket: GatewaySocket, domain: Domain, log: Logger): void {
  const { userId } = socket.data;

  onClientEvent(socket, "server:join", log, async (payload) => {
    const serverId = parseInput(ServerId, payload, "serverId");
    await domain.access.member(serverId, userId);
    await socket.join(rooms.server(serverId));
    return { serverId };
  });

  onClientEvent(socket, "server:leave", log, async (payload) => {
    const serverId = parseInput(ServerId, payload, "serverId");
    await socket.leave(rooms.server(serverId));
    return { serverId };
  });

  onClientEvent(socket, "channel:join", log, async (payload) => {
    const channelId = parseInput(ChannelId, payload, "channelId");
    await domain.access.requireChannel(channelId, userId);
    await socket.join(rooms.channel(channelId));
    return { channelId };
  });

  onClientEvent(socket, "channel:leave", log, async (payload) => {
    const channelId = parseInput(ChannelId, payload, "channelId");
    await socket.leave(rooms.channel(channelId));
    return { channelId };
  });
}
