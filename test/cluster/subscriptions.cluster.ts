/**
 * Bulk subscriptions and presence subscriptions across three nodes (docs/gateway.md, "Bulk
 * subscriptions" and "Presence"): what is added on one node is followed by sockets on another,
 * and a large server's presence reaches the subscribed sockets wherever they are.
 */
import { describe, expect, test } from "bun:test";
import { api, connect, emitAck, eventually, record, register, serverWith, uniqueName, useThreeNodes, type ClientSocket, type HearthNode } from "./nodes.ts";
import { connectResumable, drop, reconnect } from "../helpers/resume.ts";
import { quietWindow } from "../helpers/wait.ts";

let n1: HearthNode, n2: HearthNode, n3: HearthNode;
// Servers of more than three members are large, so a fixture stays small.
useThreeNodes((nodes) => ([n1, n2, n3] = nodes), { LARGE_SERVER_MEMBERS: "3" });

const settle = () => quietWindow(400);
const VIEW_CHANNEL = 2048;

async function createChannel(node: HearthNode, token: string, serverId: string, name: string): Promise<string> {
  const res = await api(node, "POST", `/api/v1/channels/${serverId}`, { token, body: { name, type: "text" } });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function post(node: HearthNode, token: string, channelId: string, content: string) {
  const res = await api(node, "POST", `/api/v1/messages/${channelId}`, { token, body: { content } });
  expect(res.status).toBe(201);
}

const contents = (seen: { content: string }[]) => seen.map((m) => m.content);

describe("bulk subscriptions", () => {
  test("a socket on node 1 follows a channel created on node 2, a server joined through node 3, and leaves a channel hidden on node 2", async () => {
    const owner = await register(n2);
    const member = await register(n1);
    const { serverId, channelId } = await serverWith(n2, owner, [member]);
    const socket = await connect(n1, member.token);
    const ack = await emitAck(socket, "server:join", { servers: "all", channels: "all" });
    expect(ack).toEqual({ ok: true, servers: [serverId], channels: [channelId] });
    const seen = record<{ content: string; channel_id: string }>(socket, "message:new");

    const created = await createChannel(n2, owner.token, serverId, "made-on-n2");
    await post(n3, owner.token, created, "in the channel made on node 2");
    await eventually(() => seen.length === 1, "the new channel's message on node 1");

    // A server the member joins through node 3 (its invite made on node 2).
    const other = await api(n2, "POST", "/api/v1/servers", { token: owner.token, body: { name: uniqueName("srv") } });
    const invite = await api(n2, "POST", `/api/v1/servers/${other.body.id}/invites`, { token: owner.token, body: {} });
    const joinedNews = record<{ serverId: string; userId: string }>(socket, "member:joined");
    expect((await api(n3, "POST", `/api/v1/servers/join/${invite.body.code}`, { token: member.token })).status).toBe(200);
    await eventually(() => joinedNews.some((p) => p.serverId === other.body.id && p.userId === member.id), "its own member:joined on node 1");
    const channels = await api(n3, "GET", `/api/v1/channels/${other.body.id}`, { token: member.token });
    await post(n2, owner.token, channels.body.channels[0].id, "in the server joined on node 3");
    await eventually(() => seen.length === 2, "the joined server's message on node 1");

    // Hidden on node 2: the socket on node 1 leaves it.
    const roles = await api(n2, "GET", `/api/v1/roles/${serverId}`, { token: owner.token });
    const everyone = (roles.body as { id: string; name: string }[]).find((r) => r.name === "@everyone")!;
    const denied = await api(n2, "PUT", `/api/v1/channels/${created}/permissions/${everyone.id}`, { token: owner.token, body: { allow: 0, deny: VIEW_CHANNEL } });
    expect(denied.status).toBe(200);
    await post(n3, owner.token, created, "hidden now");
    await post(n3, owner.token, channelId, "still in general");
    await eventually(() => seen.length === 3, "general's message");
    await settle();
    expect(contents(seen)).toEqual(["in the channel made on node 2", "in the server joined on node 3", "still in general"]);
  });

  test("a resumed socket keeps following on another node, and joins what was created while it was away", async () => {
    const owner = await register(n2);
    const member = await register(n1);
    const { serverId } = await serverWith(n2, owner, [member]);
    const socket: ClientSocket = await connectResumable(n1.url, member.token);
    try {
      expect((await emitAck(socket, "channel:join", { server_id: serverId, channels: "all" })).ok).toBe(true);
      await drop(socket);
      const whileAway = await createChannel(n2, owner.token, serverId, "while-away");
      await reconnect(socket, n3.url);
      expect(socket.recovered).toBe(true);
      const seen = record<{ content: string }>(socket, "message:new");
      const after = await createChannel(n2, owner.token, serverId, "after-resume");
      // Joining what was created meanwhile runs after the connect: send again until one lands.
      for (let i = 0; i < 20 && !contents(seen).includes("while-away"); i++) {
        await post(n1, owner.token, whileAway, "while-away");
        await Bun.sleep(300);
      }
      expect(contents(seen)).toContain("while-away");
      await post(n1, owner.token, after, "after");
      await eventually(() => contents(seen).includes("after"), "the channel created after the resume");
    } finally {
      socket.close();
    }
  }, 30_000);
});

describe("presence in a large server", () => {
  test("a member connecting on node 2 reaches the socket subscribed on node 1, not the server room on node 3", async () => {
    const owner = await register(n1);
    const watcherUser = await register(n1);
    const subject = await register(n2);
    const bystanderUser = await register(n3);
    const { serverId } = await serverWith(n1, owner, [watcherUser, subject, bystanderUser]);
    const watcher = await connect(n1, watcherUser.token);
    const bystander = await connect(n3, bystanderUser.token);
    for (const s of [watcher, bystander]) expect((await emitAck(s, "server:join", serverId)).ok).toBe(true);
    expect(await emitAck(watcher, "presence:subscribe", { server_id: serverId, user_ids: [subject.id] })).toEqual({ ok: true, server_id: serverId, user_ids: [subject.id] });
    const watched = record<{ userId: string; status: string }>(watcher, "user:status");
    const overheard = record<{ userId: string; status: string }>(bystander, "user:status");

    const subjectSocket = await connect(n2, subject.token);
    await eventually(() => watched.some((s) => s.userId === subject.id && s.status === "online"), "online on node 1");
    expect((await emitAck(subjectSocket, "status:set", { status: "dnd" })).ok).toBe(true);
    await eventually(() => watched.some((s) => s.userId === subject.id && s.status === "dnd"), "dnd on node 1");
    await settle();
    expect(overheard.filter((s) => s.userId === subject.id)).toEqual([]);

    // Kicked through node 3: the watcher's subscription on node 1 goes with its server room.
    expect((await api(n3, "DELETE", `/api/v1/servers/${serverId}/members/${watcherUser.id}`, { token: owner.token })).status).toBe(200);
    await settle();
    const before = watched.length;
    expect((await emitAck(subjectSocket, "status:set", { status: "idle" })).ok).toBe(true);
    await settle();
    expect(watched.length).toBe(before);
  });
});
