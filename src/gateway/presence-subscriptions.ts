import type { Domain } from "../domain/domain.ts";
import { badRequest } from "../domain/shared/errors.ts";
import { rooms } from "../domain/shared/events.ts";
import { LIMITS } from "../domain/shared/limits.ts";
import type { GatewayServer, GatewaySocket } from "./socket-types.ts";

/**
 * `presence:subscribe {server_id, user_ids}` (docs/gateway.md, "Presence"). In a large server
 * (more than LARGE_SERVER_MEMBERS members) a member's `user:status` goes to the room
 * `presence:<serverId>:<userId>` instead of the server room (the presence audience in
 * src/domain/domain.ts); a socket that shows some members subscribes to theirs, which puts it in
 * those rooms. Each call replaces the socket's previous set for that server, at most
 * `LIMITS.gateway.presenceIdsPerServer` ids, and `presenceIdsPerSocket` over all servers.
 *
 * The subscription's state is the rooms themselves, so it is on the socket's node, survives a
 * resume (rooms are restored; src/gateway/resume.ts checks them) and needs nothing in cluster mode.
 * It lasts while the socket is in the server's room: leaving it (server:leave, a kick, a ban, the
 * server deleted, on whichever node) drops the server's presence rooms (installPresenceCleanup).
 */
export async function subscribePresence(domain: Domain, socket: GatewaySocket, serverId: string, userIds: readonly string[]): Promise<string[]> {
  await domain.access.member(serverId, socket.data.userId);
  if (!socket.rooms.has(rooms.server(serverId))) throw badRequest("Join the server first: server:join with its id");
  const wanted = [...new Set(userIds)];
  // Only members: their presence is the subscriber's to see (they share the server), no one else's.
  const members = await domain.members.membersAmong(serverId, wanted);
  const ids = wanted.filter((id) => members.has(id));
  const prefix = rooms.presence(serverId, "");
  const current: string[] = [];
  let elsewhere = 0;
  for (const room of socket.rooms) {
    if (room.startsWith(prefix)) current.push(room);
    else if (room.startsWith(PRESENCE_PREFIX)) elsewhere++;
  }
  const { presenceIdsPerSocket } = LIMITS.gateway;
  if (elsewhere + ids.length > presenceIdsPerSocket) {
    throw badRequest(`user_ids: a connection follows at most ${presenceIdsPerSocket} members' presence over all servers (${elsewhere} in other servers); subscribe to fewer there first`);
  }
  const next = new Set(ids.map((id) => rooms.presence(serverId, id)));
  for (const room of current) if (!next.has(room)) await socket.leave(room);
  if (next.size > 0) await socket.join([...next]);
  return ids;
}

const PRESENCE_PREFIX = "presence:";
const SERVER_PREFIX = rooms.server("");

/**
 * A socket that leaves `server:<id>` leaves its `presence:<id>:*` rooms too, on the node it is
 * on (the adapter applies every node's leaves locally). Only sockets that hold presence rooms are
 * looked at; a socket leaving its own id's room is disconnecting, and is looked at no more.
 */
export function installPresenceCleanup(io: GatewayServer): void {
  const nsp = io.of("/");
  const holding = new Set<string>();
  nsp.adapter.on("join-room", (room: string, id: string) => {
    if (room.startsWith(PRESENCE_PREFIX)) holding.add(id);
  });
  nsp.adapter.on("leave-room", (room: string, id: string) => {
    if (room === id) return void holding.delete(id);
    if (!holding.has(id) || !room.startsWith(SERVER_PREFIX)) return;
    const socket = nsp.sockets.get(id);
    if (!socket) return;
    const prefix = rooms.presence(room.slice(SERVER_PREFIX.length), "");
    for (const held of [...socket.rooms]) if (held.startsWith(prefix)) void socket.leave(held);
  });
}
