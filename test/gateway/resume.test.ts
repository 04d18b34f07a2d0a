import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Socket as ClientSocket } from "socket.io-client";
import { nativeFanoutOf } from "../../src/gateway/native-fanout.ts";
import type { ResumableAdapter } from "../../src/gateway/resumable-adapter.ts";
import { community } from "../helpers/community.ts";
import { connectResumable, drop, reconnect, recordArgs } from "../helpers/resume.ts";
import { recordEvents, startServer, type TestServer } from "../helpers/server.ts";
import { quietWindow, until } from "../helpers/wait.ts";
import { raisedRestRateLimits } from "../helpers/rate-limits.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const clients: ClientSocket[] = [];
afterAll(() => {
  for (const socket of clients) socket.close();
});

async function resumable(token: string, transports?: ("websocket" | "polling")[]) {
  const socket = await connectResumable(server.url, token, transports);
  clients.push(socket);
  return socket;
}

const post = async (token: string, channelId: string, content: string) => {
  const sent = await server.api("POST", `/api/v1/messages/${channelId}`, { token, body: { content } });
  expect(sent.status).toBe(201);
  return sent.body as { id: string };
};

/** The server's side of a socket id (gone while disconnected). */
const serverSocket = (id: string) => server.app.io.of("/").sockets.get(id);


/** Drops the socket and waits until the server has noticed. */
async function dropped(socket: ClientSocket) {
  const id = socket.id!;
  await drop(socket);
  await until(() => !serverSocket(id), "the server to see the drop");
  return id;
}

