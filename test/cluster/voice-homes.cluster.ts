/**
 * Voice rooms whose home is another node than the sender's (docs/audio.md, "Several nodes"):
 * moderation and meeting roles act on the room at its home, queries answer from it, and a user
 * is in one voice room at a time over the whole cluster.
 */
import { describe, expect, test } from "bun:test";
import { api, promote, connect, emitAck, eventually, record, register, serverWith, useThreeNodes, type ClientSocket, type ClusterUser, type HearthNode } from "./nodes.ts";
import { quietWindow } from "../helpers/wait.ts";

let n1: HearthNode, n2: HearthNode, n3: HearthNode;
useThreeNodes((nodes) => ([n1, n2, n3] = nodes));

/** An owner (every permission), three members, and `rooms` voice channels. */
async function community(rooms = 1, fields: Record<string, unknown> = {}) {
  const owner = await register(n1);
  const second = await register(n2);
  const third = await register(n3);
  const fourth = await register(n1);
  const { serverId } = await serverWith(n1, owner, [second, third, fourth]);
  const voiceIds: string[] = [];
  for (let i = 0; i < rooms; i++) {
    const created = await api(n2, "POST", `/api/v1/channels/${serverId}`, { token: owner.token, body: { name: `Room ${i}`, type: "voice", ...fields } });
    expect(created.status).toBe(201);
    voiceIds.push(created.body.id);
  }
  return { owner, second, third, fourth, serverId, voiceIds };
}

async function join(socket: ClientSocket, channelId: string) {
  const ack = await emitAck(socket, "voice:join", { channelId });
  expect(ack).toMatchObject({ ok: true, channelId });
  return ack as { channelId: string; participants: { socketId: string; userId: string }[] };
}

/** The socket id the room's home knows a user by (a relayed member's is its voice link's). */
const socketIdOf = (ack: { participants: { socketId: string; userId: string }[] }, user: ClusterUser) => ack.participants.find((p) => p.userId === user.id)!.socketId;

/**
 * `channelId`'s room held by node 1: the second member joins it there, the third from node 2
 * (relayed); `thirdSid` is the id the home knows the third by (its voice link's).
 */
async function homeOnNode1(channelId: string, second: ClusterUser, third: ClusterUser) {
  const b = await connect(n1, second.token);
  const c = await connect(n2, third.token);
  await join(b, channelId);
  const thirdSid = socketIdOf(await join(c, channelId), third);
  return { b, c, thirdSid };
}

/** The server's voice audit entries (joins and leaves too when asked), newest first, as [action, actor, target]. */
async function voiceAudit(node: HearthNode, owner: ClusterUser, serverId: string, withPresence = false) {
  const res = await api(node, "GET", `/api/v1/servers/${serverId}/audit-log`, { token: owner.token });
  expect(res.status).toBe(200);
  return (res.body.entries as { action: string; actor_id: string; target_id: string; changes: Record<string, unknown> }[])
    .filter((e) => e.action.startsWith("VOICE_") && (withPresence || (e.action !== "VOICE_JOIN" && e.action !== "VOICE_LEAVE")))
    .map((e) => [e.action, e.actor_id, e.target_id, e.changes]);
}

