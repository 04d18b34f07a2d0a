import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addMember, community, createServer } from "../helpers/community.ts";
import { connectResumable, drop, reconnect } from "../helpers/resume.ts";
import { recordEvents, startServer, waitForEvent, type ClientSocket, type TestServer, type TestUser } from "../helpers/server.ts";
import { quietWindow, until } from "../helpers/wait.ts";

/** Servers of more than five members are large here (LARGE_SERVER_MEMBERS), so fixtures stay small. */
const LARGE = 5;

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ largeServerMembers: LARGE });
});
afterAll(() => server.stop());

const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";
type Status = { userId: string; status: string };

const serverSide = (socket: ClientSocket) => server.app.io.of("/").sockets.get(socket.id!)!;
const presenceRooms = (socket: ClientSocket) => [...serverSide(socket).rooms].filter((room) => room.startsWith("presence:")).sort();

/** A socket of `user` in the server's room. */
async function inServer(user: TestUser, serverId: string): Promise<ClientSocket> {
  const socket = await server.connect(user.token);
  expect((await socket.emitWithAck("server:join", serverId)).ok).toBe(true);
  return socket;
}

const statusesOf = (seen: Status[], userId: string) => seen.filter((s) => s.userId === userId).map((s) => s.status);

async function befriend(a: TestUser, b: TestUser) {
  expect((await server.api("POST", "/api/v1/friends/request", { token: a.token, body: { username: b.username } })).status).toBe(201);
  expect((await server.api("POST", `/api/v1/friends/accept/${a.id}`, { token: b.token })).status).toBe(200);
}

/** A server of more than LARGE members: `members` are all but the owner. */
const largeCommunity = () => community(server, { extraMembers: LARGE });

