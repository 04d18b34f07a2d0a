import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addMember, auditLog, community, createVoiceChannel } from "../helpers/community.ts";
import { recordEvents, startServer, waitForEvent, type ClientSocket, type TestServer, type TestUser } from "../helpers/server.ts";
import { eventually, quietWindow } from "../helpers/wait.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";
const roomSize = async (room: string) => (await server.app.io.in(room).fetchSockets()).length;

const participant = (socket: ClientSocket, user: TestUser, extra: Record<string, unknown> = {}) => ({
  socketId: socket.id,
  userId: user.id,
  username: user.username,
  isBot: false,
  muted: false,
  deafened: false,
  video: false,
  serverMuted: false,
  serverDeafened: false,
  speaking: false,
  meetingRole: null,
  handRaised: false,
  listening: false,
  ...extra,
});

describe("voice:join / voice:leave", () => {
  test("joiner gets voice:existing, others voice:user-joined, ack lists the room; audited", async () => {
    const { owner, member, outsider, serverId, voiceId } = await community(server, { voice: true });
    const a = await server.connect(owner.token);
    const b = await server.connect(member.token);
    const stranger = await server.connect(outsider.token);
    const strangerSaw = recordEvents(stranger, "voice:user-joined");

    const aExisting = waitForEvent(a, "voice:existing");
    const first = await a.emitWithAck("voice:join", { channelId: voiceId });
    expect(first).toEqual({ ok: true, channelId: voiceId, participants: [participant(a, owner)] });
    expect(await aExisting).toEqual([]);

    const joined = waitForEvent(a, "voice:user-joined");
    const bExisting = waitForEvent(b, "voice:existing");
    const bSawSelf = recordEvents(b, "voice:user-joined");
    const second = await b.emitWithAck("voice:join", { channelId: voiceId });
    expect(second).toEqual({ ok: true, channelId: voiceId, participants: [participant(a, owner), participant(b, member)] });
    expect(await joined).toEqual(participant(b, member));
    expect(await bExisting).toEqual([participant(a, owner)]);
    expect(await roomSize(`voice:${voiceId}`)).toBe(2);

    const left = waitForEvent(a, "voice:user-left");
    expect(await b.emitWithAck("voice:leave")).toEqual({ ok: true, channelId: voiceId });
    expect(await left).toEqual({ socketId: b.id });
    expect(await roomSize(`voice:${voiceId}`)).toBe(1);
    await quietWindow(50);
    expect(bSawSelf).toEqual([]);
    expect(strangerSaw).toEqual([]);

    const entries = await auditLog(server, serverId, owner);
    const voice = entries.filter((e) => e.action.startsWith("VOICE_"));
    expect(voice.map((e) => [e.action, e.actor_id, e.target_type, e.target_id])).toEqual([
      ["VOICE_LEAVE", member.id, "member", member.id],
      ["VOICE_JOIN", member.id, "member", member.id],
      ["VOICE_JOIN", owner.id, "member", owner.id],
    ]);
    expect(voice[1].changes).toEqual({ channelId: voiceId, channelName: "Lounge" });
    for (const s of [a, b, stranger]) s.close();
  });

  test("refusals arrive as voice:error and a failed ack", async () => {
    const { owner, member, outsider, serverId, channelId, voiceId } = await community(server, { voice: true });
    const m = await server.connect(member.token);
    const o = await server.connect(outsider.token);

    const refuse = async (socket: ClientSocket, payload: unknown, error: string) => {
      const err = waitForEvent(socket, "voice:error");
      expect(await socket.emitWithAck("voice:join", payload)).toEqual({ ok: false, error });
      expect(await err).toEqual({ error });
    };
    await refuse(m, { channelId }, "Not a voice channel");
    await refuse(m, { channelId: UNKNOWN }, "Channel not found");
    await refuse(m, { channelId: "nope" }, "channelId: must be a channel id");
    await refuse(o, { channelId: voiceId }, "You are not a member of this server");

    // @everyone loses CONNECT on the channel: the member cannot join, the owner still can.
    const everyone = (await server.app.store.access.member(serverId, owner.id))!.everyone_id;
    const put = await server.api("PUT", `/api/v1/channels/${voiceId}/permissions/${everyone}`, { token: owner.token, body: { allow: 0, deny: 8192 } });
    expect(put.status).toBe(200);
    await refuse(m, { channelId: voiceId }, "Missing permission: CONNECT");
    const ownerSocket = await server.connect(owner.token);
    expect((await ownerSocket.emitWithAck("voice:join", { channelId: voiceId })).ok).toBe(true);

    // A hidden channel exists but is forbidden: 403's message, not a missing one's.
    await server.api("PUT", `/api/v1/channels/${voiceId}/permissions/${everyone}`, { token: owner.token, body: { allow: 0, deny: 2048 } });
    await refuse(m, { channelId: voiceId }, "Missing permission: VIEW_CHANNEL");
    // Nothing to do without a voice channel.
    const err = waitForEvent(m, "voice:error");
    expect(await m.emitWithAck("voice:state", { muted: true })).toEqual({ ok: false, error: "You are not in a voice channel" });
    expect(await err).toEqual({ error: "You are not in a voice channel" });
    for (const s of [m, o, ownerSocket]) s.close();
  });

  test("one voice channel per user: joining another leaves the first", async () => {
    const { owner, member, serverId, voiceId } = await community(server, { voice: true });
    const other = await createVoiceChannel(server, owner, serverId, { name: "Other" });
    const watcher = await server.connect(owner.token);
    await watcher.emitWithAck("voice:join", { channelId: voiceId });
    const m = await server.connect(member.token);
    await m.emitWithAck("voice:join", { channelId: voiceId });
    const left = waitForEvent(watcher, "voice:user-left");
    const ack = await m.emitWithAck("voice:join", { channelId: other });
    expect(ack).toEqual({ ok: true, channelId: other, participants: [participant(m, member)] });
    expect(await left).toEqual({ socketId: m.id });
    expect(await roomSize(`voice:${voiceId}`)).toBe(1);
    expect(await roomSize(`voice:${other}`)).toBe(1);
    expect(server.app.domain.voice.rooms.ofUser(member.id)?.channelId).toBe(other);
    for (const s of [watcher, m]) s.close();
  });

  test("a second device kicks the first with voice:force-leave", async () => {
    const { owner, member, voiceId } = await community(server, { voice: true });
    const watcher = await server.connect(owner.token);
    await watcher.emitWithAck("voice:join", { channelId: voiceId });
    const first = await server.connect(member.token);
    await first.emitWithAck("voice:join", { channelId: voiceId });
    const second = await server.connect(member.token);
    const forced = waitForEvent(first, "voice:force-leave");
    const left = waitForEvent(watcher, "voice:user-left");
    const joined = waitForEvent(watcher, "voice:user-joined");
    const ack = await second.emitWithAck("voice:join", { channelId: voiceId });
    expect(ack.ok).toBe(true);
    expect(await forced).toEqual({ reason: "joined from another device", channelId: voiceId });
    expect(await left).toEqual({ socketId: first.id });
    expect((await joined).socketId).toBe(second.id);
    expect((await server.app.io.in(`voice:${voiceId}`).fetchSockets()).map((s) => s.id).sort()).toEqual([watcher.id!, second.id!].sort());
    // The first device is no longer in voice.
    expect(await first.emitWithAck("voice:state", { muted: true })).toEqual({ ok: false, error: "You are not in a voice channel" });
    for (const s of [watcher, first, second]) s.close();
  });

  test("closing the socket leaves the room, with VOICE_LEAVE", async () => {
    const { owner, member, serverId, voiceId } = await community(server, { voice: true });
    const watcher = await server.connect(owner.token);
    await watcher.emitWithAck("voice:join", { channelId: voiceId });
    const m = await server.connect(member.token);
    await m.emitWithAck("voice:join", { channelId: voiceId });
    const id = m.id;
    const left = waitForEvent(watcher, "voice:user-left");
    m.close();
    expect(await left).toEqual({ socketId: id });
    expect(server.app.domain.voice.rooms.ofUser(member.id)).toBeNull();
    await eventually(
      async () => (await auditLog(server, serverId, owner)).some((e) => e.action === "VOICE_LEAVE" && e.target_id === member.id),
      "the VOICE_LEAVE audit entry",
    );
    watcher.close();
  });
});