describe("voice moderation sent through a node that is not the room's home", () => {
  test("server mute, deafen and disconnect act on the room at its home: same acks, events, refusals and audit entries as on one node", async () => {
    const { owner, second, third, fourth, serverId, voiceIds } = await community();
    const [voiceId] = voiceIds as [string];
    // Node 1 is the home; the third member is relayed to it from node 2; the moderator (owner)
    // and a plain member are on node 3, in no voice room.
    const { b, c, thirdSid } = await homeOnNode1(voiceId, second, third);
    const mod = await connect(n3, owner.token);
    const plain = await connect(n3, fourth.token);

    const muteSeen = { b: record(b, "voice:admin-mute-update"), c: record(c, "voice:admin-mute-update") };
    const muted = { socketId: thirdSid, userId: third.id, serverMuted: true };
    expect(await emitAck(mod, "voice:server-mute", { userId: third.id, muted: true })).toEqual({ ok: true, ...muted });
    await eventually(() => muteSeen.b.length === 1 && muteSeen.c.length === 1, "the mute at both members");
    expect([...muteSeen.b, ...muteSeen.c]).toEqual([muted, muted]);
    // The home applies it: the relayed member cannot speak now.
    expect(await emitAck(c, "voice:speaking", { speaking: true })).toEqual({ ok: false, error: "You are server muted" });

    const deafSeen = record(b, "voice:admin-deafen-update");
    const deafened = { socketId: thirdSid, userId: third.id, serverDeafened: true };
    expect(await emitAck(mod, "voice:server-deafen", { userId: third.id, deafened: true })).toEqual({ ok: true, ...deafened });
    await eventually(() => deafSeen.length === 1, "the deafen at node 1");
    expect(deafSeen).toEqual([deafened]);

    // Refusals come from the home's rules, with voice:error to the sender.
    const errors = record(plain, "voice:error");
    expect(await emitAck(plain, "voice:server-mute", { userId: third.id, muted: false })).toEqual({ ok: false, error: "Missing permission: MUTE_MEMBERS" });
    expect(await emitAck(plain, "voice:disconnect", { userId: third.id })).toEqual({ ok: false, error: "Missing permission: MOVE_MEMBERS" });
    await eventually(() => errors.length === 2, "voice:error for both refusals");
    expect(errors).toEqual([{ error: "Missing permission: MUTE_MEMBERS" }, { error: "Missing permission: MOVE_MEMBERS" }]);
    expect(await emitAck(mod, "voice:server-mute", { userId: fourth.id, muted: true })).toEqual({ ok: false, error: "Member in voice not found" });
    expect(await emitAck(mod, "voice:server-mute", { userId: third.id })).toEqual({ ok: false, error: "muted: is required" });

    const forced = record(c, "voice:force-disconnect");
    const left = record(b, "voice:user-left");
    expect(await emitAck(mod, "voice:disconnect", { userId: third.id })).toEqual({ ok: true, userId: third.id, channelId: voiceId });
    await eventually(() => forced.length === 1 && left.length === 1, "force-disconnect at the target, user-left at the room");
    expect(forced).toEqual([{ reason: "Disconnected by a moderator", channelId: voiceId }]);
    expect(left).toEqual([{ socketId: thirdSid }]);
    expect((await emitAck(mod, "bot:voice-participants", { channelId: voiceId })).participants.map((p: { userId: string }) => p.userId)).toEqual([second.id]);

    expect(await voiceAudit(n2, owner, serverId)).toEqual([
      ["VOICE_DISCONNECT", owner.id, third.id, { channelId: voiceId }],
      ["VOICE_SERVER_DEAFEN", owner.id, third.id, { channelId: voiceId }],
      ["VOICE_SERVER_MUTE", owner.id, third.id, { channelId: voiceId }],
    ]);
  });

  test("voice:move from node 3 moves a relayed member on their room's home", async () => {
    const { owner, second, third, serverId, voiceIds } = await community(2);
    const [roomA, roomB] = voiceIds as [string, string];
    const { b, c, thirdSid } = await homeOnNode1(roomA, second, third);
    const mod = await connect(n3, owner.token);

    const forced = record(c, "voice:force-move");
    const existing = record(c, "voice:existing");
    const left = record(b, "voice:user-left");
    expect(await emitAck(mod, "voice:move", { userId: third.id, channelId: roomB })).toEqual({ ok: true, userId: third.id, channelId: roomB });
    await eventually(
      () => forced.length === 1 && left.length === 1 && existing.length === 1,
      () => `force-move, user-left and the new room's existing list (got ${JSON.stringify({ forced, left, existing })})`,
    );
    expect(forced).toEqual([{ channelId: roomB, fromChannelId: roomA }]);
    expect(left).toEqual([{ socketId: thirdSid }]);
    expect(existing).toEqual([[]]);
    // Asked through node 3, room B (now held by node 1 too) has the moved member, room A not.
    expect((await emitAck(mod, "bot:voice-participants", { channelId: roomB })).participants.map((p: { userId: string }) => p.userId)).toEqual([third.id]);
    expect((await emitAck(mod, "bot:voice-participants", { channelId: roomA })).participants.map((p: { userId: string }) => p.userId)).toEqual([second.id]);
    expect(await emitAck(mod, "bot:voice-query", { userId: third.id, serverId })).toMatchObject({ ok: true, channelId: roomB, participant: { userId: third.id } });


    expect(await voiceAudit(n1, owner, serverId)).toEqual([["VOICE_MOVE", owner.id, third.id, { fromChannelId: roomA, toChannelId: roomB }]]);
  });

  test("a meeting's roles are set from another node: promote and demote reach the room at its home", async () => {
    const { owner, second, third, fourth, voiceIds } = await community(1, { is_meeting: true });
    const [meetingId] = voiceIds as [string];
    const { b, c, thirdSid } = await homeOnNode1(meetingId, second, third);
    const mod = await connect(n3, owner.token);
    const plain = await connect(n3, fourth.token);

    const updates = record(b, "voice:meeting-update");
    const raised = { socketId: thirdSid, userId: third.id, meetingRole: "audience", handRaised: true };
    expect(await emitAck(c, "voice:raise-hand", { channelId: meetingId })).toEqual({ ok: true, ...raised });
    await eventually(() => updates.length === 1, "the raised hand at node 1");
    const promoted = { socketId: thirdSid, userId: third.id, meetingRole: "speaker", handRaised: false };
    expect(await emitAck(mod, "voice:set-meeting-role", { channelId: meetingId, userId: third.id, role: "speaker" })).toEqual({ ok: true, ...promoted });
    await eventually(() => updates.length === 2, "the promotion at node 1");
    expect(updates).toEqual([raised, promoted]);
    expect(await emitAck(c, "voice:speaking", { speaking: true })).toMatchObject({ ok: false, error: "You are muted" });

    expect(await emitAck(plain, "voice:set-meeting-role", { channelId: meetingId, userId: third.id, role: "audience" })).toEqual({
      ok: false,
      error: "Missing permission: MUTE_MEMBERS",
    });
    const demoted = { socketId: thirdSid, userId: third.id, meetingRole: "audience", handRaised: false };
    expect(await emitAck(mod, "voice:set-meeting-role", { channelId: meetingId, userId: third.id, role: "audience" })).toEqual({ ok: true, ...demoted });
    await eventually(() => updates.length === 3, "the demotion at node 1");
    expect(updates[2]).toEqual(demoted);
    expect(await emitAck(c, "voice:state", { muted: false })).toEqual({ ok: false, error: "Audience members cannot unmute in a meeting; raise your hand to speak" });
  });
});

