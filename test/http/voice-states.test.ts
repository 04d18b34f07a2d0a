import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PERMISSIONS as P } from "../../src/domain/access/permission-bits.ts";
import { VOICE_UPDATE_INTERVAL_MS } from "../../src/domain/voice/voice-occupants.ts";
import { community, createVoiceChannel } from "../helpers/community.ts";
import { expectError, recordEvents, startServer, waitForEvent, type ClientSocket, type TestServer, type TestUser } from "../helpers/server.ts";
import { eventually, letTimePass, quietWindow } from "../helpers/wait.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";

const occupant = (user: TestUser, extra: Record<string, unknown> = {}) => ({
  user_id: user.id,
  username: user.username,
  avatar: null,
  muted: false,
  deafened: false,
  server_muted: false,
  server_deafened: false,
  speaking: false,
  video: false,
  meeting_role: null,
  ...extra,
});

/** Waits until `check`'s expectations hold (eventually wants a truthy answer; an expect gives none). */
const holds = (check: () => unknown, what: string) =>
  eventually(async () => {
    await check();
    return true;
  }, what);

const states = (serverId: string, viewer: { token: string }) => server.api("GET", `/api/v1/servers/${serverId}/voice-states`, { token: viewer.token });

/** A socket of `user` in the server's room, outside every voice room. */
async function watcher(user: TestUser, serverId: string): Promise<ClientSocket> {
  const socket = await server.connect(user.token);
  expect(await socket.emitWithAck("server:join", serverId)).toEqual({ ok: true, serverId });
  return socket;
}

async function joinVoice(user: TestUser, channelId: string): Promise<ClientSocket> {
  const socket = await server.connect(user.token);
  expect((await socket.emitWithAck("voice:join", { channelId })).ok).toBe(true);
  return socket;
}

