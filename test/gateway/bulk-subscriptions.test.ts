import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DEFAULT_EVENT_LIMITS } from "../../src/gateway/event-limits.ts";
import { DEFAULT_EVERYONE_PERMISSIONS } from "../../src/domain/access/permission-bits.ts";
import { addMember, community, createServer } from "../helpers/community.ts";
import { connectResumable, drop, reconnect } from "../helpers/resume.ts";
import { recordEvents, startServer, waitForEvent, type ClientSocket, type TestServer, type TestUser } from "../helpers/server.ts";
import { quietWindow, until } from "../helpers/wait.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const VIEW_CHANNEL = 2048;
const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";

/** The ids of the sockets in `room` on the server. */
const inRoom = async (room: string) => (await server.app.io.in(room).fetchSockets()).map((socket) => socket.id);
const serverSide = (socket: ClientSocket) => server.app.io.of("/").sockets.get(socket.id!)!;

async function createChannel(owner: TestUser, serverId: string, name: string, fields: Record<string, unknown> = {}): Promise<string> {
  const res = await server.api("POST", `/api/v1/channels/${serverId}`, { token: owner.token, body: { name, type: "text", ...fields } });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function hide(owner: TestUser, channelId: string, roleId: string) {
  const res = await server.api("PUT", `/api/v1/channels/${channelId}/permissions/${roleId}`, { token: owner.token, body: { allow: 0, deny: VIEW_CHANNEL } });
  expect(res.status).toBe(200);
}

async function post(user: TestUser, channelId: string, content: string): Promise<string> {
  const res = await server.api("POST", `/api/v1/messages/${channelId}`, { token: user.token, body: { content } });
  expect(res.status).toBe(201);
  return res.body.id;
}

/** A second server of `owner` with `member` in it, its `general` channel. */
async function secondServer(owner: TestUser, member: TestUser) {
  const serverId = await createServer(server, owner, "Second");
  await addMember(server, serverId, member);
  const [general] = await server.app.store.channels.listByServer(serverId);
  return { serverId, channelId: general!.id };
}

describe("server:join {servers: \"all\"}", () => {
  test("joins every server of the account in one event and acks their ids; the string form is unchanged", async () => {
    const { owner, member, serverId } = await community(server);
    const second = await secondServer(owner, member);
    const socket = await server.connect(member.token);
    const ack = await socket.emitWithAck("server:join", { servers: "all" });
    expect(ack.ok).toBe(true);
    expect(Object.keys(ack).sort()).toEqual(["ok", "servers"]);
    expect([...ack.servers].sort()).toEqual([serverId, second.serverId].sort());
    for (const id of [serverId, second.serverId]) expect(await inRoom(`server:${id}`)).toEqual([socket.id!]);
    // Server events of both arrive.
    const joined = recordEvents(socket, "member:joined");
    const newcomer = await server.register();
    for (const id of [serverId, second.serverId]) await server.app.domain.members.join(id, (await server.app.store.users.findById(newcomer.id))!);
    await until(() => joined.length === 2, "member:joined in both servers");
    expect(await socket.emitWithAck("server:join", serverId)).toEqual({ ok: true, serverId });
    socket.close();
  });

  test("with channels: every channel it may view in every server, then message:new in each; hidden channels are not joined", async () => {
    const { owner, member, serverId, channelId, everyone } = await community(server);
    const second = await secondServer(owner, member);
    const hidden = await createChannel(owner, serverId, "staff");
    await hide(owner, hidden, everyone);
    const socket = await server.connect(member.token);
    const ack = await socket.emitWithAck("server:join", { servers: "all", channels: "all" });
    expect(ack.ok).toBe(true);
    expect([...ack.servers].sort()).toEqual([serverId, second.serverId].sort());
    expect([...ack.channels].sort()).toEqual([channelId, second.channelId].sort());
    expect(await inRoom(`channel:${hidden}`)).toEqual([]);

    const seen = recordEvents<{ channel_id: string; content: string }>(socket, "message:new");
    await post(owner, channelId, "one");
    await post(owner, second.channelId, "two");
    await post(owner, hidden, "secret");
    await until(() => seen.length >= 2, "a message in each channel");
    await quietWindow();
    expect(seen.map((m) => m.content).sort()).toEqual(["one", "two"]);
    socket.close();
  });

  test("follows: a server joined or created later is joined, with its channels when asked", async () => {
    const { owner, member } = await community(server);
    const servers = await server.connect(member.token);
    const everything = await server.connect(member.token);
    expect((await servers.emitWithAck("server:join", { servers: "all" })).ok).toBe(true);
    expect((await everything.emitWithAck("server:join", { servers: "all", channels: "all" })).ok).toBe(true);
    const plain = await server.connect(member.token);

    // Joined by invite, through the REST route.
    const other = await createServer(server, owner, "Later");
    const invite = await server.api("POST", `/api/v1/servers/${other}/invites`, { token: owner.token, body: {} });
    expect(invite.status).toBe(201);
    const newsOnEverything = waitForEvent(everything, "member:joined", { filter: (p) => p.serverId === other });
    expect((await server.api("POST", `/api/v1/servers/join/${invite.body.code}`, { token: member.token })).status).toBe(200);
    // The socket is in the room before member:joined is sent: it hears its own join.
    expect(await newsOnEverything).toMatchObject({ serverId: other, userId: member.id });
    const [general] = await server.app.store.channels.listByServer(other);
    expect((await inRoom(`server:${other}`)).sort()).toEqual([servers.id!, everything.id!].sort());
    expect(await inRoom(`channel:${general!.id}`)).toEqual([everything.id!]);
    const message = waitForEvent(everything, "message:new");
    await post(owner, general!.id, "welcome");
    expect((await message).content).toBe("welcome");

    // Created by the member themselves.
    const created = await createServer(server, member, "Mine");
    const [mine] = await server.app.store.channels.listByServer(created);
    expect((await inRoom(`server:${created}`)).sort()).toEqual([servers.id!, everything.id!].sort());
    expect(await inRoom(`channel:${mine!.id}`)).toEqual([everything.id!]);
    expect(serverSide(plain).rooms.has(`server:${created}`)).toBe(false);
    for (const s of [servers, everything, plain]) s.close();
  });

  test("bad payloads answer a clear error; server:leave with the same payload undoes it", async () => {
    const { owner, member, serverId, channelId } = await community(server);
    const socket = await server.connect(member.token);
    expect(await socket.emitWithAck("server:join", { servers: "some" })).toEqual({ ok: false, error: 'servers: must be "all"' });
    expect(await socket.emitWithAck("server:join", { servers: "all", channels: "most" })).toEqual({ ok: false, error: 'channels: must be "all"' });
    expect(await socket.emitWithAck("server:join", { id: serverId })).toEqual({ ok: false, error: "serverId: must be a server id" });
    expect(await socket.emitWithAck("server:join", ["all"])).toEqual({ ok: false, error: "serverId: must be a server id" });

    expect((await socket.emitWithAck("server:join", { servers: "all", channels: "all" })).ok).toBe(true);
    const left = await socket.emitWithAck("server:leave", { servers: "all", channels: "all" });
    expect(left).toEqual({ ok: true, servers: [serverId], channels: [channelId] });
    expect(serverSide(socket).rooms.has(`server:${serverId}`)).toBe(false);
    expect(serverSide(socket).rooms.has(`channel:${channelId}`)).toBe(false);
    // Nothing is followed any more.
    const later = await createChannel(owner, serverId, "later");
    await createServer(server, member, "After");
    await quietWindow();
    expect([...serverSide(socket).rooms].filter((room) => room !== socket.id && room !== `user:${member.id}`)).toEqual([]);
    expect(await inRoom(`channel:${later}`)).toEqual([]);
    socket.close();
  });
});

describe("channel:join {server_id, channels: \"all\"}", () => {
  test("joins every channel of the server it may view, acks their ids, and needs membership", async () => {
    const { owner, member, outsider, serverId, channelId, everyone } = await community(server);
    const other = await createChannel(owner, serverId, "other");
    const hidden = await createChannel(owner, serverId, "hidden");
    await hide(owner, hidden, everyone);
    const socket = await server.connect(member.token);
    const ack = await socket.emitWithAck("channel:join", { server_id: serverId, channels: "all" });
    expect(ack).toEqual({ ok: true, server_id: serverId, channels: [channelId, other] });
    const seen = recordEvents<{ content: string }>(socket, "message:new");
    await post(owner, channelId, "a");
    await post(owner, other, "b");
    await until(() => seen.length === 2, "both messages");

    // The owner sees every channel.
    const ownerSocket = await server.connect(owner.token);
    expect((await ownerSocket.emitWithAck("channel:join", { server_id: serverId, channels: "all" })).channels).toEqual([channelId, other, hidden]);

    const stranger = await server.connect(outsider.token);
    expect(await stranger.emitWithAck("channel:join", { server_id: serverId, channels: "all" })).toEqual({ ok: false, error: "You are not a member of this server" });
    expect(await stranger.emitWithAck("channel:join", { server_id: UNKNOWN, channels: "all" })).toEqual({ ok: false, error: "Server not found" });
    expect(await stranger.emitWithAck("channel:join", { server_id: "x", channels: "all" })).toEqual({ ok: false, error: "server_id: must be a server id" });
    expect(await stranger.emitWithAck("channel:join", { server_id: serverId, channels: "some" })).toEqual({ ok: false, error: 'channels: must be "all"' });
    expect(await stranger.emitWithAck("channel:join", { channels: "all" })).toEqual({ ok: false, error: "server_id: is required" });
    expect(await stranger.emitWithAck("channel:join", { server_id: serverId })).toEqual({ ok: false, error: "channelId: must be a channel id" });
    expect(serverSide(stranger).rooms.has(`follow:server:${serverId}`)).toBe(false);
    for (const s of [socket, ownerSocket, stranger]) s.close();
  });

  test("follows: a channel created later is joined; one hidden later is left; one made visible later is joined", async () => {
    const { owner, member, serverId, everyone } = await community(server);
    const follower = await server.connect(member.token);
    const single = await server.connect(member.token);
    expect((await follower.emitWithAck("channel:join", { server_id: serverId, channels: "all" })).ok).toBe(true);

    const created = await createChannel(owner, serverId, "created-later");
    expect(await inRoom(`channel:${created}`)).toEqual([follower.id!]);
    const seen = recordEvents<{ content: string; channel_id: string }>(follower, "message:new");
    await post(owner, created, "in the new one");
    await until(() => seen.length === 1, "the new channel's message");
    // A duplicate is a channel created later too.
    const copy = await server.api("POST", `/api/v1/channels/${created}/duplicate`, { token: owner.token });
    expect(await inRoom(`channel:${copy.body.id}`)).toEqual([follower.id!]);

    // Hidden later: left, like single joins.
    expect((await single.emitWithAck("channel:join", created)).ok).toBe(true);
    await hide(owner, created, everyone);
    expect(await inRoom(`channel:${created}`)).toEqual([]);
    await post(owner, created, "not for members");
    // Visible again: the follower is back in, the single join is not.
    expect((await server.api("DELETE", `/api/v1/channels/${created}/permissions/${everyone}`, { token: owner.token })).status).toBe(200);
    expect(await inRoom(`channel:${created}`)).toEqual([follower.id!]);
    await post(owner, created, "visible again");
    await until(() => seen.length === 2, "the message after it became visible");
    expect(seen.map((m) => m.content)).toEqual(["in the new one", "visible again"]);

    // Created hidden (in a category members cannot see): not joined.
    const category = await server.api("POST", `/api/v1/channels/${serverId}/categories`, { token: owner.token, body: { name: "Staff" } });
    expect(category.status).toBe(201);
    const denied = await server.api("PUT", `/api/v1/channels/categories/${category.body.id}/permissions/${everyone}`, { token: owner.token, body: { allow: 0, deny: VIEW_CHANNEL } });
    expect(denied.status).toBe(200);
    const staffOnly = await createChannel(owner, serverId, "staff-only", { category_id: category.body.id });
    expect(await inRoom(`channel:${staffOnly}`)).toEqual([]);

    // A role that may see it, given later: joined (role assignment is a visibility change too).
    const role = await server.api("POST", `/api/v1/roles/${serverId}`, { token: owner.token, body: { name: "staff", color: "#112233", permissions: 0 } });
    const allow = await server.api("PUT", `/api/v1/channels/${staffOnly}/permissions/${role.body.id}`, { token: owner.token, body: { allow: VIEW_CHANNEL, deny: 0 } });
    expect(allow.status).toBe(200);
    expect(await inRoom(`channel:${staffOnly}`)).toEqual([]);
    expect((await server.api("POST", `/api/v1/roles/${serverId}/assign`, { token: owner.token, body: { targetUserId: member.id, roleId: role.body.id } })).status).toBe(200);
    expect(await inRoom(`channel:${staffOnly}`)).toEqual([follower.id!]);
    for (const s of [follower, single]) s.close();
  });

  test("a member who leaves follows the server no more; channel:leave with the same payload stops following", async () => {
    const { owner, member, serverId, channelId } = await community(server);
    const other = await server.register();
    await addMember(server, serverId, other);
    const kicked = await server.connect(member.token);
    const leaver = await server.connect(other.token);
    for (const s of [kicked, leaver]) expect((await s.emitWithAck("channel:join", { server_id: serverId, channels: "all" })).ok).toBe(true);

    expect(await leaver.emitWithAck("channel:leave", { server_id: serverId, channels: "all" })).toEqual({ ok: true, server_id: serverId, channels: [channelId] });
    expect((await server.api("DELETE", `/api/v1/servers/${serverId}/members/${member.id}`, { token: owner.token })).status).toBe(200);
    expect(serverSide(kicked).rooms.has(`follow:server:${serverId}`)).toBe(false);
    expect(await inRoom(`channel:${channelId}`)).toEqual([]);

    const later = await createChannel(owner, serverId, "later");
    expect(await inRoom(`channel:${later}`)).toEqual([]);
    // Unknown servers leave nothing.
    expect(await leaver.emitWithAck("channel:leave", { server_id: UNKNOWN, channels: "all" })).toEqual({ ok: true, server_id: UNKNOWN, channels: [] });
    for (const s of [kicked, leaver]) s.close();
  });

  test("a deleted server's followers follow nothing of it", async () => {
    const { owner, member, serverId } = await community(server);
    const socket = await server.connect(member.token);
    expect((await socket.emitWithAck("server:join", { servers: "all", channels: "all" })).ok).toBe(true);
    expect(serverSide(socket).rooms.has(`follow:server:${serverId}`)).toBe(true);
    expect((await server.api("DELETE", `/api/v1/servers/${serverId}`, { token: owner.token })).status).toBe(200);
    expect(serverSide(socket).rooms.has(`follow:server:${serverId}`)).toBe(false);
    expect(serverSide(socket).rooms.has(`server:${serverId}`)).toBe(false);
    socket.close();
  });
});

describe("a large account", () => {
  test("a user in 300 servers subscribes to all of them and their channels in one room event, and is not disconnected", async () => {
    // A tight room budget shows the bulk join is one event, not 600.
    const small = await startServer({ gatewayEventLimits: { ...DEFAULT_EVENT_LIMITS, rooms: { perSecond: 1, burst: 3 } } });
    try {
      const owner = await small.register();
      const user = await small.register();
      const ids: string[] = [];
      for (let i = 0; i < 300; i++) {
        const row = await small.app.store.servers.create(
          { ownerId: owner.id, name: `S${i}`, description: "", everyonePermissions: DEFAULT_EVERYONE_PERMISSIONS, primaryInviteCode: `bulk${i}x${Date.now()}` },
          Number.POSITIVE_INFINITY,
        );
        await small.app.store.members.add(row!.id, user.id);
        ids.push(row!.id);
      }
      const socket = await small.connect(user.token);
      const ack = await socket.timeout(30_000).emitWithAck("server:join", { servers: "all", channels: "all" });
      expect(ack.ok).toBe(true);
      expect(ack.servers).toHaveLength(300);
      expect([...ack.servers].sort()).toEqual([...ids].sort());
      expect(ack.channels).toHaveLength(300);
      const rooms = small.app.io.of("/").sockets.get(socket.id!)!.rooms;
      expect(ids.every((id) => rooms.has(`server:${id}`))).toBe(true);
      // Still connected, with the rest of its budget left.
      expect(socket.connected).toBe(true);
      expect((await socket.emitWithAck("channel:join", ack.channels[0])).ok).toBe(true);
      expect((await socket.emitWithAck("channel:join", ack.channels[1])).ok).toBe(true);
      expect((await socket.emitWithAck("channel:join", ack.channels[2])).error).toMatch(/^Rate limited: too many room joins and leaves/);
      expect(socket.connected).toBe(true);
      socket.close();
    } finally {
      await small.stop();
    }
  }, 60_000);
});

describe("resume", () => {
  test("a resumed socket keeps its subscriptions, and joins what was added while it was away", async () => {
    const { owner, member, serverId } = await community(server);
    const socket = await connectResumable(server.url, member.token);
    try {
      expect((await socket.emitWithAck("server:join", { servers: "all", channels: "all" })).ok).toBe(true);
      const id = socket.id!;
      await drop(socket);
      await until(() => !server.app.io.of("/").sockets.get(id), "the server to see the drop");
      const whileAway = await createChannel(owner, serverId, "while-away");
      await reconnect(socket);
      expect(socket.recovered).toBe(true);
      await until(async () => (await inRoom(`channel:${whileAway}`)).includes(id), "the channel created while away to be joined");
      // Still following: a channel created after the resume is joined too.
      const after = await createChannel(owner, serverId, "after");
      expect(await inRoom(`channel:${after}`)).toEqual([id]);
      const seen = recordEvents<{ content: string }>(socket, "message:new");
      await post(owner, whileAway, "x");
      await post(owner, after, "y");
      await until(() => seen.length === 2, "messages in both");
    } finally {
      socket.close();
    }
  });
});