describe("voice queries answered from the room's home", () => {
  test("bot:voice-query, bot:voice-participants and friends in voice through any node", async () => {
    const { owner, second, third, fourth, serverId, voiceIds } = await community();
    const [voiceId] = voiceIds as [string];
    const { c, thirdSid } = await homeOnNode1(voiceId, second, third);
    const asker = await connect(n3, owner.token);

    const query = await emitAck(asker, "bot:voice-query", { userId: third.id, serverId });
    expect(query).toMatchObject({ ok: true, channelId: voiceId, participant: { socketId: thirdSid, userId: third.id, username: third.username, serverMuted: false } });
    const participants = await emitAck(asker, "bot:voice-participants", { channelId: voiceId });
    expect(participants.participants.map((p: { userId: string }) => p.userId)).toEqual([second.id, third.id]);
    expect(await emitAck(asker, "bot:voice-query", { userId: fourth.id, serverId })).toEqual({ ok: true, channelId: null, participant: null });

    // Friends in voice, over REST through each node.
    expect((await api(n3, "POST", "/api/v1/friends/request", { token: fourth.token, body: { username: third.username } })).status).toBe(201);
    expect((await api(n2, "POST", `/api/v1/friends/accept/${fourth.id}`, { token: third.token })).status).toBe(200);
    const entry = { user_id: third.id, username: third.username, avatar: null, channel_id: voiceId, channel_name: "Room 0" };
    for (const node of [n1, n2, n3]) {
      const seen = await api(node, "GET", "/api/v1/friends/voice-activity", { token: fourth.token });
      expect(seen.status).toBe(200);
      expect(seen.body).toEqual([{ ...entry, server_id: serverId, server_name: expect.any(String) }]);
    }
    expect(await emitAck(c, "voice:leave", {})).toMatchObject({ ok: true, channelId: voiceId });
    await eventually(async () => (await api(n3, "GET", "/api/v1/friends/voice-activity", { token: fourth.token })).body.length === 0, "no friend in voice after the leave");
    expect(await emitAck(asker, "bot:voice-query", { userId: third.id, serverId })).toEqual({ ok: true, channelId: null, participant: null });
  });
  test("the premium soundboard plays into the caller's room held by another node; 400 when in no room anywhere", async () => {
    const { owner, second, third, serverId, voiceIds } = await community();
    const [voiceId] = voiceIds as [string];
    promote(owner);
    expect((await api(n1, "PATCH", `/api/v1/admin/users/${third.id}`, { token: owner.token, body: { premium: true } })).status).toBe(200);
    const data = new FormData();
    data.append("sound", new File([new Uint8Array([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xfb, 0x90, 0x00])], "horn.mp3"));
    data.append("name", "Horn");
    const uploaded = await fetch(`${n1.url}/api/v1/servers/${serverId}/soundboard`, { method: "POST", headers: { authorization: `Bearer ${owner.token}` }, body: data });
    expect(uploaded.status).toBe(201);
    const sound = (await uploaded.json()) as { id: string };
    const play = () => api(n3, "POST", "/api/v1/premium/soundboard/play", { token: third.token, body: { sound_id: sound.id } });
    expect(await play()).toEqual({ status: 400, body: { error: "Join a voice channel first" } });

    // Node 1 holds the room; the caller is in it from node 2 and plays through node 3.
    const { b, c } = await homeOnNode1(voiceId, second, third);
    const heard = { b: record(b, "voice:soundboard"), c: record(c, "voice:soundboard") };
    expect(await play()).toEqual({ status: 200, body: { played: true, channelId: voiceId } });
    await eventually(() => heard.b.length === 1 && heard.c.length === 1, "the sound at both members");
    await quietWindow(150); // once each
    expect(heard.b.length + heard.c.length).toBe(2);
    expect(heard.c[0]).toMatchObject({ channelId: voiceId, sound: { id: sound.id, name: "Horn" }, userId: third.id });
  });
});