describe("GET /api/v1/servers/:id/voice-states and voice:channel-update", () => {
  test("someone outside the channel sees a member join, mute and leave", async () => {
    const { owner, member, serverId, voiceId } = await community(server, { voice: true });
    const outside = await watcher(member, serverId);
    expect(await states(serverId, member)).toMatchObject({ status: 200, body: [] });

    const joined = waitForEvent(outside, "voice:channel-update");
    const voice = await joinVoice(owner, voiceId);
    const room = { channel_id: voiceId, occupants: [occupant(owner)], audience_count: 0 };
    expect(await joined).toEqual({ server_id: serverId, ...room });
    expect(await states(serverId, member)).toMatchObject({ status: 200, body: [room] });

    const muted = waitForEvent(outside, "voice:channel-update");
    expect((await voice.emitWithAck("voice:state", { muted: true, deafened: true })).ok).toBe(true);
    const mutedRoom = { channel_id: voiceId, occupants: [occupant(owner, { muted: true, deafened: true })], audience_count: 0 };
    expect(await muted).toEqual({ server_id: serverId, ...mutedRoom });
    await holds(async () => expect((await states(serverId, member)).body).toEqual([mutedRoom]), "the voice state");

    const left = waitForEvent(outside, "voice:channel-update");
    expect(await voice.emitWithAck("voice:leave")).toEqual({ ok: true, channelId: voiceId });
    expect(await left).toEqual({ server_id: serverId, channel_id: voiceId, occupants: [], audience_count: 0 });
    await holds(async () => expect((await states(serverId, member)).body).toEqual([]), "the voice state");
    voice.close();
    outside.close();
  });

  test("a server mute and a disconnect reach the channel list", async () => {
    const { owner, member, serverId, voiceId } = await community(server, { voice: true });
    const outside = await watcher(owner, serverId);
    const seen = recordEvents(outside, "voice:channel-update");
    const voice = await joinVoice(member, voiceId);
    await holds(() => expect(seen.length).toBe(1), "the voice state");
    expect((await outside.emitWithAck("voice:server-mute", { userId: member.id, muted: true })).ok).toBe(true);
    await holds(() => expect(seen.at(-1)!.occupants).toEqual([occupant(member, { server_muted: true })]), "the voice state");
    voice.close();
    await holds(() => expect(seen.at(-1)!.occupants).toEqual([]), "the voice state");
    await holds(async () => expect((await states(serverId, owner)).body).toEqual([]), "the voice state");
    outside.close();
  });

  test("401 without a token, 403 for a non-member, 404 for an unknown server", async () => {
    const { outsider, serverId } = await community(server, { voice: true });
    expectError(await server.api("GET", `/api/v1/servers/${serverId}/voice-states`), 401);
    expectError(await states(serverId, outsider), 403, "You are not a member of this server");
    expectError(await states(UNKNOWN, outsider), 404, "Server not found");
    expectError(await states("not-a-server", outsider), 404, "Server not found");
  });

  test("a private voice channel is hidden from members without VIEW_CHANNEL, in the answer and the events", async () => {
    const { owner, member, serverId, everyone, voiceId } = await community(server, { voice: true });
    const hiddenId = await createVoiceChannel(server, owner, serverId, { name: "Staff" });
    const denied = await server.api("PUT", `/api/v1/channels/${hiddenId}/permissions/${everyone}`, { token: owner.token, body: { allow: 0, deny: P.VIEW_CHANNEL } });
    expect(denied.status).toBe(200);
    const memberSees = await watcher(member, serverId);
    const ownerSees = await watcher(owner, serverId);
    const memberSaw = recordEvents(memberSees, "voice:channel-update");
    const ownerSaw = recordEvents(ownerSees, "voice:channel-update");

    const inHidden = await joinVoice(owner, hiddenId);
    await holds(() => expect(ownerSaw.map((e) => e.channel_id)).toEqual([hiddenId]), "the voice state");
    const inOpen = await joinVoice(member, voiceId);
    await holds(() => expect(memberSaw.map((e) => e.channel_id)).toEqual([voiceId]), "the voice state");

    // Listed in the server's channel order: the open Lounge, then Staff.
    expect((await states(serverId, owner)).body.map((s: { channel_id: string }) => s.channel_id)).toEqual([voiceId, hiddenId]);
    expect(await states(serverId, member)).toMatchObject({ status: 200, body: [{ channel_id: voiceId, occupants: [occupant(member)], audience_count: 0 }] });

    expect((await inHidden.emitWithAck("voice:state", { muted: true })).ok).toBe(true);
    await holds(() => expect(ownerSaw.filter((e) => e.channel_id === hiddenId)).toHaveLength(2), "the voice state");
    await quietWindow(100);
    expect(memberSaw.map((e) => e.channel_id)).toEqual([voiceId]);
    for (const socket of [inHidden, inOpen, memberSees, ownerSees]) socket.close();
  });

  test("a meeting lists its speakers and counts its audience", async () => {
    const { owner, member, moderator, serverId, voiceId } = await community(server, { moderator: true, voice: { name: "Town hall", is_meeting: true } });
    const outside = await watcher(member, serverId);
    const seen = recordEvents(outside, "voice:channel-update");
    const sockets = [await joinVoice(owner, voiceId), await joinVoice(moderator, voiceId)];
    await holds(async () => expect((await states(serverId, member)).body).toEqual([{ channel_id: voiceId, occupants: [], audience_count: 2 }]), "the voice state");

    expect((await sockets[1]!.emitWithAck("voice:set-meeting-role", { channelId: voiceId, userId: owner.id, role: "speaker" })).ok).toBe(true);
    const staged = { channel_id: voiceId, occupants: [occupant(owner, { muted: true, meeting_role: "speaker" })], audience_count: 1 };
    await holds(() => expect(seen.at(-1)).toEqual({ server_id: serverId, ...staged }), "the voice state");
    expect((await states(serverId, member)).body).toEqual([staged]);

    // A raised hand changes nothing the channel list shows: no update for it.
    await letTimePass(VOICE_UPDATE_INTERVAL_MS + 50, "the room's update window ends, so a new update would go at once");
    const before = seen.length;
    expect((await sockets[1]!.emitWithAck("voice:raise-hand", { channelId: voiceId })).ok).toBe(true);
    await quietWindow(VOICE_UPDATE_INTERVAL_MS + 50);
    expect(seen.length).toBe(before);
    for (const socket of [...sockets, outside]) socket.close();
  });

  test("speaking is coalesced per room: a burst gives few updates and the last state wins", async () => {
    const { owner, member, serverId, voiceId } = await community(server, { voice: true });
    const outside = await watcher(member, serverId);
    const seen = recordEvents(outside, "voice:channel-update");
    const voice = await joinVoice(owner, voiceId);
    await holds(() => expect(seen).toHaveLength(1), "the voice state");
    await letTimePass(VOICE_UPDATE_INTERVAL_MS + 50, "the join's update window ends");

    const toggles = 21;
    for (let i = 0; i < toggles; i++) expect((await voice.emitWithAck("voice:speaking", { speaking: i % 2 === 0 })).ok).toBe(true);
    await holds(() => expect(seen.at(-1)!.occupants).toEqual([occupant(owner, { speaking: true })]), "the voice state");
    await quietWindow(VOICE_UPDATE_INTERVAL_MS + 50);
    const burst = seen.slice(1);
    // The first toggle at once, then at most one trailing update per window while the burst lasts.
    expect(burst.length).toBeGreaterThanOrEqual(1);
    expect(burst.length).toBeLessThan(6);
    expect(burst.at(-1)!.occupants[0].speaking).toBe(true);
    expect((await states(serverId, member)).body[0].occupants[0].speaking).toBe(true);
    voice.close();
    outside.close();
  });
});