describe("voice:state / voice:speaking / voice:signal", () => {
  test("state and speaking reach the room only", async () => {
    const { owner, member, outsider, serverId, voiceId } = await community(server, { voice: true });
    const third = await server.register();
    await addMember(server, serverId, third);
    const a = await server.connect(owner.token);
    const b = await server.connect(member.token);
    const notInRoom = await server.connect(third.token);
    await notInRoom.emitWithAck("server:join", serverId);
    const stranger = await server.connect(outsider.token);
    await a.emitWithAck("voice:join", { channelId: voiceId });
    await b.emitWithAck("voice:join", { channelId: voiceId });
    const leaked = [...recordEvents(notInRoom, "voice:state-update"), ...recordEvents(notInRoom, "voice:speaking"), ...recordEvents(stranger, "voice:state-update")];

    const update = waitForEvent(a, "voice:state-update");
    const expected = { socketId: b.id, userId: member.id, muted: true, deafened: false, video: true };
    expect(await b.emitWithAck("voice:state", { muted: true, video: true })).toEqual({ ok: true, ...expected });
    expect(await update).toEqual(expected);

    // Muted: cannot be speaking.
    expect(await b.emitWithAck("voice:speaking", { speaking: true })).toEqual({ ok: false, error: "You are muted" });
    await b.emitWithAck("voice:state", { muted: false });
    const speaking = waitForEvent(a, "voice:speaking");
    expect(await b.emitWithAck("voice:speaking", { speaking: true })).toEqual({ ok: true, speaking: true });
    expect(await speaking).toEqual({ socketId: b.id, speaking: true });

    expect(await b.emitWithAck("voice:state", { muted: "yes" })).toEqual({ ok: false, error: "muted: must be a boolean" });
    await quietWindow(50);
    expect(leaked).toEqual([]);
    for (const s of [a, b, notInRoom, stranger]) s.close();
  });

  test("a member without SPEAK cannot be speaking", async () => {
    const { owner, member, serverId, voiceId } = await community(server, { voice: true });
    const everyone = (await server.app.store.access.member(serverId, owner.id))!.everyone_id;
    await server.api("PUT", `/api/v1/channels/${voiceId}/permissions/${everyone}`, { token: owner.token, body: { allow: 0, deny: 32768 } });
    const b = await server.connect(member.token);
    expect((await b.emitWithAck("voice:join", { channelId: voiceId })).ok).toBe(true);
    const err = waitForEvent(b, "voice:error");
    expect(await b.emitWithAck("voice:speaking", { speaking: true })).toEqual({ ok: false, error: "Missing permission: SPEAK" });
    expect(await err).toEqual({ error: "Missing permission: SPEAK" });
    b.close();
  });

  test("voice:signal reaches only the named peer in the same room", async () => {
    const { owner, member, serverId, voiceId } = await community(server, { voice: true });
    const third = await server.register();
    await addMember(server, serverId, third);
    const other = await createVoiceChannel(server, owner, serverId, { name: "Elsewhere" });
    const a = await server.connect(owner.token);
    const b = await server.connect(member.token);
    const c = await server.connect(third.token);
    await a.emitWithAck("voice:join", { channelId: voiceId });
    await b.emitWithAck("voice:join", { channelId: voiceId });
    const cSaw = recordEvents(c, "voice:signal");
    const aSaw = recordEvents(a, "voice:signal");

    // c is in the same room too for one check, then elsewhere.
    await c.emitWithAck("voice:join", { channelId: voiceId });
    const got = waitForEvent(b, "voice:signal");
    const sdp = { type: "offer", sdp: "v=0..." };
    expect(await a.emitWithAck("voice:signal", { to: b.id, signal: sdp, from: "spoofed" })).toEqual({ ok: true, to: b.id });
    expect(await got).toEqual({ signal: sdp, from: a.id, userId: owner.id });

    await c.emitWithAck("voice:join", { channelId: other });
    expect(await c.emitWithAck("voice:signal", { to: a.id, signal: sdp })).toEqual({ ok: false, error: "Peer in your voice channel not found" });
    expect(await a.emitWithAck("voice:signal", { to: c.id, signal: sdp })).toEqual({ ok: false, error: "Peer in your voice channel not found" });
    expect(await a.emitWithAck("voice:signal", { signal: sdp })).toEqual({ ok: false, error: "to: is required" });
    await quietWindow(50);
    expect(cSaw).toEqual([]);
    expect(aSaw).toEqual([]);
    for (const s of [a, b, c]) s.close();
  });
});

