import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addMember, auditLog, community, createServer, createVoiceChannel } from "../helpers/community.ts";
import { recordEvents, startServer, waitForEvent, type TestServer, type TestUser } from "../helpers/server.ts";
import { quietWindow } from "../helpers/wait.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const join = async (user: TestUser, channelId: string) => {
  const socket = await server.connect(user.token);
  expect((await socket.emitWithAck("voice:join", { channelId })).ok).toBe(true);
  return socket;
};

/** The voice moderation entries of the audit log, newest first (joins and leaves left out). */
const voiceAudit = async (owner: TestUser, serverId: string) =>
  (await auditLog(server, serverId, owner)).filter((e) => e.action.startsWith("VOICE_") && e.action !== "VOICE_JOIN" && e.action !== "VOICE_LEAVE");

describe("voice:server-mute / voice:server-deafen", () => {
  test("moderators mute and deafen members; the room hears it; audited", async () => {
    const { owner, member, moderator, serverId, voiceId } = await community(server, { voice: true, moderator: true });
    const mod = await join(moderator, voiceId);
    const m = await join(member, voiceId);
    const outside = await server.connect(owner.token);
    await outside.emitWithAck("server:join", serverId);
    const leaked = [...recordEvents(outside, "voice:admin-mute-update"), ...recordEvents(outside, "voice:admin-deafen-update")];

    const muted = waitForEvent(m, "voice:admin-mute-update");
    const payload = { socketId: m.id, userId: member.id, serverMuted: true };
    expect(await mod.emitWithAck("voice:server-mute", { userId: member.id, muted: true })).toEqual({ ok: true, ...payload });
    expect(await muted).toEqual(payload);
    expect(await m.emitWithAck("voice:speaking", { speaking: true })).toEqual({ ok: false, error: "You are server muted" });

    const deaf = waitForEvent(mod, "voice:admin-deafen-update");
    expect(await mod.emitWithAck("voice:server-deafen", { userId: member.id, deafened: true })).toEqual({
      ok: true,
      socketId: m.id,
      userId: member.id,
      serverDeafened: true,
    });
    expect(await deaf).toEqual({ socketId: m.id, userId: member.id, serverDeafened: true });

    // Persist across a channel switch in the same server.
    const other = await createVoiceChannel(server, owner, serverId, { name: "Elsewhere" });
    const ack = await m.emitWithAck("voice:join", { channelId: other });
    expect(ack.participants[0]).toMatchObject({ serverMuted: true, serverDeafened: true });

    expect((await mod.emitWithAck("voice:server-mute", { userId: member.id, muted: false })).serverMuted).toBe(false);
    expect((await mod.emitWithAck("voice:server-deafen", { userId: member.id, deafened: false })).serverDeafened).toBe(false);

    const entries = await voiceAudit(owner, serverId);
    expect(entries.map((e) => [e.action, e.actor_id, e.target_id])).toEqual([
      ["VOICE_SERVER_UNDEAFEN", moderator.id, member.id],
      ["VOICE_SERVER_UNMUTE", moderator.id, member.id],
      ["VOICE_SERVER_DEAFEN", moderator.id, member.id],
      ["VOICE_SERVER_MUTE", moderator.id, member.id],
    ]);
    await quietWindow(50);
    expect(leaked).toEqual([]);
    for (const s of [mod, m, outside]) s.close();
  });

  test("refusals: no MUTE_MEMBERS, acting on the owner, target not in voice", async () => {
    const { owner, member, moderator, voiceId } = await community(server, { voice: true, moderator: true });
    const m = await join(member, voiceId);
    const o = await join(owner, voiceId);
    const mod = await server.connect(moderator.token);

    const err = waitForEvent(m, "voice:error");
    expect(await m.emitWithAck("voice:server-mute", { userId: owner.id, muted: true })).toEqual({ ok: false, error: "Missing permission: MUTE_MEMBERS" });
    expect(await err).toEqual({ error: "Missing permission: MUTE_MEMBERS" });
    expect(await m.emitWithAck("voice:server-deafen", { userId: owner.id, deafened: true })).toEqual({ ok: false, error: "Missing permission: DEAFEN_MEMBERS" });
    expect(await m.emitWithAck("voice:disconnect", { userId: owner.id })).toEqual({ ok: false, error: "Missing permission: MOVE_MEMBERS" });
    const ownerRank = { ok: false, error: "You cannot act on a member ranked at or above you" };
    expect(await mod.emitWithAck("voice:server-mute", { userId: owner.id, muted: true })).toEqual(ownerRank);
    expect(await mod.emitWithAck("voice:disconnect", { userId: owner.id })).toEqual(ownerRank);
    expect(await mod.emitWithAck("voice:server-mute", { userId: moderator.id, muted: true })).toEqual({ ok: false, error: "Member in voice not found" });
    expect(await mod.emitWithAck("voice:server-mute", { userId: member.id })).toEqual({ ok: false, error: "muted: is required" });
    expect(server.app.domain.voice.rooms.ofUser(owner.id)?.serverMuted).toBe(false);
    for (const s of [m, o, mod]) s.close();
  });
});

