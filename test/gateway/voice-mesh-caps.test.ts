/**
 * Issue 47 point 3: while people's audio goes peer to peer (no media server), a voice room holds
 * at most VOICE_MESH_MAX_PUBLISHERS people (8 by default), a meeting at most that many speakers
 * and VOICE_MESH_MAX_AUDIENCE audience members (16 by default); a join, promotion or move past a
 * cap is refused with `voice:error` naming the setting. Bots (their audio goes through Hearth's
 * relay) never count.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { community, createVoiceChannel } from "../helpers/community.ts";
import { startServer, waitForEvent, type ClientSocket, type TestServer, type TestUser } from "../helpers/server.ts";

const ROOM_FULL = (n: number) => `This voice room is full: at most ${n} people talk in one room (VOICE_MESH_MAX_PUBLISHERS)`;
const SPEAKERS_FULL = (n: number) => `This meeting has its most speakers: at most ${n} (VOICE_MESH_MAX_PUBLISHERS)`;
const AUDIENCE_FULL = (n: number) => `This meeting is full: at most ${n} people listen in the audience (VOICE_MESH_MAX_AUDIENCE)`;

async function joined(server: TestServer, token: string, channelId: string): Promise<ClientSocket> {
  const socket = await server.connect(token);
  const ack = await socket.emitWithAck("voice:join", { channelId });
  expect(ack).toMatchObject({ ok: true });
  return socket;
}

/** A join refused with `error`, as the ack and as `voice:error`. */
async function refused(server: TestServer, token: string, channelId: string, error: string): Promise<ClientSocket> {
  const socket = await server.connect(token);
  const event = waitForEvent(socket, "voice:error");
  expect(await socket.emitWithAck("voice:join", { channelId })).toEqual({ ok: false, error });
  expect(await event).toEqual({ error });
  return socket;
}

describe("the defaults", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.stop());

  test("the 9th person in a voice room is refused naming VOICE_MESH_MAX_PUBLISHERS; a bot still joins; a place that frees is taken", async () => {
    const c = await community(server, { voice: true, extraMembers: 7, bot: true });
    const people: TestUser[] = [c.owner, ...c.members];
    expect(people).toHaveLength(9);
    const sockets: ClientSocket[] = [];
    for (const person of people.slice(0, 8)) sockets.push(await joined(server, person.token, c.voiceId));
    const ninth = await refused(server, people[8]!.token, c.voiceId, ROOM_FULL(8));
    expect((await ninth.emitWithAck("bot:voice-participants", { channelId: c.voiceId })).participants).toHaveLength(8);
    // One of the eight again, from another device: they take their own place.
    await joined(server, people[0]!.token, c.voiceId);
    // A bot is no peer of the mesh.
    await joined(server, c.bot.token, c.voiceId);
    // Someone leaves: the ninth gets in.
    expect(await sockets[1]!.emitWithAck("voice:leave")).toMatchObject({ ok: true });
    expect(await ninth.emitWithAck("voice:join", { channelId: c.voiceId })).toMatchObject({ ok: true });
    for (const s of [...sockets, ninth]) s.close();
  });

  test("a meeting's 17th audience member is refused naming VOICE_MESH_MAX_AUDIENCE", async () => {
    const c = await community(server, { voice: { name: "Town hall", is_meeting: true }, extraMembers: 16 });
    const people: TestUser[] = [c.owner, ...c.members];
    expect(people).toHaveLength(18);
    const sockets: ClientSocket[] = [];
    for (const person of people.slice(0, 16)) sockets.push(await joined(server, person.token, c.voiceId));
    sockets.push(await refused(server, people[16]!.token, c.voiceId, AUDIENCE_FULL(16)));
    // The owner becomes a speaker: a place in the audience frees.
    expect(await sockets[0]!.emitWithAck("voice:set-meeting-role", { channelId: c.voiceId, userId: c.owner.id, role: "speaker" })).toMatchObject({ ok: true });
    sockets.push(await joined(server, people[16]!.token, c.voiceId));
    await refused(server, people[17]!.token, c.voiceId, AUDIENCE_FULL(16));
    for (const s of sockets) s.close();
  });
});