describe("bot:voice-query / bot:voice-participants", () => {
  test("answer by ack to members; refuse non-members", async () => {
    const { owner, member, outsider, serverId, channelId, voiceId } = await community(server, { voice: true });
    const a = await server.connect(owner.token);
    await a.emitWithAck("voice:join", { channelId: voiceId });
    const m = await server.connect(member.token);
    expect(await m.emitWithAck("bot:voice-query", { userId: owner.id, serverId })).toEqual({
      ok: true,
      channelId: voiceId,
      participant: participant(a, owner),
    });
    expect(await m.emitWithAck("bot:voice-query", { userId: member.id, serverId })).toEqual({ ok: true, channelId: null, participant: null });
    expect(await m.emitWithAck("bot:voice-participants", { channelId: voiceId })).toEqual({
      ok: true,
      channelId: voiceId,
      participants: [participant(a, owner)],
    });
    expect(await m.emitWithAck("bot:voice-participants", { channelId })).toEqual({ ok: false, error: "Not a voice channel" });
    const o = await server.connect(outsider.token);
    expect(await o.emitWithAck("bot:voice-query", { userId: owner.id, serverId })).toEqual({ ok: false, error: "You are not a member of this server" });
    expect(await o.emitWithAck("bot:voice-participants", { channelId: voiceId })).toEqual({ ok: false, error: "You are not a member of this server" });
    for (const s of [a, m, o]) s.close();
  });
});

