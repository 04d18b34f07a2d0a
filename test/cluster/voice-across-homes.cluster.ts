/**
 * A member going from a voice room held by one node into a room held by another (docs/audio.md,
 * "Several nodes"): by `voice:move`, by their own `voice:join`, or from another device. Each goes
 * as on one node: the old room is left (its events sent, VOICE_LEAVE or none for a move) before
 * the join is answered, server mute and deafen come along within the server, and audio flows in
 * the new room (a server-muted member's frames refused there too).
 */
import { describe, expect, test } from "bun:test";
import { api, connect, emitAck, eventually, record, register, serverWith, useThreeNodes, type ClientSocket, type ClusterUser, type HearthNode } from "./nodes.ts";
import { quietWindow } from "../helpers/wait.ts";

let n1: HearthNode, n2: HearthNode, n3: HearthNode;
// Few refusals before a disconnect: the nodes' own events on a voice link (link:voice-*) must
// not count as unknown client events, or the links of these tests would be cut.
useThreeNodes((nodes) => ([n1, n2, n3] = nodes), { GATEWAY_REFUSALS_BEFORE_DISCONNECT: "2" });

type Participant = { socketId: string; userId: string; serverMuted: boolean; serverDeafened: boolean };

/** An owner (every permission) and `count` members, in one server with `rooms` voice channels. */
async function community(count: number, rooms: number) {
  const owner = await register(n1);
  const members: ClusterUser[] = [];
  for (let i = 0; i < count; i++) members.push(await register([n1, n2, n3][i % 3]!));
  const { serverId } = await serverWith(n1, owner, members);
  const voiceIds: string[] = [];
  for (let i = 0; i < rooms; i++) {
    const created = await api(n2, "POST", `/api/v1/channels/${serverId}`, { token: owner.token, body: { name: `Room ${i}`, type: "voice" } });
    expect(created.status).toBe(201);
    voiceIds.push(created.body.id);
  }
  return { owner, members, serverId, voiceIds };
}

async function join(socket: ClientSocket, channelId: string) {
  const ack = await emitAck(socket, "voice:join", { channelId });
  expect(ack).toMatchObject({ ok: true, channelId });
  return ack as { channelId: string; participants: Participant[] };
}

const findUser = (participants: Participant[], user: ClusterUser) => participants.find((p) => p.userId === user.id)!;

/** Who is in `channelId`'s room, asked through `socket`'s node (answered by the room's home). */
async function inRoom(socket: ClientSocket, channelId: string): Promise<string[]> {
  const answer = await emitAck(socket, "bot:voice-participants", { channelId });
  expect(answer.ok).toBe(true);
  return answer.participants.map((p: Participant) => p.userId);
}

/** Every event `socket` receives from now on, in order, as [event, payload]. */
function timeline(socket: ClientSocket): [string, any][] {
  const seen: [string, any][] = [];
  socket.onAny((event: string, payload: unknown) => seen.push([event, payload]));
  return seen;
}

/** The server's voice audit entries about `target` (joins and leaves included), newest first, as [action, actor, changes]. */
async function voiceAuditOf(owner: ClusterUser, serverId: string, target: ClusterUser) {
  const res = await api(n3, "GET", `/api/v1/servers/${serverId}/audit-log`, { token: owner.token });
  expect(res.status).toBe(200);
  return (res.body.entries as { action: string; actor_id: string; target_id: string; changes: Record<string, unknown> }[])
    .filter((e) => e.action.startsWith("VOICE_") && e.target_id === target.id)
    .map((e) => [e.action, e.actor_id, e.changes]);
}

const frame = (seed: number) => {
  const pcm = new Uint8Array(3840);
  for (let i = 0; i < pcm.length; i++) pcm[i] = (i * 17 + seed) & 0xff;
  return pcm;
};
const bytesOf = (pcm: ArrayBuffer | ArrayBufferView) => [...(pcm instanceof ArrayBuffer ? new Uint8Array(pcm) : new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength))];

/** `from` sends `seeds`' frames into `channelId`; `to` receives them byte-identical, once, in order. */
async function audioFlows(from: ClientSocket, to: ClientSocket, channelId: string, seeds: number[], senderId: string) {
  const heard = record<{ botUserId: string; pcm: ArrayBuffer }>(to, "bot:audio-data");
  for (const seed of seeds) expect(await emitAck(from, "bot:audio-data", { channelId, pcm: frame(seed), sampleRate: 48000, channels: 2 })).toEqual({ ok: true });
  await eventually(() => heard.length >= seeds.length, "every frame at the listener");
  await quietWindow(150); // once: a duplicate relayed by another node would follow soon
  expect(heard.map((f) => f.botUserId)).toEqual(seeds.map(() => senderId));
  expect(heard.map((f) => bytesOf(f.pcm))).toEqual(seeds.map((seed) => bytesOf(frame(seed))));
}