describe("timeouts", () => {
  test("a member timed out in voice is disconnected, cannot join or speak until it is lifted", async () => {
    const { owner, member, serverId, voiceId } = await community(server, { voice: true, moderator: true });
    const m = await join(member, voiceId);
    const o = await join(owner, voiceId);
    expect((await m.emitWithAck("voice:speaking", { speaking: true })).ok).toBe(true);
    const forced = waitForEvent(m, "voice:force-disconnect");
    const left = waitForEvent(o, "voice:user-left");
    const res = await server.api("POST", `/api/v1/servers/${serverId}/timeouts`, { token: owner.token, body: { targetUserId: member.id, duration: 600 } });
    expect(res.status).toBe(200);
    expect(await forced).toEqual({ reason: "You are timed out in this server", channelId: voiceId });
    expect(await left).toEqual({ socketId: m.id });
    expect(server.app.domain.voice.rooms.ofUser(member.id)).toBeNull();
    const leaves = (await auditLog(server, serverId, owner)).filter((e) => e.action === "VOICE_LEAVE" && e.actor_id === member.id);
    expect(leaves.length).toBe(1);

    const timedOut = { ok: false, error: "You are timed out in this server" };
    const err = waitForEvent(m, "voice:error");
    expect(await m.emitWithAck("voice:join", { channelId: voiceId })).toEqual(timedOut);
    expect(await err).toEqual({ error: "You are timed out in this server" });
    expect(await m.emitWithAck("voice:speaking", { speaking: true })).toEqual({ ok: false, error: "You are not in a voice channel" });

    expect((await server.api("DELETE", `/api/v1/servers/${serverId}/timeouts/${member.id}`, { token: owner.token })).status).toBe(200);
    expect((await m.emitWithAck("voice:join", { channelId: voiceId })).ok).toBe(true);
    expect(await m.emitWithAck("voice:speaking", { speaking: true })).toEqual({ ok: true, speaking: true });
    for (const s of [m, o]) s.close();
  });
});

describe("server mute and deafen are kept", () => {
  test("leaving and joining again keeps them until a moderator lifts them; another server's are apart", async () => {
    const { owner, member, moderator, serverId, voiceId } = await community(server, { voice: true, moderator: true });
    const mod = await join(moderator, voiceId);
    let m = await join(member, voiceId);
    expect((await mod.emitWithAck("voice:server-mute", { userId: member.id, muted: true })).ok).toBe(true);
    expect((await mod.emitWithAck("voice:server-deafen", { userId: member.id, deafened: true })).ok).toBe(true);

    // Leave and join again, then from a new socket: still muted and deafened.
    expect(await m.emitWithAck("voice:leave")).toEqual({ ok: true, channelId: voiceId });
    const back = await m.emitWithAck("voice:join", { channelId: voiceId });
    const self = back.participants.find((p: { userId: string }) => p.userId === member.id);
    expect(self).toMatchObject({ serverMuted: true, serverDeafened: true });
    expect(await m.emitWithAck("voice:speaking", { speaking: true })).toEqual({ ok: false, error: "You are server muted" });
    m.close();
    const seen = waitForEvent(mod, "voice:user-joined");
    m = await join(member, voiceId);
    expect(await seen).toMatchObject({ userId: member.id, serverMuted: true, serverDeafened: true });

    // Another server's voice: not muted there.
    const otherServer = await createServer(server, owner);
    await addMember(server, otherServer, member);
    const otherVoice = await createVoiceChannel(server, owner, otherServer);
    const there = await m.emitWithAck("voice:join", { channelId: otherVoice });
    expect(there.participants.find((p: { userId: string }) => p.userId === member.id)).toMatchObject({ serverMuted: false, serverDeafened: false });

    // Lifted by a moderator: gone on the next join too.
    expect((await m.emitWithAck("voice:join", { channelId: voiceId })).ok).toBe(true);
    expect((await mod.emitWithAck("voice:server-mute", { userId: member.id, muted: false })).ok).toBe(true);
    expect((await mod.emitWithAck("voice:server-deafen", { userId: member.id, deafened: false })).ok).toBe(true);
    await m.emitWithAck("voice:leave");
    const again = await m.emitWithAck("voice:join", { channelId: voiceId });
    expect(again.participants.find((p: { userId: string }) => p.userId === member.id)).toMatchObject({ serverMuted: false, serverDeafened: false });
    expect(await m.emitWithAck("voice:speaking", { speaking: true })).toEqual({ ok: true, speaking: true });
    expect(await server.app.store.moderation.voiceModeration(serverId, member.id)).toEqual({ server_muted: 0, server_deafened: 0 });
    for (const s of [m, mod]) s.close();
  });
});