describe("GET /api/v1/friends/voice-activity", () => {
  test("lists accepted friends in voice channels the caller can see", async () => {
    const { owner, member, outsider, serverId, voiceId } = await community(server, { voice: true });
    const befriend = async (a: TestUser, b: TestUser) => {
      expect((await server.api("POST", "/api/v1/friends/request", { token: a.token, body: { username: b.username } })).status).toBe(201);
      expect((await server.api("POST", `/api/v1/friends/accept/${a.id}`, { token: b.token })).status).toBe(200);
    };
    await befriend(member, owner);
    await befriend(member, outsider);
    const a = await server.connect(owner.token);
    await a.emitWithAck("voice:join", { channelId: voiceId });

    const seen = await server.api("GET", "/api/v1/friends/voice-activity", { token: member.token });
    expect(seen.status).toBe(200);
    expect(seen.body).toEqual([
      { user_id: owner.id, username: owner.username, avatar: null, channel_id: voiceId, channel_name: "Lounge", server_id: serverId, server_name: "Test Server" },
    ]);
    // A friend who is not in the server sees nothing of it.
    expect((await server.api("GET", "/api/v1/friends/voice-activity", { token: outsider.token })).body).toEqual([]);
    // Not friends: nothing.
    const third = await server.register();
    expect((await server.api("GET", "/api/v1/friends/voice-activity", { token: third.token })).body).toEqual([]);
    expect((await server.api("GET", "/api/v1/friends/voice-activity")).status).toBe(401);
    a.close();
  });
});