describe("caps as configured (VOICE_MESH_MAX_PUBLISHERS=2, VOICE_MESH_MAX_AUDIENCE=3)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ meshCaps: { publishers: 2, audience: 3 } });
  });
  afterAll(() => server.stop());

  test("a room of 2; a moderator's move into a full room is refused and leaves the member where they were", async () => {
    const c = await community(server, { voice: true, extraMembers: 1, moderator: true });
    const other = await createVoiceChannel(server, c.owner, c.serverId, { name: "Other" });
    const [a, b] = c.members;
    const sa = await joined(server, a!.token, c.voiceId);
    const sb = await joined(server, b!.token, c.voiceId);
    await refused(server, c.owner.token, c.voiceId, ROOM_FULL(2));
    const so = await joined(server, c.owner.token, other);
    const event = waitForEvent(so, "voice:error");
    expect(await so.emitWithAck("voice:move", { userId: c.owner.id, channelId: c.voiceId })).toEqual({ ok: false, error: ROOM_FULL(2) });
    expect(await event).toEqual({ error: ROOM_FULL(2) });
    expect((await so.emitWithAck("bot:voice-participants", { channelId: other })).participants.map((p: { userId: string }) => p.userId)).toEqual([c.owner.id]);
    for (const s of [sa, sb, so]) s.close();
  });

  test("joins at the same moment never take a room past its cap", async () => {
    const c = await community(server, { voice: true, extraMembers: 4 });
    const people: TestUser[] = [c.owner, ...c.members];
    const sockets = await Promise.all(people.map((person) => server.connect(person.token)));
    const acks = await Promise.all(sockets.map((socket) => socket.emitWithAck("voice:join", { channelId: c.voiceId })));
    expect(acks.filter((ack) => ack.ok)).toHaveLength(2);
    expect(acks.filter((ack) => !ack.ok).map((ack) => ack.error)).toEqual(Array(people.length - 2).fill(ROOM_FULL(2)));
    expect((await sockets[0]!.emitWithAck("bot:voice-participants", { channelId: c.voiceId })).participants).toHaveLength(2);
    for (const s of sockets) s.close();
  });

  test("a meeting of 3 in the audience and 2 speakers: the third promotion is refused naming VOICE_MESH_MAX_PUBLISHERS", async () => {
    const c = await community(server, { voice: { name: "Town hall", is_meeting: true }, extraMembers: 3 });
    const people: TestUser[] = [c.owner, ...c.members];
    const sockets: ClientSocket[] = [];
    for (const person of people.slice(0, 3)) sockets.push(await joined(server, person.token, c.voiceId));
    await refused(server, people[3]!.token, c.voiceId, AUDIENCE_FULL(3));
    const owner = sockets[0]!;
    const promote = (user: TestUser) => owner.emitWithAck("voice:set-meeting-role", { channelId: c.voiceId, userId: user.id, role: "speaker" });
    expect(await promote(people[0]!)).toMatchObject({ ok: true, meetingRole: "speaker" });
    expect(await promote(people[1]!)).toMatchObject({ ok: true, meetingRole: "speaker" });
    // A speaker already is no new one.
    expect(await promote(people[1]!)).toMatchObject({ ok: true, meetingRole: "speaker" });
    const event = waitForEvent(owner, "voice:error");
    expect(await promote(people[2]!)).toEqual({ ok: false, error: SPEAKERS_FULL(2) });
    expect(await event).toEqual({ error: SPEAKERS_FULL(2) });
    // Two moved up: two places in the audience.
    sockets.push(await joined(server, people[3]!.token, c.voiceId));
    for (const s of sockets) s.close();
  });
});