describe("session resume on one node", () => {
  for (const transport of ["websocket", "polling"] as const) {
    test(`${transport}: a dropped client resumes with its id, rooms and data, and gets what it missed in order`, async () => {
      const { owner, member, channelId } = await community(server);
      const socket = await resumable(member.token, [transport]);
      expect((await socket.emitWithAck("channel:join", channelId)).ok).toBe(true);
      const seen = recordEvents<{ id: string }>(socket, "message:new");
      const ready = recordEvents<{ resumed: boolean }>(socket, "session:ready");
      const before = await post(owner.token, channelId, "before the drop");
      await until(() => seen.length === 1, "the first message");

      const id = await dropped(socket);
      const missed = [];
      for (let i = 0; i < 5; i++) missed.push((await post(owner.token, channelId, `missed ${i}`)).id);
      await reconnect(socket);
      expect(socket.recovered).toBe(true);
      expect(socket.id).toBe(id);
      await until(() => ready.length === 1, "session:ready");
      expect(ready).toEqual([{ resumed: true }]);
      expect(seen.map((m) => m.id)).toEqual([before.id, ...missed]);

      // Its rooms and data came back: the channel room delivers again, the socket is the member's.
      const restored = serverSocket(id)!;
      expect(restored.data).toMatchObject({ userId: member.id, username: member.username, isBot: false, resume: true });
      expect([...restored.rooms].sort()).toEqual([id, `channel:${channelId}`, `user:${member.id}`].sort());
      const after = await post(owner.token, channelId, "after the resume");
      await until(() => seen.length === 7, "the message after the resume");
      expect(seen.at(-1)!.id).toBe(after.id);
      await quietWindow(50); // nothing delivered twice
      expect(seen.map((m) => m.id)).toEqual([before.id, ...missed, after.id]);
    });
  }

  test("every connect of a resumable socket gets session:ready; events carry the offset only for such sockets", async () => {
    const { owner, member, channelId } = await community(server);
    const plain = await server.connect(owner.token);
    expect((await plain.emitWithAck("channel:join", channelId)).ok).toBe(true);
    const plainArgs = recordArgs(plain);
    const socket = await connectResumable(server.url, member.token);
    clients.push(socket);
    const args = recordArgs(socket);
    expect((await socket.emitWithAck("channel:join", channelId)).ok).toBe(true);
    await post(owner.token, channelId, "hello");
    await until(() => args.some(([event]) => event === "message:new") && plainArgs.some(([event]) => event === "message:new"), "the message");
    const [, resumableMessage] = args.find(([event]) => event === "message:new")!;
    expect(resumableMessage).toHaveLength(2);
    expect(typeof resumableMessage[1]).toBe("string");
    const [, plainMessage] = plainArgs.find(([event]) => event === "message:new")!;
    expect(plainMessage).toHaveLength(1);
    expect(plainMessage[0]).toEqual(resumableMessage[0]);
    expect(plainArgs.some(([event]) => event === "session:ready")).toBe(false);
  });

  test("a client that did not ask to resume is not resumed: recovered stays false, no missed events", async () => {
    const { owner, member, channelId } = await community(server);
    const socket = await server.connect(member.token);
    expect((await socket.emitWithAck("channel:join", channelId)).ok).toBe(true);
    const seen = recordEvents(socket, "message:new");
    await dropped(socket);
    await post(owner.token, channelId, "missed");
    await reconnect(socket);
    expect(socket.recovered).toBe(false);
    await quietWindow(); // a replay would follow the connect at once
    expect(seen).toEqual([]);
  });

  test("a token revoked while disconnected does not resume: Unauthorized, and nothing missed is sent", async () => {
    const { owner, member, channelId } = await community(server);
    const socket = await resumable(member.token);
    expect((await socket.emitWithAck("channel:join", channelId)).ok).toBe(true);
    const seen = recordEvents(socket, "message:new");
    await post(owner.token, channelId, "seen");
    await until(() => seen.length === 1, "the first message");
    await dropped(socket);
    await post(owner.token, channelId, "secret");
    const changed = await server.api("PUT", "/api/v1/users/me/password", { token: member.token, body: { currentPassword: member.password, newPassword: "a brand new password" } });
    expect(changed.status).toBe(200);
    await expect(reconnect(socket)).rejects.toThrow("Unauthorized");
    await quietWindow(50);
    expect(seen).toHaveLength(1);
  });

  test("a member kicked while disconnected does not resume: session:ready {resumed: false}, no missed channel events", async () => {
    const { owner, member, serverId, channelId } = await community(server);
    const socket = await resumable(member.token);
    expect((await socket.emitWithAck("server:join", serverId)).ok).toBe(true);
    expect((await socket.emitWithAck("channel:join", channelId)).ok).toBe(true);
    const seen = recordEvents(socket, "message:new");
    const ready = recordEvents<{ resumed: boolean }>(socket, "session:ready");
    await post(owner.token, channelId, "seen");
    await until(() => seen.length === 1, "the first message");
    await dropped(socket);
    expect((await server.api("DELETE", `/api/v1/servers/${serverId}/members/${member.id}`, { token: owner.token })).status).toBe(200);
    await post(owner.token, channelId, "after the kick");
    await reconnect(socket);
    expect(socket.recovered).toBe(false);
    await until(() => ready.length === 1, "session:ready");
    expect(ready).toEqual([{ resumed: false }]);
    expect(seen).toHaveLength(1);
    expect([...serverSocket(socket.id!)!.rooms].sort()).toEqual([socket.id!, `user:${member.id}`].sort());
  });

  test("a resume after the window, or with an unknown offset, is refused (resumed: false)", async () => {
    const { member } = await community(server);
    const socket = await resumable(member.token);
    await dropped(socket);
    // The client's offset is replaced by one the server never gave.
    (socket as unknown as { _lastOffset: string })._lastOffset = "999999999999";
    const ready = recordEvents<{ resumed: boolean }>(socket, "session:ready");
    await reconnect(socket);
    expect(socket.recovered).toBe(false);
    await until(() => ready.length === 1, "session:ready");
    expect(ready).toEqual([{ resumed: false }]);
  });

  test("a resume over the per-user connection cap is refused as a new connection would be, and leaves nothing behind", async () => {
    const capped = await startServer({ gatewayMaxConnectionsPerUser: 2 });
    try {
      const { member } = await community(capped);
      const socket = await connectResumable(capped.url, member.token);
      const id = socket.id!;
      // session:ready gives the client an offset to resume from.
      await until(() => typeof (socket as unknown as { _lastOffset?: string })._lastOffset === "string", "an offset");
      await drop(socket);
      await until(() => !capped.app.io.of("/").sockets.has(id), "the server to see the drop");
      // Two other connections take the user's two places meanwhile.
      const others = [await connectResumable(capped.url, member.token), await connectResumable(capped.url, member.token)];
      await expect(reconnect(socket)).rejects.toThrow("Too many connections: at most 2 per user");
      const nsp = capped.app.io.of("/");
      expect([...nsp.sockets.keys()].sort()).toEqual(others.map((o) => o.id!).sort());
      // The session's socket was not rebuilt: not in its own room nor the user's.
      expect(nsp.adapter.rooms.has(id)).toBe(false);
      expect([...(nsp.adapter.rooms.get(`user:${member.id}`) ?? [])].sort()).toEqual(others.map((o) => o.id!).sort());
      for (const s of [socket, ...others]) s.close();
    } finally {
      await capped.stop();
    }
  }, 20_000);

  test("a client that missed more than GATEWAY_RESUME_BUFFER events is not resumed", async () => {
    // 101 sends to one channel at once, past the REST sends limit (100 per 10 s): raised.
    const small = await startServer({ gatewayResumeBuffer: 100, ...raisedRestRateLimits("sends") });
    try {
      const { owner, member, channelId } = await community(small);
      const socket = await connectResumable(small.url, member.token);
      expect((await socket.emitWithAck("channel:join", channelId)).ok).toBe(true);
      const id = socket.id!;
      await drop(socket);
      await until(() => !small.app.io.of("/").sockets.has(id), "the server to see the drop");
      for (let i = 0; i < 101; i++) expect((await small.api("POST", `/api/v1/messages/${channelId}`, { token: owner.token, body: { content: `m${i}` } })).status).toBe(201);
      const ready = recordEvents<{ resumed: boolean }>(socket, "session:ready");
      await reconnect(socket);
      expect(socket.recovered).toBe(false);
      await until(() => ready.length === 1, "session:ready");
      expect(ready).toEqual([{ resumed: false }]);
      socket.close();
    } finally {
      await small.stop();
    }
  }, 20_000);

  test("voice is not resumed, and audio frames sent meanwhile are never replayed", async () => {
    const { owner, member, members, bot, voiceId, channelId } = await community(server, { voice: true, bot: true, extraMembers: 1 });
    const sender = await server.connect(bot.token);
    expect((await sender.emitWithAck("voice:join", { channelId: voiceId })).ok).toBe(true);
    // A long-polling listener stays: frames to it go through the adapter (the path that could store them).
    const stays = await server.connect(members[1]!.token, { transports: ["polling"] });
    expect((await stays.emitWithAck("voice:join", { channelId: voiceId })).ok).toBe(true);
    const socket = await resumable(member.token, ["polling"]);
    expect((await socket.emitWithAck("voice:join", { channelId: voiceId })).ok).toBe(true);
    expect((await socket.emitWithAck("channel:join", channelId)).ok).toBe(true);
    const frames = recordEvents(socket, "bot:audio-data");
    const heardByStayer = recordEvents(stays, "bot:audio-data");
    const messages = recordEvents(socket, "message:new");
    const pcm = new Uint8Array(3840).fill(7);
    expect(await sender.emitWithAck("bot:audio-data", { channelId: voiceId, pcm })).toEqual({ ok: true });
    await until(() => frames.length === 1, "a frame before the drop");

    const id = await dropped(socket);
    const adapter = server.app.io.of("/").adapter as unknown as ResumableAdapter;
    for (let i = 0; i < 3; i++) expect(await sender.emitWithAck("bot:audio-data", { channelId: voiceId, pcm })).toEqual({ ok: true });
    await until(() => heardByStayer.length === 4, "the frames at the listener who stayed");
    // Other events are stored (voice:user-join, message:new, ...); no frame among them.
    expect(adapter.storedPackets).toBeGreaterThan(0);
    expect(adapter.storedEvents().filter((event) => event.endsWith("audio-data"))).toEqual([]);
    const missed = await post(owner.token, channelId, "while away");
    await reconnect(socket);
    expect(socket.recovered).toBe(true);
    await until(() => messages.length === 1, "the missed message");
    expect(messages[0].id).toBe(missed.id);
    // The replay is in order: a frame stored during the drop would have come before the message.
    expect(frames).toHaveLength(1);
    expect(serverSocket(id)!.rooms.has(`voice:${voiceId}`)).toBe(false);
    // Not a participant any more: new frames do not reach it until it joins again.
    expect(await sender.emitWithAck("bot:audio-data", { channelId: voiceId, pcm })).toEqual({ ok: true });
    expect((await socket.emitWithAck("voice:join", { channelId: voiceId })).ok).toBe(true);
    const afterJoin = new Uint8Array(3840).fill(8);
    expect(await sender.emitWithAck("bot:audio-data", { channelId: voiceId, pcm: afterJoin })).toEqual({ ok: true });
    await until(() => frames.length >= 2, "a frame after joining again");
    // In order on one socket: the frame sent before the join would be the second one here.
    expect(frames).toHaveLength(2);
    expect(new Uint8Array(frames[1].pcm)[0]).toBe(8);
    for (const s of [sender, stays]) s.close();
  });

  test("missed events reach a resumed websocket natively afterwards (the fan-out subscribes its restored rooms)", async () => {
    const { owner, member, channelId } = await community(server);
    const socket = await resumable(member.token);
    expect((await socket.emitWithAck("channel:join", channelId)).ok).toBe(true);
    await dropped(socket);
    await reconnect(socket);
    expect(socket.recovered).toBe(true);
    const seen = recordEvents<{ id: string }>(socket, "message:new");
    const before = nativeFanoutOf(server.app.io)!.stats.published;
    const sent = await post(owner.token, channelId, "native again");
    await until(() => seen.length === 1, "the message");
    expect(seen[0]!.id).toBe(sent.id);
    expect(nativeFanoutOf(server.app.io)!.stats.published).toBeGreaterThan(before);
  });
});