describe("leaving voice when access goes", () => {
  test("kick, leaving the server, losing CONNECT and channel deletion take members out", async () => {
    const { owner, member, serverId, voiceId } = await community(server, { voice: true });
    const watcher = await server.connect(owner.token);
    await watcher.emitWithAck("voice:join", { channelId: voiceId });

    // Kick.
    const m = await server.connect(member.token);
    await m.emitWithAck("voice:join", { channelId: voiceId });
    const forced = waitForEvent(m, "voice:force-disconnect");
    const left = waitForEvent(watcher, "voice:user-left");
    expect((await server.api("DELETE", `/api/v1/servers/${serverId}/members/${member.id}`, { token: owner.token })).status).toBe(200);
    expect(await forced).toEqual({ reason: "You are no longer a member of this server", channelId: voiceId });
    expect(await left).toEqual({ socketId: m.id });
    expect(await roomSize(`voice:${voiceId}`)).toBe(1);

    // Leaving the server.
    const leaver = await server.register();
    await addMember(server, serverId, leaver);
    const l = await server.connect(leaver.token);
    await l.emitWithAck("voice:join", { channelId: voiceId });
    const leaverOut = waitForEvent(watcher, "voice:user-left");
    expect((await server.api("DELETE", `/api/v1/servers/${serverId}/leave`, { token: leaver.token })).status).toBe(200);
    expect(await leaverOut).toEqual({ socketId: l.id });
    expect(server.app.domain.voice.rooms.ofUser(leaver.id)).toBeNull();

    // Losing CONNECT.
    const third = await server.register();
    await addMember(server, serverId, third);
    const t = await server.connect(third.token);
    await t.emitWithAck("voice:join", { channelId: voiceId });
    const lost = waitForEvent(t, "voice:force-disconnect");
    const everyone = (await server.app.store.access.member(serverId, owner.id))!.everyone_id;
    await server.api("PUT", `/api/v1/channels/${voiceId}/permissions/${everyone}`, { token: owner.token, body: { allow: 0, deny: 8192 } });
    expect(await lost).toEqual({ reason: "You can no longer connect to this voice channel", channelId: voiceId });
    expect(server.app.domain.voice.rooms.ofUser(third.id)).toBeNull();

    // Channel deletion.
    const gone = waitForEvent(watcher, "voice:force-disconnect");
    expect((await server.api("DELETE", `/api/v1/channels/${voiceId}`, { token: owner.token })).status).toBe(200);
    expect(await gone).toEqual({ reason: "The voice channel was deleted", channelId: voiceId });
    expect(await roomSize(`voice:${voiceId}`)).toBe(0);
    expect(server.app.domain.voice.rooms.inChannel(voiceId)).toEqual([]);
    for (const s of [watcher, m, l, t]) s.close();
  });
});

describe("server deletion", () => {
  test("deleting the server takes everyone out of its voice rooms", async () => {
    const { owner, member, serverId, voiceId } = await community(server, { voice: true });
    const socket = await server.connect(member.token);
    expect((await socket.emitWithAck("voice:join", { channelId: voiceId })).ok).toBe(true);
    const gone = waitForEvent(socket, "voice:force-disconnect");
    expect((await server.api("DELETE", `/api/v1/servers/${serverId}`, { token: owner.token })).status).toBe(200);
    expect(await gone).toEqual({ reason: "The voice channel was deleted", channelId: voiceId });
    expect(server.app.domain.voice.rooms.ofUser(member.id)).toBeNull();
    expect(await roomSize(`voice:${voiceId}`)).toBe(0);
    socket.close();
  });
});
