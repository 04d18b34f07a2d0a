import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addMember, community } from "../helpers/community.ts";
import { recordEvents, startServer, waitForEvent, type TestServer } from "../helpers/server.ts";
import { quietWindow } from "../helpers/wait.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";
const roomSize = async (room: string) => (await server.app.io.in(room).fetchSockets()).length;


describe("server:join / server:leave", () => {
  test("members join and get the server's events; non-members are refused", async () => {
    const { owner, member, outsider, serverId } = await community(server);
    const socket = await server.connect(member.token);
    expect(await socket.emitWithAck("server:join", serverId)).toEqual({ ok: true, serverId });
    expect(await roomSize(`server:${serverId}`)).toBe(1);

    const stranger = await server.connect(outsider.token);
    expect(await stranger.emitWithAck("server:join", serverId)).toEqual({ ok: false, error: "You are not a member of this server" });
    expect(await stranger.emitWithAck("server:join", UNKNOWN)).toEqual({ ok: false, error: "Server not found" });
    expect(await stranger.emitWithAck("server:join", "nope")).toEqual({ ok: false, error: "serverId: must be a server id" });
    expect(await stranger.emitWithAck("server:join", { id: serverId })).toEqual({ ok: false, error: "serverId: must be a server id" });

    // Presence reaches the members of the servers a user belongs to.
    const status = waitForEvent(socket, "user:status", { filter: (p) => p.userId === owner.id });
    const ownerSocket = await server.connect(owner.token);
    expect(await status).toEqual({ userId: owner.id, status: "online" });
    const strangerSaw = recordEvents(stranger, "user:status");
    await ownerSocket.emitWithAck("status:set", { status: "dnd" });
    await quietWindow();
    expect(strangerSaw.filter((p) => p.userId === owner.id)).toEqual([]);

    expect(await socket.emitWithAck("server:leave", serverId)).toEqual({ ok: true, serverId });
    expect(await roomSize(`server:${serverId}`)).toBe(0);
    for (const s of [socket, stranger, ownerSocket]) s.close();
  });

  test("leaving the server takes the member's sockets out of its rooms at once", async () => {
    const { member, serverId, channelId } = await community(server);
    const socket = await server.connect(member.token);
    await socket.emitWithAck("server:join", serverId);
    await socket.emitWithAck("channel:join", channelId);
    expect(await roomSize(`server:${serverId}`)).toBe(1);
    expect(await roomSize(`channel:${channelId}`)).toBe(1);
    const left = waitForEvent(socket, "member:left");
    await server.api("DELETE", `/api/v1/servers/${serverId}/leave`, { token: member.token });
    expect(await left).toEqual({ serverId, userId: member.id });
    expect(await roomSize(`server:${serverId}`)).toBe(0);
    expect(await roomSize(`channel:${channelId}`)).toBe(0);
    expect(await socket.emitWithAck("server:join", serverId)).toEqual({ ok: false, error: "You are not a member of this server" });
    socket.close();
  });
});

describe("channel:join / channel:leave", () => {
  test("needs VIEW_CHANNEL; a hidden channel answers like a missing one", async () => {
    const { owner, member, outsider, serverId, channelId } = await community(server);
    const socket = await server.connect(member.token);
    expect(await socket.emitWithAck("channel:join", channelId)).toEqual({ ok: true, channelId });
    expect(await socket.emitWithAck("channel:leave", channelId)).toEqual({ ok: true, channelId });
    expect(await roomSize(`channel:${channelId}`)).toBe(0);

    // Deny VIEW_CHANNEL to @everyone on the channel: the member is taken out of the room
    // and can no longer join it; the owner still can.
    expect(await socket.emitWithAck("channel:join", channelId)).toEqual({ ok: true, channelId });
    const everyone = (await server.app.store.access.member(serverId, owner.id))!.everyone_id;
    const denied = await server.api("PUT", `/api/v1/channels/${channelId}/permissions/${everyone}`, {
      token: owner.token,
      body: { allow: 0, deny: 2048 },
    });
    expect(denied.status).toBe(200);
    expect(await roomSize(`channel:${channelId}`)).toBe(0);
    expect(await socket.emitWithAck("channel:join", channelId)).toEqual({ ok: false, error: "Missing permission: VIEW_CHANNEL" });
    const ownerSocket = await server.connect(owner.token);
    expect(await ownerSocket.emitWithAck("channel:join", channelId)).toEqual({ ok: true, channelId });

    const stranger = await server.connect(outsider.token);
    expect(await stranger.emitWithAck("channel:join", channelId)).toEqual({ ok: false, error: "You are not a member of this server" });
    expect(await stranger.emitWithAck("channel:join", UNKNOWN)).toEqual({ ok: false, error: "Channel not found" });
    expect(await stranger.emitWithAck("channel:join", 42)).toEqual({ ok: false, error: "channelId: must be a channel id" });
    for (const s of [socket, ownerSocket, stranger]) s.close();
  });
});

describe("channel events respect visibility", () => {
  test("members who cannot see a channel get none of its events", async () => {
    const { owner, member, serverId, channelId } = await community(server);
    const viewer = await server.register();
    await addMember(server, serverId, viewer);
    const sockets = await Promise.all([owner, member, viewer].map((u) => server.connect(u.token)));
    for (const s of sockets) expect((await s.emitWithAck("server:join", serverId)).ok).toBe(true);
    const [, memberSocket, viewerSocket] = sockets;

    // Hide the channel from @everyone but let a role the viewer holds see it.
    const everyone = (await server.app.store.access.member(serverId, owner.id))!.everyone_id;
    const role = await server.api("POST", `/api/v1/roles/${serverId}`, { token: owner.token, body: { name: "insiders", color: "#112233", permissions: 0 } });
    await server.api("POST", `/api/v1/roles/${serverId}/assign`, { token: owner.token, body: { targetUserId: viewer.id, roleId: role.body.id } });
    const put = (roleId: string, allow: number, deny: number) =>
      server.api("PUT", `/api/v1/channels/${channelId}/permissions/${roleId}`, { token: owner.token, body: { allow, deny } });
    expect((await put(role.body.id, 2048, 0)).status).toBe(200);
    expect((await put(everyone, 0, 2048)).status).toBe(200);

    const memberSaw = recordEvents(memberSocket!, "channel:updated");
    const viewerGot = waitForEvent(viewerSocket!, "channel:updated");
    const renamed = await server.api("PUT", `/api/v1/channels/${channelId}`, { token: owner.token, body: { topic: "secret plans" } });
    expect(renamed.status).toBe(200);
    expect((await viewerGot).topic).toBe("secret plans");
    const deleted = waitForEvent(viewerSocket!, "channel:deleted");
    const memberDeletes = recordEvents(memberSocket!, "channel:deleted");
    await server.api("DELETE", `/api/v1/channels/${channelId}`, { token: owner.token });
    expect(await deleted).toEqual({ id: channelId, server_id: serverId });
    await quietWindow(); // the member's socket: nothing later on it to wait for
    expect(memberSaw).toEqual([]);
    expect(memberDeletes).toEqual([]);
    for (const s of sockets) s.close();
  });
});