/**
 * A server-muted member's frames into `channelId` are refused (`voice:error`) and reach nobody.
 * `relayed`: the room's home is another node than the sender's, which passes frames on without
 * waiting (its ack is `{ok: true}`; the home's refusal comes as `voice:error`).
 */
async function audioRefused(from: ClientSocket, listeners: ClientSocket[], channelId: string, relayed = true) {
  const errors = record(from, "voice:error");
  const heard = listeners.map((listener) => record(listener, "bot:audio-data"));
  const ack = relayed ? { ok: true } : { ok: false, error: "You are server muted" };
  expect(await emitAck(from, "bot:audio-data", { channelId, pcm: frame(99), sampleRate: 48000, channels: 2 })).toEqual(ack);
  await eventually(() => errors.length === 1, "the refusal of the frame");
  expect(errors).toEqual([{ error: "You are server muted" }]);
  expect(await emitAck(from, "voice:speaking", { speaking: true })).toEqual({ ok: false, error: "You are server muted" });
  await quietWindow(150); // the listeners' sockets: nothing later on them to wait for
  expect(heard.flat()).toEqual([]);
}

describe("voice:move into a room another node holds", () => {
  test("a relayed member is moved: force-move, user-left in the old room, existing and user-joined in the new, VOICE_MOVE only; server mute and deafen kept; audio flows there", async () => {
    const { owner, members, serverId, voiceIds } = await community(3, 2);
    const [second, third, fourth] = members as [ClusterUser, ClusterUser, ClusterUser];
    const [roomA, roomB] = voiceIds as [string, string];
    // Room A is held by node 1 (the second member's socket there), the third member is relayed
    // to it from node 2; room B is held by node 3 (the fourth member's); the moderator is on node 2.
    const b = await connect(n1, second.token);
    await join(b, roomA);
    const c = await connect(n2, third.token);
    const thirdInA = findUser((await join(c, roomA)).participants, third).socketId;
    const d = await connect(n3, fourth.token);
    await join(d, roomB);
    const mod = await connect(n2, owner.token);
    const deafenedSeen = record(c, "voice:admin-deafen-update");
    expect((await emitAck(mod, "voice:server-mute", { userId: third.id, muted: true })).ok).toBe(true);
    expect((await emitAck(mod, "voice:server-deafen", { userId: third.id, deafened: true })).ok).toBe(true);
    await eventually(() => deafenedSeen.length === 1, "the deafen at the member");

    const atMoved = timeline(c);
    const leftA = record(b, "voice:user-left");
    const joinedB = record<Participant>(d, "voice:user-joined");
    expect(await emitAck(mod, "voice:move", { userId: third.id, channelId: roomB })).toEqual({ ok: true, userId: third.id, channelId: roomB });
    // Answered once the member is in room B: the old room has let them go, the new one has them.
    expect(await inRoom(mod, roomA)).toEqual([second.id]);
    expect(await inRoom(mod, roomB)).toEqual([fourth.id, third.id]);
    await eventually(() => leftA.length === 1 && joinedB.length === 1 && atMoved.length >= 2, "user-left in A, user-joined in B, the moved socket's events");
    expect(leftA).toEqual([{ socketId: thirdInA }]);
    expect(joinedB[0]).toMatchObject({ userId: third.id, serverMuted: true, serverDeafened: true, muted: false, deafened: false });
    expect(atMoved.map(([event]) => event)).toEqual(["voice:force-move", "voice:existing"]);
    expect(atMoved[0]![1]).toEqual({ channelId: roomB, fromChannelId: roomA });
    expect(atMoved[1]![1].map((p: Participant) => p.userId)).toEqual([fourth.id]);
    expect(await emitAck(mod, "bot:voice-query", { userId: third.id, serverId })).toMatchObject({ ok: true, channelId: roomB, participant: { serverMuted: true, serverDeafened: true } });

    // Still server-muted in room B: the home there refuses the frames.
    await audioRefused(c, [b, d], roomB);
    const unmuted = record(d, "voice:admin-mute-update");
    expect(await emitAck(mod, "voice:server-mute", { userId: third.id, muted: false })).toEqual({ ok: true, socketId: joinedB[0]!.socketId, userId: third.id, serverMuted: false });
    await eventually(() => unmuted.length === 1, "the unmute in room B");
    const silentA = record(b, "bot:audio-data");
    await audioFlows(c, d, roomB, [1, 2, 3], third.id);
    await audioFlows(d, c, roomB, [4, 5], fourth.id);
    expect(silentA).toEqual([]);

    expect(await voiceAuditOf(owner, serverId, third)).toEqual([
      ["VOICE_SERVER_UNMUTE", owner.id, { channelId: roomB }],
      ["VOICE_MOVE", owner.id, { fromChannelId: roomA, toChannelId: roomB }],
      ["VOICE_SERVER_DEAFEN", owner.id, { channelId: roomA }],
      ["VOICE_SERVER_MUTE", owner.id, { channelId: roomA }],
      ["VOICE_JOIN", third.id, { channelId: roomA, channelName: "Room 0" }],
    ]);
  });

  test("a member whose socket is on the old room's home, and one moved into a room their own node holds; refusals as on one node", async () => {
    const { owner, members, serverId, voiceIds } = await community(3, 3);
    const [second, third, fourth] = members as [ClusterUser, ClusterUser, ClusterUser];
    const [roomA, roomB, roomC] = voiceIds as [string, string, string];
    // Room A held by node 1 with the second member there (local) and the fourth relayed from node 3;
    // room B held by node 3 (the third member's socket there).
    const b = await connect(n1, second.token);
    await join(b, roomA);
    const d = await connect(n3, fourth.token);
    await join(d, roomA);
    const c = await connect(n3, third.token);
    await join(c, roomB);
    const mod = await connect(n1, owner.token);

    // The second member (local to room A's home) goes to room B, held by node 3: relayed from node 1 now.
    const atSecond = timeline(b);
    expect(await emitAck(mod, "voice:move", { userId: second.id, channelId: roomB })).toEqual({ ok: true, userId: second.id, channelId: roomB });
    expect(await inRoom(mod, roomB)).toEqual([third.id, second.id]);
    await eventually(() => atSecond.length >= 2, "the moved socket's events");
    expect(atSecond.map(([event]) => event)).toEqual(["voice:force-move", "voice:existing"]);

    // The fourth member (relayed from node 3 to room A) goes to room B, held by their own node.
    const atFourth = timeline(d);
    const joinedB = record<Participant>(c, "voice:user-joined");
    expect(await emitAck(mod, "voice:move", { userId: fourth.id, channelId: roomB })).toEqual({ ok: true, userId: fourth.id, channelId: roomB });
    expect(await inRoom(mod, roomA)).toEqual([]);
    expect(await inRoom(mod, roomB)).toEqual([third.id, second.id, fourth.id]);
    await eventually(() => atFourth.length >= 2 && joinedB.length === 1, "the moved socket's events and user-joined in B");
    expect(atFourth.map(([event]) => event)).toEqual(["voice:force-move", "voice:existing"]);
    expect(joinedB[0]).toMatchObject({ userId: fourth.id, socketId: d.id });
    // Audio between the two moved members, local and relayed to room B's home.
    await audioFlows(b, d, roomB, [6, 7], second.id);
    await audioFlows(d, b, roomB, [8], fourth.id);

    // Refusals come from the moved member's room's home, as on one node; nobody moves.
    const everyone = ((await api(n2, "GET", `/api/v1/roles/${serverId}`, { token: owner.token })).body as { id: string }[]).at(-1)!.id;
    const CONNECT = 1 << 13;
    expect((await api(n2, "PUT", `/api/v1/channels/${roomC}/permissions/${everyone}`, { token: owner.token, body: { allow: 0, deny: CONNECT } })).status).toBe(200);
    const holder = await connect(n2, owner.token);
    await join(holder, roomC);
    expect(await emitAck(mod, "voice:move", { userId: fourth.id, channelId: roomC })).toEqual({ ok: false, error: "That member cannot connect to the target channel" });
    expect(await emitAck(c, "voice:move", { userId: fourth.id, channelId: roomA })).toEqual({ ok: false, error: "Missing permission: MOVE_MEMBERS" });
    expect(await inRoom(mod, roomB)).toEqual([third.id, second.id, fourth.id]);

    const moves = (await voiceAuditOf(owner, serverId, second)).concat(await voiceAuditOf(owner, serverId, fourth)).filter(([action]) => action === "VOICE_MOVE");
    expect(moves).toEqual([
      ["VOICE_MOVE", owner.id, { fromChannelId: roomA, toChannelId: roomB }],
      ["VOICE_MOVE", owner.id, { fromChannelId: roomA, toChannelId: roomB }],
    ]);
  });
});