describe("presence in a large server", () => {
  test("user:status reaches the sockets that subscribed, friends, DM partners and the user, not the server room", async () => {
    const { serverId, members, outsider } = await largeCommunity();
    const [watcherUser, subject, bystanderUser, partnerUser] = members as [TestUser, TestUser, TestUser, TestUser];
    const friendUser = await server.register();
    await befriend(subject, friendUser);
    // A DM partner who shares a server sees it; one who shares none (and is no friend) does not (presenceShownTo).
    await server.app.store.dms.openDm(subject.id, partnerUser.id);
    await server.app.store.dms.openDm(subject.id, outsider.id);

    const watcher = await inServer(watcherUser, serverId);
    const ack = await watcher.emitWithAck("presence:subscribe", { server_id: serverId, user_ids: [subject.id, outsider.id, subject.id] });
    // Only members are kept, each once.
    expect(ack).toEqual({ ok: true, server_id: serverId, user_ids: [subject.id] });
    const bystander = await inServer(bystanderUser, serverId);
    const partner = await server.connect(partnerUser.token);
    const friend = await server.connect(friendUser.token);
    const stranger = await server.connect(outsider.token);
    const seen = new Map([watcher, bystander, partner, friend, stranger].map((s) => [s, recordEvents<Status>(s, "user:status")]));

    const subjectSocket = await server.connect(subject.token);
    for (const s of [watcher, partner, friend]) await until(() => statusesOf(seen.get(s)!, subject.id).includes("online"), "online");
    expect((await subjectSocket.emitWithAck("status:set", { status: "dnd" })).ok).toBe(true);
    for (const s of [watcher, partner, friend]) await until(() => statusesOf(seen.get(s)!, subject.id).includes("dnd"), "dnd");
    await quietWindow();
    for (const s of [watcher, partner, friend]) expect(statusesOf(seen.get(s)!, subject.id)).toEqual(["online", "dnd"]);
    expect(statusesOf(seen.get(bystander)!, subject.id)).toEqual([]);
    expect(statusesOf(seen.get(stranger)!, subject.id)).toEqual([]);
    // Nor does the bystander hear the others connecting.
    expect(seen.get(bystander)!.filter((s) => s.userId !== bystanderUser.id)).toEqual([]);
    for (const s of [watcher, bystander, partner, friend, stranger, subjectSocket]) s.close();
  });

  test("a small server keeps today's presence: everyone in the server room hears everyone", async () => {
    const { serverId, owner, members } = await community(server, { extraMembers: 2 });
    const [a, b] = members as [TestUser, TestUser];
    const listener = await inServer(a, serverId);
    const seen = recordEvents<Status>(listener, "user:status");
    const bSocket = await server.connect(b.token);
    const ownerSocket = await server.connect(owner.token);
    await until(() => statusesOf(seen, b.id).includes("online") && statusesOf(seen, owner.id).includes("online"), "both online");
    // presence:subscribe is accepted there too, and changes nothing.
    expect(await listener.emitWithAck("presence:subscribe", { server_id: serverId, user_ids: [b.id] })).toEqual({ ok: true, server_id: serverId, user_ids: [b.id] });
    expect((await bSocket.emitWithAck("status:set", { status: "idle" })).ok).toBe(true);
    await until(() => statusesOf(seen, b.id).includes("idle"), "idle");
    await quietWindow();
    expect(statusesOf(seen, b.id)).toEqual(["online", "idle"]);
    for (const s of [listener, bSocket, ownerSocket]) s.close();
  });

  test("each presence:subscribe replaces the server's set; leaving the server room or the server drops it", async () => {
    const { serverId, owner, members } = await largeCommunity();
    const [watcherUser, a, b] = members as [TestUser, TestUser, TestUser];
    const [aSocket, bSocket] = await Promise.all([server.connect(a.token), server.connect(b.token)]);
    const watcher = await inServer(watcherUser, serverId);
    const seen = recordEvents<Status>(watcher, "user:status");

    expect((await watcher.emitWithAck("presence:subscribe", { server_id: serverId, user_ids: [a.id] })).user_ids).toEqual([a.id]);
    expect((await watcher.emitWithAck("presence:subscribe", { server_id: serverId, user_ids: [b.id] })).user_ids).toEqual([b.id]);
    expect(presenceRooms(watcher)).toEqual([`presence:${serverId}:${b.id}`]);
    await aSocket.emitWithAck("status:set", { status: "dnd" });
    await bSocket.emitWithAck("status:set", { status: "dnd" });
    await until(() => statusesOf(seen, b.id).includes("dnd"), "b's change");
    await quietWindow();
    expect(statusesOf(seen, a.id)).toEqual([]);

    // An empty list unsubscribes.
    expect((await watcher.emitWithAck("presence:subscribe", { server_id: serverId, user_ids: [] })).user_ids).toEqual([]);
    expect(presenceRooms(watcher)).toEqual([]);

    // Leaving the server room takes the subscriptions with it; joining again does not bring them back.
    await watcher.emitWithAck("presence:subscribe", { server_id: serverId, user_ids: [a.id, b.id] });
    expect(presenceRooms(watcher)).toHaveLength(2);
    await watcher.emitWithAck("server:leave", serverId);
    expect(presenceRooms(watcher)).toEqual([]);
    await watcher.emitWithAck("server:join", serverId);
    expect(presenceRooms(watcher)).toEqual([]);

    // So does a kick.
    await watcher.emitWithAck("presence:subscribe", { server_id: serverId, user_ids: [a.id] });
    expect((await server.api("DELETE", `/api/v1/servers/${serverId}/members/${watcherUser.id}`, { token: owner.token })).status).toBe(200);
    await until(() => presenceRooms(watcher).length === 0, "the kick to drop the subscription");
    for (const s of [aSocket, bSocket, watcher]) s.close();
  });

  test("bad input answers a clear error", async () => {
    const { serverId, member, outsider } = await largeCommunity();
    const socket = await server.connect(member.token);
    const ask = (payload: unknown) => socket.emitWithAck("presence:subscribe", payload);
    expect(await ask({ server_id: serverId, user_ids: [member.id] })).toEqual({ ok: false, error: "Join the server first: server:join with its id" });
    expect(await ask("nope")).toEqual({ ok: false, error: "payload: must be an object {server_id, user_ids}" });
    expect(await ask({ server_id: "x", user_ids: [] })).toEqual({ ok: false, error: "server_id: must be a server id" });
    expect(await ask({ server_id: serverId })).toEqual({ ok: false, error: "user_ids: is required" });
    expect(await ask({ server_id: serverId, user_ids: "all" })).toEqual({ ok: false, error: "user_ids: must be an array of user ids" });
    expect(await ask({ server_id: serverId, user_ids: [42] })).toEqual({ ok: false, error: "user_ids.0: must be a user id" });
    const many = Array.from({ length: 201 }, () => member.id);
    expect(await ask({ server_id: serverId, user_ids: many })).toEqual({ ok: false, error: "user_ids: must hold at most 200 user ids" });
    expect(await ask({ server_id: UNKNOWN, user_ids: [] })).toEqual({ ok: false, error: "Server not found" });
    const stranger = await server.connect(outsider.token);
    expect(await stranger.emitWithAck("presence:subscribe", { server_id: serverId, user_ids: [] })).toEqual({ ok: false, error: "You are not a member of this server" });
    for (const s of [socket, stranger]) s.close();
  });

  test("presence:subscribe has its own rate limit (20 at once, 5 a second), apart from room joins", async () => {
    const { serverId, member } = await largeCommunity();
    const socket = await inServer(member, serverId);
    const acks = [];
    for (let i = 0; i < 21; i++) acks.push(await socket.emitWithAck("presence:subscribe", { server_id: serverId, user_ids: [member.id] }));
    expect(acks.slice(0, 20).every((ack) => ack.ok)).toBe(true);
    expect(acks[20].ok).toBe(false);
    expect(acks[20].error).toMatch(/^Rate limited: too many presence subscriptions; retry in \d+ ms$/);
    expect((await socket.emitWithAck("server:join", serverId)).ok).toBe(true);
    socket.close();
  });

  test("at most 1000 subscriptions per connection over all servers", async () => {
    const owner = await server.register();
    const watcherUser = await server.register();
    const ids: string[] = [];
    for (let i = 0; i < 200; i++) {
      const created = await server.app.store.users.create({ username: `pm${process.pid.toString(36)}${i}x${Date.now().toString(36)}`, email: null, passwordHash: null, isBot: false });
      if (!created.ok) throw new Error("user create failed");
      ids.push(created.user.id);
    }
    const watcher = await server.connect(watcherUser.token);
    const servers: string[] = [];
    for (let s = 0; s < 6; s++) {
      const serverId = await createServer(server, owner, `P${s}`);
      await addMember(server, serverId, watcherUser);
      for (const id of ids) await server.app.store.members.add(serverId, id);
      expect((await watcher.emitWithAck("server:join", serverId)).ok).toBe(true);
      servers.push(serverId);
    }
    for (const serverId of servers.slice(0, 5)) {
      expect((await watcher.emitWithAck("presence:subscribe", { server_id: serverId, user_ids: ids })).user_ids).toHaveLength(200);
    }
    expect(await watcher.emitWithAck("presence:subscribe", { server_id: servers[5], user_ids: ids.slice(0, 1) })).toEqual({
      ok: false,
      error: "user_ids: a connection follows at most 1000 members' presence over all servers (1000 in other servers); subscribe to fewer there first",
    });
    // Replacing one server's set stays within the bound.
    expect((await watcher.emitWithAck("presence:subscribe", { server_id: servers[0], user_ids: ids.slice(0, 100) })).user_ids).toHaveLength(100);
    expect((await watcher.emitWithAck("presence:subscribe", { server_id: servers[5], user_ids: ids.slice(0, 100) })).user_ids).toHaveLength(100);
    expect(presenceRooms(watcher)).toHaveLength(1000);
    watcher.close();
  }, 30_000);

  test("a resumed socket keeps its presence subscriptions", async () => {
    const { serverId, members } = await largeCommunity();
    const [watcherUser, subject] = members as [TestUser, TestUser];
    const subjectSocket = await server.connect(subject.token);
    const watcher = await connectResumable(server.url, watcherUser.token);
    try {
      expect((await watcher.emitWithAck("server:join", serverId)).ok).toBe(true);
      expect((await watcher.emitWithAck("presence:subscribe", { server_id: serverId, user_ids: [subject.id] })).ok).toBe(true);
      const id = watcher.id!;
      await drop(watcher);
      await until(() => !server.app.io.of("/").sockets.get(id), "the server to see the drop");
      await reconnect(watcher);
      expect(watcher.recovered).toBe(true);
      const change = waitForEvent<Status>(watcher, "user:status", { filter: (s) => s.userId === subject.id });
      await subjectSocket.emitWithAck("status:set", { status: "idle" });
      expect(await change).toEqual({ userId: subject.id, status: "idle" });
    } finally {
      watcher.close();
      subjectSocket.close();
    }
  });
});