describe("voice:move / voice:disconnect", () => {
  test("move: force-move to the target, leave + join events, VOICE_MOVE", async () => {
    const { owner, member, moderator, serverId, voiceId } = await community(server, { voice: true, moderator: true });
    const otherId = await createVoiceChannel(server, owner, serverId, { name: "Side room" });
    const mod = await join(moderator, voiceId);
    const m = await join(member, voiceId);
    const o = await join(owner, otherId);

    const forced = waitForEvent(m, "voice:force-move");
    const left = waitForEvent(mod, "voice:user-left");
    const arrived = waitForEvent(o, "voice:user-joined");
    const existing = waitForEvent(m, "voice:existing");
    expect(await mod.emitWithAck("voice:move", { userId: member.id, channelId: otherId })).toEqual({ ok: true, userId: member.id, channelId: otherId });
    expect(await forced).toEqual({ channelId: otherId, fromChannelId: voiceId });
    expect(await left).toEqual({ socketId: m.id });
    expect((await arrived).userId).toBe(member.id);
    expect((await existing).map((p: any) => p.userId)).toEqual([owner.id]);
    expect(server.app.domain.voice.rooms.ofUser(member.id)?.channelId).toBe(otherId);
    expect((await server.app.io.in(`voice:${otherId}`).fetchSockets()).map((s) => s.id).sort()).toEqual([m.id!, o.id!].sort());

    // Refusals: a text channel, another server's channel, no MOVE_MEMBERS, acting on the owner.
    const [general] = await server.app.store.channels.listByServer(serverId);
    expect(await mod.emitWithAck("voice:move", { userId: member.id, channelId: general!.id })).toEqual({ ok: false, error: "Not a voice channel" });
    expect(await m.emitWithAck("voice:move", { userId: owner.id, channelId: voiceId })).toEqual({ ok: false, error: "Missing permission: MOVE_MEMBERS" });
    expect(await mod.emitWithAck("voice:move", { userId: owner.id, channelId: voiceId })).toEqual({ ok: false, error: "You cannot act on a member ranked at or above you" });
    const elsewhere = await createServer(server, owner, "Elsewhere");
    const foreign = await createVoiceChannel(server, owner, elsewhere, { name: "Foreign" });
    expect(await o.emitWithAck("voice:move", { userId: member.id, channelId: foreign })).toEqual({
      ok: false,
      error: "channelId: must be a voice channel of the same server",
    });

    const entries = await voiceAudit(owner, serverId);
    expect(entries.map((e) => [e.action, e.actor_id, e.target_id, e.changes])).toEqual([
      ["VOICE_MOVE", moderator.id, member.id, { fromChannelId: voiceId, toChannelId: otherId }],
    ]);
    for (const s of [mod, m, o]) s.close();
  });

  test("disconnect: force-disconnect to the target, removed from the room, VOICE_DISCONNECT", async () => {
    const { owner, member, moderator, serverId, voiceId } = await community(server, { voice: true, moderator: true });
    const mod = await join(moderator, voiceId);
    const m = await join(member, voiceId);
    const forced = waitForEvent(m, "voice:force-disconnect");
    const left = waitForEvent(mod, "voice:user-left");
    expect(await mod.emitWithAck("voice:disconnect", { userId: member.id })).toEqual({ ok: true, userId: member.id, channelId: voiceId });
    expect(await forced).toEqual({ reason: "Disconnected by a moderator", channelId: voiceId });
    expect(await left).toEqual({ socketId: m.id });
    expect(server.app.domain.voice.rooms.ofUser(member.id)).toBeNull();
    expect((await server.app.io.in(`voice:${voiceId}`).fetchSockets()).map((s) => s.id)).toEqual([mod.id!]);
    // The socket itself stays connected and may join again.
    expect(m.connected).toBe(true);
    expect((await m.emitWithAck("voice:join", { channelId: voiceId })).ok).toBe(true);

    const entries = await voiceAudit(owner, serverId);
    expect(entries.map((e) => [e.action, e.actor_id, e.target_id])).toEqual([["VOICE_DISCONNECT", moderator.id, member.id]]);
    for (const s of [mod, m]) s.close();
  });
});