describe("joining a room another node holds", () => {
  test("the same socket from room to room over three homes: the old room is left before the join is answered, server mute and deafen come along, a refused join leaves the old room alone", async () => {
    const { owner, members, serverId, voiceIds } = await community(4, 4);
    const [second, third, fourth, fifth] = members as [ClusterUser, ClusterUser, ClusterUser, ClusterUser];
    const [roomA, roomB, roomC, roomD] = voiceIds as [string, string, string, string];
    // Homes: room A node 1, room B node 3, room C node 2 (the moving member's own node), room D node 3.
    const b = await connect(n1, second.token);
    await join(b, roomA);
    const d = await connect(n3, fourth.token);
    await join(d, roomB);
    const e = await connect(n2, fifth.token);
    await join(e, roomC);
    const c = await connect(n2, third.token);
    const thirdInA = findUser((await join(c, roomA)).participants, third).socketId;
    const mod = await connect(n1, owner.token);
    expect((await emitAck(mod, "voice:server-mute", { userId: third.id, muted: true })).ok).toBe(true);
    expect((await emitAck(mod, "voice:server-deafen", { userId: third.id, deafened: true })).ok).toBe(true);
    const forced = record(c, "voice:force-leave");

    // A (node 1, relayed) -> B (node 3, relayed).
    const leftA = record(b, "voice:user-left");
    const inB = await join(c, roomB);
    expect(findUser(inB.participants, third)).toMatchObject({ serverMuted: true, serverDeafened: true });
    expect(await inRoom(mod, roomA)).toEqual([second.id]);
    await eventually(() => leftA.length === 1, "user-left in room A");
    expect(leftA).toEqual([{ socketId: thirdInA }]);
    await audioRefused(c, [b, d], roomB);

    // B (node 3, relayed) -> C (node 2, here).
    const leftB = record(d, "voice:user-left");
    const inC = await join(c, roomC);
    expect(findUser(inC.participants, third)).toMatchObject({ socketId: c.id, serverMuted: true, serverDeafened: true });
    expect(await inRoom(mod, roomB)).toEqual([fourth.id]);
    await eventually(() => leftB.length === 1, "user-left in room B");
    await audioRefused(c, [e], roomC, false);

    // C (node 2, here) -> A (node 1, relayed).
    const leftC = record(e, "voice:user-left");
    const inA = await join(c, roomA);
    expect(findUser(inA.participants, third)).toMatchObject({ serverMuted: true, serverDeafened: true });
    expect(await inRoom(mod, roomC)).toEqual([fifth.id]);
    await eventually(() => leftC.length === 1, "user-left in room C");
    expect(leftC).toEqual([{ socketId: c.id }]);

    // A join the new home refuses (no CONNECT in room D) leaves the member where they are.
    const everyone = ((await api(n2, "GET", `/api/v1/roles/${serverId}`, { token: owner.token })).body as { id: string }[]).at(-1)!.id;
    expect((await api(n2, "PUT", `/api/v1/channels/${roomD}/permissions/${everyone}`, { token: owner.token, body: { allow: 0, deny: 1 << 13 } })).status).toBe(200);
    const holder = await connect(n3, owner.token);
    await join(holder, roomD);
    const errors = record(c, "voice:error");
    expect(await emitAck(c, "voice:join", { channelId: roomD })).toEqual({ ok: false, error: "Missing permission: CONNECT" });
    await eventually(() => errors.length === 1, "voice:error for the refused join");
    expect(errors).toEqual([{ error: "Missing permission: CONNECT" }]);
    expect(await inRoom(mod, roomA)).toEqual([second.id, third.id]);
    expect(forced).toEqual([]);

    // Unmuted in room A: the member is heard there.
    expect((await emitAck(mod, "voice:server-mute", { userId: third.id, muted: false })).ok).toBe(true);
    await audioFlows(c, b, roomA, [9, 10], third.id);

    // Each leave is written before the next join, as on one node.
    const presence = (await voiceAuditOf(owner, serverId, third)).filter(([action]) => action === "VOICE_JOIN" || action === "VOICE_LEAVE");
    expect(presence.map(([action, , changes]) => [action, (changes as { channelId: string }).channelId])).toEqual([
      ["VOICE_JOIN", roomA],
      ["VOICE_LEAVE", roomC],
      ["VOICE_JOIN", roomC],
      ["VOICE_LEAVE", roomB],
      ["VOICE_JOIN", roomB],
      ["VOICE_LEAVE", roomA],
      ["VOICE_JOIN", roomA],
    ]);
  });

  test("from another device: the first is taken out (force-leave, user-left, VOICE_LEAVE) before the second's join is answered; server mute comes along within the server only", async () => {
    const { owner, members, serverId, voiceIds } = await community(3, 2);
    const [second, third, fourth] = members as [ClusterUser, ClusterUser, ClusterUser];
    const [roomA, roomB] = voiceIds as [string, string];
    const b = await connect(n1, second.token);
    await join(b, roomA);
    const d = await connect(n3, fourth.token);
    await join(d, roomB);
    // The third member's first device is in room A on its home (node 1), server-muted.
    const first = await connect(n1, third.token);
    await join(first, roomA);
    const mod = await connect(n2, owner.token);
    expect((await emitAck(mod, "voice:server-mute", { userId: third.id, muted: true })).ok).toBe(true);

    const forced = record(first, "voice:force-leave");
    const leftA = record(b, "voice:user-left");
    const other = await connect(n2, third.token);
    const inB = await join(other, roomB);
    expect(findUser(inB.participants, third)).toMatchObject({ serverMuted: true, serverDeafened: false });
    expect(await inRoom(mod, roomA)).toEqual([second.id]);
    await eventually(() => forced.length === 1 && leftA.length === 1, "force-leave at the first device, user-left in room A");
    expect(forced).toEqual([{ reason: "joined from another device", channelId: roomA }]);
    expect(leftA).toEqual([{ socketId: first.id }]);
    await audioRefused(other, [d], roomB);
    const presence = (await voiceAuditOf(owner, serverId, third)).filter(([action]) => action === "VOICE_JOIN" || action === "VOICE_LEAVE");
    expect(presence.map(([action, , changes]) => [action, (changes as { channelId: string }).channelId])).toEqual([
      ["VOICE_JOIN", roomB],
      ["VOICE_LEAVE", roomA],
      ["VOICE_JOIN", roomA],
    ]);

    // Another server's room, held by node 1: server mute is per server, so the member arrives unmuted.
    const elsewhere = await serverWith(n1, owner, [third]);
    const created = await api(n1, "POST", `/api/v1/channels/${elsewhere.serverId}`, { token: owner.token, body: { name: "Far", type: "voice" } });
    expect(created.status).toBe(201);
    const host = await connect(n1, owner.token);
    await join(host, created.body.id);
    const inFar = await join(other, created.body.id);
    expect(findUser(inFar.participants, third)).toMatchObject({ serverMuted: false, serverDeafened: false });
    expect(await inRoom(mod, roomB)).toEqual([fourth.id]);
    await audioFlows(other, host, created.body.id, [11], third.id);
  });
});