describe("one voice room per user over the whole cluster", () => {
  test("joining a room held by node 2 leaves the room held by node 1, local or relayed: voice:force-leave, user-left, VOICE_LEAVE", async () => {
    const { owner, second, third, serverId, voiceIds } = await community(2);
    const [roomA, roomB] = voiceIds as [string, string];
    const b = await connect(n1, second.token);
    await join(b, roomA);
    const left = record(b, "voice:user-left");

    // The third member's first device is on node 1 (room A's home), the second on node 2, where room B is held.
    const first = await connect(n1, third.token);
    await join(first, roomA);
    const forced = record(first, "voice:force-leave");
    const second2 = await connect(n2, third.token);
    await join(second2, roomB);
    await eventually(() => forced.length === 1 && left.length === 1, "force-leave at the first device, user-left in room A");
    expect(forced).toEqual([{ reason: "joined from another device", channelId: roomA }]);
    expect(left).toEqual([{ socketId: first.id }]);
    const asker = await connect(n3, owner.token);
    expect((await emitAck(asker, "bot:voice-participants", { channelId: roomA })).participants.map((p: { userId: string }) => p.userId)).toEqual([second.id]);
    expect(await emitAck(asker, "bot:voice-query", { userId: third.id, serverId })).toMatchObject({ ok: true, channelId: roomB });

    // A relayed device (node 3, room A held by node 1) joins room A: node 2 takes the second device out of room B...
    const forcedSecond = record(second2, "voice:force-leave");
    const relayed = await connect(n3, third.token);
    const relayedSid = socketIdOf(await join(relayed, roomA), third);
    await eventually(() => forcedSecond.length === 1, "force-leave at the device in room B");
    expect(forcedSecond).toEqual([{ reason: "joined from another device", channelId: roomB }]);
    // ...and when that device joins room B again, node 1 takes the relayed device out, through its voice link.
    const forcedRelayed = record(relayed, "voice:force-leave");
    await join(second2, roomB);
    await eventually(() => forcedRelayed.length === 1 && left.length === 2, "force-leave through the voice link");
    expect(forcedRelayed).toEqual([{ reason: "joined from another device", channelId: roomA }]);
    expect(left[1]).toEqual({ socketId: relayedSid });
    expect((await emitAck(asker, "bot:voice-participants", { channelId: roomA })).participants.map((p: { userId: string }) => p.userId)).toEqual([second.id]);

    const presence = (await voiceAudit(n2, owner, serverId, true)).filter(([action, , target]) => action === "VOICE_LEAVE" && target === third.id);
    expect(presence).toEqual([
      ["VOICE_LEAVE", third.id, third.id, { channelId: roomA }],
      ["VOICE_LEAVE", third.id, third.id, { channelId: roomB }],
      ["VOICE_LEAVE", third.id, third.id, { channelId: roomA }],
    ]);
  });
});
