import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addMember, community, createVoiceChannel } from "../helpers/community.ts";
import { recordEvents, startServer, waitForEvent, type ClientSocket, type TestServer, type TestUser } from "../helpers/server.ts";
import { quietWindow } from "../helpers/wait.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

/** The shared community with a moderator and a meeting channel (`meetingId`). */
async function meeting() {
  const c = await community(server, { moderator: true, voice: { name: "Town hall", is_meeting: true } });
  return { ...c, meetingId: c.voiceId };
}

const join = async (user: TestUser, channelId: string) => {
  const socket = await server.connect(user.token);
  const ack = await socket.emitWithAck("voice:join", { channelId });
  expect(ack.ok).toBe(true);
  return socket;
};

describe("meetings", () => {
  test("joiners start as audience and muted; audience cannot unmute or speak", async () => {
    const { owner, member, meetingId } = await meeting();
    const o = await join(owner, meetingId);
    const joined = waitForEvent(o, "voice:user-joined");
    const m = await server.connect(member.token);
    const ack = await m.emitWithAck("voice:join", { channelId: meetingId });
    const expected = {
      socketId: m.id,
      userId: member.id,
      username: member.username,
      isBot: false,
      muted: true,
      deafened: false,
      video: false,
      serverMuted: false,
      serverDeafened: false,
      speaking: false,
      meetingRole: "audience",
      handRaised: false,
      listening: false,
    };
    expect(await joined).toEqual(expected);
    expect(ack.participants[1]).toEqual(expected);
    expect(ack.participants[0]).toMatchObject({ userId: owner.id, meetingRole: "audience", muted: true });

    const err = waitForEvent(m, "voice:error");
    const refusal = "Audience members cannot unmute in a meeting; raise your hand to speak";
    expect(await m.emitWithAck("voice:state", { muted: false })).toEqual({ ok: false, error: refusal });
    expect(await err).toEqual({ error: refusal });
    expect(await m.emitWithAck("voice:speaking", { speaking: true })).toEqual({ ok: false, error: "Audience members cannot speak in a meeting" });
    // Other flags are fine.
    expect((await m.emitWithAck("voice:state", { video: true })).ok).toBe(true);
    for (const s of [o, m]) s.close();
  });

  test("raise hand, promotion by a moderator, demotion mutes; meeting-update each time", async () => {
    const { owner, member, moderator, serverId, meetingId } = await meeting();
    const mod = await join(moderator, meetingId);
    const m = await join(member, meetingId);
    const outside = await server.connect(owner.token);
    await outside.emitWithAck("server:join", serverId);
    const leaked = recordEvents(outside, "voice:meeting-update");

    const raised = waitForEvent(mod, "voice:meeting-update");
    const handUp = { socketId: m.id, userId: member.id, meetingRole: "audience", handRaised: true };
    expect(await m.emitWithAck("voice:raise-hand", { channelId: meetingId })).toEqual({ ok: true, ...handUp });
    expect(await raised).toEqual(handUp);

    // A plain member cannot set roles.
    const err = waitForEvent(m, "voice:error");
    expect(await m.emitWithAck("voice:set-meeting-role", { channelId: meetingId, userId: member.id, role: "speaker" })).toEqual({
      ok: false,
      error: "Missing permission: MUTE_MEMBERS",
    });
    expect(await err).toEqual({ error: "Missing permission: MUTE_MEMBERS" });

    const promoted = waitForEvent(m, "voice:meeting-update");
    const speaker = { socketId: m.id, userId: member.id, meetingRole: "speaker", handRaised: false };
    expect(await mod.emitWithAck("voice:set-meeting-role", { channelId: meetingId, userId: member.id, role: "speaker" })).toEqual({ ok: true, ...speaker });
    expect(await promoted).toEqual(speaker);

    // A speaker may unmute and speak.
    expect((await m.emitWithAck("voice:state", { muted: false })).ok).toBe(true);
    expect(await m.emitWithAck("voice:speaking", { speaking: true })).toEqual({ ok: true, speaking: true });
    const p = server.app.domain.voice.rooms.ofUser(member.id)!;
    expect(await server.app.domain.voice.speakError(p)).toBeNull();

    const demoted = waitForEvent(mod, "voice:meeting-update");
    const muted = waitForEvent(mod, "voice:state-update");
    expect((await mod.emitWithAck("voice:set-meeting-role", { channelId: meetingId, userId: member.id, role: "audience" })).ok).toBe(true);
    expect(await demoted).toEqual({ socketId: m.id, userId: member.id, meetingRole: "audience", handRaised: false });
    expect(await muted).toEqual({ socketId: m.id, userId: member.id, muted: true, deafened: false, video: false });
    expect(await server.app.domain.voice.speakError(p)).toBe("Audience members cannot speak in a meeting");

    // A moderator cannot demote the owner.
    const o = await join(owner, meetingId);
    await mod.emitWithAck("voice:set-meeting-role", { channelId: meetingId, userId: owner.id, role: "speaker" });
    expect(await mod.emitWithAck("voice:set-meeting-role", { channelId: meetingId, userId: owner.id, role: "audience" })).toEqual({
      ok: false,
      error: "You cannot act on a member ranked at or above you",
    });
    expect(await mod.emitWithAck("voice:set-meeting-role", { channelId: meetingId, userId: member.id, role: "host" })).toEqual({
      ok: false,
      error: "role: must be audience or speaker",
    });
    await quietWindow(50);
    expect(leaked).toEqual([]);
    for (const s of [mod, m, outside, o]) s.close();
  });

  test("lower own hand, or another's with MUTE_MEMBERS", async () => {
    const { owner, member, moderator, serverId, meetingId } = await meeting();
    const other = await server.register();
    await addMember(server, serverId, other);
    const m = await join(member, meetingId);
    const x = await join(other, meetingId);
    const mod = await join(moderator, meetingId);
    await m.emitWithAck("voice:raise-hand", { channelId: meetingId });
    await x.emitWithAck("voice:raise-hand", { channelId: meetingId });

    expect(await x.emitWithAck("voice:lower-hand", { channelId: meetingId, targetUserId: member.id })).toEqual({
      ok: false,
      error: "Missing permission: MUTE_MEMBERS",
    });
    const own = waitForEvent(m, "voice:meeting-update");
    expect(await x.emitWithAck("voice:lower-hand", { channelId: meetingId })).toMatchObject({ ok: true, userId: other.id, handRaised: false });
    expect(await own).toEqual({ socketId: x.id, userId: other.id, meetingRole: "audience", handRaised: false });

    const lowered = waitForEvent(x, "voice:meeting-update");
    expect(await mod.emitWithAck("voice:lower-hand", { channelId: meetingId, targetUserId: member.id })).toMatchObject({ ok: true, handRaised: false });
    expect(await lowered).toEqual({ socketId: m.id, userId: member.id, meetingRole: "audience", handRaised: false });
    void owner;
    for (const s of [m, x, mod]) s.close();
  });

  test("raise-hand needs SPEAK, a meeting, and being in it", async () => {
    const { owner, member, serverId, meetingId } = await meeting();
    const m = await join(member, meetingId);
    const everyone = (await server.app.store.access.member(serverId, owner.id))!.everyone_id;
    await server.api("PUT", `/api/v1/channels/${meetingId}/permissions/${everyone}`, { token: owner.token, body: { allow: 0, deny: 32768 } });
    const err = waitForEvent(m, "voice:error");
    expect(await m.emitWithAck("voice:raise-hand", { channelId: meetingId })).toEqual({ ok: false, error: "Missing permission: SPEAK" });
    expect(await err).toEqual({ error: "Missing permission: SPEAK" });

    const plain = await createVoiceChannel(server, owner, serverId, { name: "Plain" });
    const o = await join(owner, plain);
    expect(await o.emitWithAck("voice:raise-hand", { channelId: plain })).toEqual({ ok: false, error: "Not a meeting channel" });
    expect(await o.emitWithAck("voice:raise-hand", { channelId: meetingId })).toEqual({ ok: false, error: "You are not in this meeting" });
    // Outside a meeting, the participant's meeting fields are null/false.
    expect(server.app.domain.voice.rooms.ofUser(owner.id)).toMatchObject({ meetingRole: null, handRaised: false, muted: false });
    for (const s of [m, o] as ClientSocket[]) s.close();
  });
});