describe("the nodes' own link events", () => {
  test("a client cannot send them: unanswered, and nobody is taken out or unmuted", async () => {
    const { owner, members, serverId, voiceIds } = await community(2, 2);
    const [second, third] = members as [ClusterUser, ClusterUser];
    const [roomA, roomB] = voiceIds as [string, string];
    const b = await connect(n1, second.token);
    await join(b, roomA);
    const c = await connect(n2, third.token);
    await join(c, roomA);
    const mod = await connect(n3, owner.token);
    expect((await emitAck(mod, "voice:server-mute", { userId: third.id, muted: true })).ok).toBe(true);

    // On the client's own node, and straight to the room's home (two each: an unknown event is a
    // refusal, and these nodes disconnect a socket after two).
    const onHome = await connect(n1, third.token);
    const left = record(b, "voice:user-left");
    const handover = { serverId, serverMuted: false, serverDeafened: false, moved: true };
    const outcome = (sent: Promise<unknown>) => sent.then(() => "answered", () => "unanswered");
    const outcomes = await Promise.all(
      [c, onHome].flatMap((socket) => [
        outcome(socket.timeout(500).emitWithAck("link:voice-hand-over", { otherDevice: false })),
        outcome(socket.timeout(500).emitWithAck("link:voice-join", { channelId: roomB, handover })),
      ]),
    );
    expect(outcomes).toEqual(["unanswered", "unanswered", "unanswered", "unanswered"]);
    await quietWindow(150); // nobody is disconnected or moved for them
    expect(c.connected && onHome.connected).toBe(true);
    expect(left).toEqual([]);
    expect(await inRoom(mod, roomA)).toEqual([second.id, third.id]);
    expect(await inRoom(mod, roomB)).toEqual([]);
    expect(await emitAck(mod, "bot:voice-query", { userId: third.id, serverId })).toMatchObject({ ok: true, channelId: roomA, participant: { serverMuted: true } });
  });
});
