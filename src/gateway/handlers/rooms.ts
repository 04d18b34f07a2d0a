import type { Domain } from "../../domain/domain.ts";
import { ApiError } from "../../domain/shared/errors.ts";
import { rooms } from "../../domain/shared/events.ts";
import { parseInput } from "../../domain/shared/validation.ts";
import type { ClientEventTable } from "../ack.ts";
import { AllChannels, AllServers, ChannelId, ServerId } from "../client-events.ts";
import type { GatewaySocket } from "../socket-types.ts";

/**
 * Scoped event rooms: `server:join` needs membership, `channel:join` needs VIEW_CHANNEL
 * (CONTRACT.md); leaving always succeeds. Losing access later removes the socket from the
 * room at once (Members.remove, Members.syncChannelRooms).
 *
 * Each also has a bulk form, one room event however many rooms it joins (docs/gateway.md, "Bulk
 * subscriptions"): `server:join {servers: "all", channels?: "all"}` and `channel:join {server_id,
 * channels: "all"}`. A bulk join also *follows*: the socket joins a marker room
 * (`rooms.followServers` and the others) before it reads what to join, and the domain puts the
 * markers' sockets into the servers and channels added later (Members.followNewMembership,
 * followNewChannel, syncChannelRooms). The same payload to `server:leave` / `channel:leave` undoes it.
 */
export function roomEvents(domain: Domain): ClientEventTable {
  return {
    "server:join": async (socket, payload) => {
      if (isBulk(payload, "servers")) return joinEveryServer(domain, socket, parseInput(AllServers, payload, "payload").channels === "all");
      const serverId = parseInput(ServerId, payload, "serverId");
      await domain.access.member(serverId, socket.data.userId);
      await socket.join(rooms.server(serverId));
      return { serverId };
    },
    "server:leave": async (socket, payload) => {
      if (isBulk(payload, "servers")) return leaveEveryServer(domain, socket, parseInput(AllServers, payload, "payload").channels === "all");
      const serverId = parseInput(ServerId, payload, "serverId");
      await socket.leave(rooms.server(serverId));
      return { serverId };
    },
    "channel:join": async (socket, payload) => {
      if (isBulk(payload, "channels")) {
        const { server_id } = parseInput(AllChannels, payload, "payload");
        await domain.access.member(server_id, socket.data.userId);
        return { server_id, channels: await joinEveryChannel(domain, socket, server_id) };
      }
      const channelId = parseInput(ChannelId, payload, "channelId");
      await domain.access.requireChannel(channelId, socket.data.userId);
      await socket.join(rooms.channel(channelId));
      return { channelId };
    },
    "channel:leave": async (socket, payload) => {
      if (isBulk(payload, "channels")) {
        const { server_id } = parseInput(AllChannels, payload, "payload");
        return { server_id, channels: await leaveEveryChannel(domain, socket, server_id) };
      }
      const channelId = parseInput(ChannelId, payload, "channelId");
      await socket.leave(rooms.channel(channelId));
      return { channelId };
    },
  };
}

/** An object naming `key`: the bulk form (anything else is parsed as the spec's bare id, whose error names the id). */
const isBulk = (payload: unknown, key: string): boolean =>
  typeof payload === "object" && payload !== null && !Array.isArray(payload) && key in payload;

/** `server:join {servers: "all", channels?}`: every server room of the account, and with `channels` every channel it may view in each. */
async function joinEveryServer(domain: Domain, socket: GatewaySocket, withChannels: boolean): Promise<{ servers: string[]; channels?: string[] }> {
  const { userId } = socket.data;
  // The markers first: a server or channel added while the lists are read is then joined by its addition.
  await socket.join(withChannels ? [rooms.followServers(userId), rooms.followChannels(userId)] : rooms.followServers(userId));
  const servers = await domain.members.serverIdsOf(userId);
  await socket.join(servers.map(rooms.server));
  if (!withChannels) return { servers };
  const channels: string[] = [];
  for (const serverId of servers) channels.push(...(await joinEveryChannel(domain, socket, serverId)));
  return { servers, channels };
}

/**
 * Follows every channel of the server and joins those the user may view (channel:join's rule,
 * Members.viewableChannelIds); the ids joined. A server left meanwhile joins nothing (its removal
 * takes the marker back).
 */
async function joinEveryChannel(domain: Domain, socket: GatewaySocket, serverId: string): Promise<string[]> {
  await socket.join(rooms.followServerChannels(serverId));
  let channelIds: string[];
  try {
    channelIds = await domain.members.viewableChannelIds(serverId, socket.data.userId);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    await socket.leave(rooms.followServerChannels(serverId));
    return [];
  }
  await socket.join(channelIds.map(rooms.channel));
  return channelIds;
}

/** `server:leave {servers: "all", channels?}`: follows nothing more, leaves every server room of the account (and, with `channels`, their channel rooms). */
async function leaveEveryServer(domain: Domain, socket: GatewaySocket, withChannels: boolean): Promise<{ servers: string[]; channels?: string[] }> {
  const { userId } = socket.data;
  await socket.leave(rooms.followServers(userId));
  await socket.leave(rooms.followChannels(userId));
  const servers = await domain.members.serverIdsOf(userId);
  for (const serverId of servers) await socket.leave(rooms.server(serverId));
  if (!withChannels) return { servers };
  const channels: string[] = [];
  for (const serverId of servers) channels.push(...(await leaveEveryChannel(domain, socket, serverId)));
  return { servers, channels };
}

/** `channel:leave {server_id, channels: "all"}`: follows the server's channels no more and leaves every one of its channel rooms; the ids left. */
async function leaveEveryChannel(domain: Domain, socket: GatewaySocket, serverId: string): Promise<string[]> {
  await socket.leave(rooms.followServerChannels(serverId));
  const left: string[] = [];
  for (const channelId of await domain.members.channelIdsIn(serverId)) {
    const room = rooms.channel(channelId);
    if (!socket.rooms.has(room)) continue;
    await socket.leave(room);
    left.push(channelId);
  }
  return left;
}

/**
 * A resumed socket got back its rooms, markers included, but servers and channels added while it
 * was away did not reach it (it was in no room then): it joins them now, as the markers say.
 */
export async function followAgain(domain: Domain, socket: GatewaySocket): Promise<void> {
  const { userId } = socket.data;
  const prefix = rooms.followServerChannels("");
  const followed = [...socket.rooms].filter((room) => room.startsWith(prefix)).map((room) => room.slice(prefix.length));
  const done = new Set<string>();
  if (socket.rooms.has(rooms.followServers(userId))) {
    const withChannels = socket.rooms.has(rooms.followChannels(userId));
    const { servers } = await joinEveryServer(domain, socket, withChannels);
    if (withChannels) for (const serverId of servers) done.add(serverId);
  }
  for (const serverId of followed) if (!done.has(serverId)) await joinEveryChannel(domain, socket, serverId);
}
