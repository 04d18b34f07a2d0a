import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { nativeFanoutOf, setNativeFanoutEnabled } from "../../src/gateway/native-fanout.ts";
import { community } from "../helpers/community.ts";
import { recordEvents, startServer, waitForEvent, type ClientSocket, type TestServer } from "../helpers/server.ts";
import { quietWindow, until } from "../helpers/wait.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const fanout = () => nativeFanoutOf(server.app.io)!;


async function joined(token: string, channelId: string, transports?: ("websocket" | "polling")[]): Promise<ClientSocket> {
  const socket = await server.connect(token, { transports });
  expect(await socket.emitWithAck("channel:join", channelId)).toMatchObject({ ok: true });
  return socket;
}

const post = (token: string, channelId: string, content: string) =>
  server.api("POST", `/api/v1/messages/${channelId}`, { token, body: { content } });

describe("native gateway fan-out", () => {
  test("one room: published natively once; websocket and long-polling members each get it exactly once", async () => {
    const { owner, member, channelId } = await community(server);
    const ws1 = await joined(owner.token, channelId);
    const ws2 = await joined(member.token, channelId);
    const polling = await joined(member.token, channelId, ["polling"]);
    expect(fanout().pollingMembers(`channel:${channelId}`)).toEqual([polling.id!]);
    const seen = [ws1, ws2, polling].map((s) => recordEvents(s, "message:new"));
    const before = { ...fanout().stats };
    const sent = await post(owner.token, channelId, "hello, everyone");
    expect(sent.status).toBe(201);
    await until(() => seen.every((events) => events.length > 0), "the message on every socket");
    await quietWindow(50); // exactly once: a duplicate would follow at once
    for (const events of seen) {
      expect(events.map((m) => m.id)).toEqual([sent.body.id]);
      expect(events[0]).toEqual(sent.body); // the same shape the stock emit delivers
    }
    expect(fanout().stats.published).toBeGreaterThan(before.published);
    expect(fanout().stats.emittedToPolling).toBeGreaterThan(before.emittedToPolling);
    for (const s of [ws1, ws2, polling]) s.close();
  });

  test("a long-polling socket that upgrades is moved to native delivery for its rooms", async () => {
    const { owner, member, channelId } = await community(server);
    const socket = await server.connect(member.token, { transports: ["polling", "websocket"] });
    expect(await socket.emitWithAck("channel:join", channelId)).toMatchObject({ ok: true });
    await until(() => socket.io.engine.transport.name === "websocket", "the upgrade to websocket", 3000);
    await until(() => fanout().pollingMembers(`channel:${channelId}`).length === 0, "the server to move the socket off polling");
    const seen = recordEvents(socket, "message:new");
    const sent = await post(owner.token, channelId, "after the upgrade");
    await until(() => seen.length > 0, "the message after the upgrade");
    await quietWindow(50); // exactly once, not also by the polling path
    expect(seen.map((m) => m.id)).toEqual([sent.body.id]);
    socket.close();
  });

  test("several rooms: a socket in more than one of them gets the event once", async () => {
    const { member, serverId } = await community(server);
    const socket = await server.connect(member.token);
    expect(await socket.emitWithAck("server:join", serverId)).toMatchObject({ ok: true });
    const polling = await server.connect(member.token, { transports: ["polling"] });
    expect(await polling.emitWithAck("server:join", serverId)).toMatchObject({ ok: true });
    // member:left goes to the server room and the leaver's own room; both sockets are in both.
    const seen = [socket, polling].map((s) => recordEvents(s, "member:left"));
    const left = await server.api("DELETE", `/api/v1/servers/${serverId}/leave`, { token: member.token });
    expect(left.status).toBe(200);
    await until(() => seen.every((events) => events.length > 0), "member:left on both sockets");
    for (const events of seen) expect(events).toEqual([{ serverId, userId: member.id }]);
    socket.close();
    polling.close();
  });

  test("except: members who cannot see a channel do not get events about it; leaving a room takes effect at once", async () => {
    const { owner, member, serverId, channelId } = await community(server);
    const ownerSocket = await joined(owner.token, channelId);
    const memberSocket = await joined(member.token, channelId);
    expect(await ownerSocket.emitWithAck("server:join", serverId)).toMatchObject({ ok: true });
    expect(await memberSocket.emitWithAck("server:join", serverId)).toMatchObject({ ok: true });
    const everyoneId = (await server.app.store.access.member(serverId, owner.id))!.everyone_id;
    const VIEW_CHANNEL = 1 << 11;
    const hidden = await server.api("PUT", `/api/v1/channels/${channelId}/permissions/${everyoneId}`, {
      token: owner.token,
      body: { allow: 0, deny: VIEW_CHANNEL },
    });
    expect(hidden.status).toBe(200);
    const ownerSaw = recordEvents(ownerSocket, "message:new");
    const memberSaw = [recordEvents(memberSocket, "message:new"), recordEvents(memberSocket, "channel:updated")];
    const updated = waitForEvent(ownerSocket, "channel:updated");
    expect((await server.api("PUT", `/api/v1/channels/${channelId}`, { token: owner.token, body: { topic: "secret" } })).status).toBe(200);
    await updated;
    const sent = await post(owner.token, channelId, "only the owner sees this");
    await until(() => ownerSaw.length > 0, "the message at the owner");
    await quietWindow(50); // the member's socket: nothing later on it to wait for
    expect(ownerSaw.map((m) => m.id)).toEqual([sent.body.id]);
    expect(memberSaw).toEqual([[], []]);
    ownerSocket.close();
    memberSocket.close();
  });

  test("switched off, the stock Socket.IO emit delivers the same events", async () => {
    const { owner, member, channelId } = await community(server);
    const socket = await joined(member.token, channelId);
    const seen = recordEvents(socket, "message:new");
    setNativeFanoutEnabled(server.app.io, false);
    try {
      const before = fanout().stats.published;
      const sent = await post(owner.token, channelId, "stock path");
      await until(() => seen.length > 0, "the message by the stock emit");
      expect(seen.map((m) => m.id)).toEqual([sent.body.id]);
      expect(fanout().stats.published).toBe(before);
    } finally {
      setNativeFanoutEnabled(server.app.io, true);
    }
    socket.close();
  });
});
