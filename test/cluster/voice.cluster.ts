/**
 * Voice on several nodes (docs/audio.md, "Several nodes"): a voice room lives on one node, its
 * home; members whose sockets are on other nodes are relayed node to node, never through Redis.
 */
import { describe, expect, test } from "bun:test";
import { Redis } from "ioredis";
import { api, connect, emitAck, eventually, record, register, REDIS_URL, serverWith, useThreeNodes, type ClientSocket, type HearthNode } from "./nodes.ts";
import { quietWindow } from "../helpers/wait.ts";

let n1: HearthNode, n2: HearthNode, n3: HearthNode;
useThreeNodes((nodes) => ([n1, n2, n3] = nodes));

const frame = (bytes: number, seed: number) => {
  const pcm = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i++) pcm[i] = (i * 31 + seed) & 0xff;
  return pcm;
};
const asBytes = (pcm: ArrayBuffer | ArrayBufferView) =>
  pcm instanceof ArrayBuffer ? new Uint8Array(pcm) : new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength);

async function voiceRoom() {
  const owner = await register(n1);
  const second = await register(n1);
  const third = await register(n1);
  const { serverId } = await serverWith(n1, owner, [second, third]);
  const created = await api(n1, "POST", `/api/v1/channels/${serverId}`, { token: owner.token, body: { name: "Lounge", type: "voice" } });
  expect(created.status).toBe(201);
  return { owner, second, third, serverId, voiceId: created.body.id as string };
}

async function join(socket: ClientSocket, channelId: string) {
  const ack = await emitAck(socket, "voice:join", { channelId });
  expect(ack).toMatchObject({ ok: true, channelId });
  return ack;
}

describe("a voice room with members on three nodes", () => {
  test("PCM sent on any node reaches the members on the others byte-identical, once, in order; joins are seen everywhere", async () => {
    const { owner, second, third, voiceId } = await voiceRoom();
    const a = await connect(n1, owner.token);
    const b = await connect(n2, second.token);
    const c = await connect(n3, third.token);
    // The first to join makes node 1 the room's home; the others are relayed to it.
    await join(a, voiceId);
    const joinedSeenByA = record(a, "voice:user-joined");
    const existingForB = record(b, "voice:existing");
    const bJoin = await join(b, voiceId);
    expect(bJoin.participants.map((p: { userId: string }) => p.userId).sort()).toEqual([owner.id, second.id].sort());
    await join(c, voiceId);
    await eventually(() => joinedSeenByA.length === 2, "node 1 sees both joins");
    expect(joinedSeenByA.map((p) => p.userId)).toEqual([second.id, third.id]);
    void existingForB;

    const frames = { a: record(a, "bot:audio-data"), b: record(b, "bot:audio-data"), c: record(c, "bot:audio-data") };
    const sent = { a: [frame(3840, 1), frame(3840, 2), frame(1920, 3)], b: [frame(3840, 7), frame(11520, 8)], c: [frame(3840, 11)] };
    for (const pcm of sent.a) a.emit("bot:audio-data", { channelId: voiceId, pcm, sampleRate: 48000, channels: 2 });
    for (const pcm of sent.b) b.emit("bot:audio-data", { channelId: voiceId, pcm, sampleRate: 48000, channels: 2 });
    // An acked frame from a relayed member answers like a local one.
    expect(await emitAck(c, "bot:audio-data", { channelId: voiceId, pcm: sent.c[0], sampleRate: 48000, channels: 2 })).toEqual({ ok: true });

    await eventually(() => frames.a.length === 3 && frames.b.length === 4 && frames.c.length === 5, "every frame at every other member", 10_000);
    await quietWindow(150); // once each: a duplicate relayed by another node would follow soon
    const from = (seen: { botUserId: string; pcm: ArrayBuffer }[], userId: string) => seen.filter((f) => f.botUserId === userId).map((f) => [...asBytes(f.pcm)]);
    const bytes = (list: Uint8Array[]) => list.map((pcm) => [...pcm]);
    expect(from(frames.b, owner.id)).toEqual(bytes(sent.a));
    expect(from(frames.c, owner.id)).toEqual(bytes(sent.a));
    expect(from(frames.a, second.id)).toEqual(bytes(sent.b));
    expect(from(frames.c, second.id)).toEqual(bytes(sent.b));
    expect(from(frames.a, third.id)).toEqual(bytes(sent.c));
    expect(from(frames.b, third.id)).toEqual(bytes(sent.c));
    expect(frames.a.length + frames.b.length + frames.c.length).toBe(12);
  });

  test("PCM never goes through Redis: nothing the gateway stream or any channel carries during a conversation is audio", async () => {
    const { owner, second, voiceId } = await voiceRoom();
    const a = await connect(n1, owner.token);
    const b = await connect(n2, second.token);
    await join(a, voiceId);
    await join(b, voiceId);
    const client = new Redis(REDIS_URL);
    const monitor = await client.monitor();
    const commands: string[] = [];
    monitor.on("monitor", (_time: string, args: string[]) => commands.push(args.join(" ")));
    const got = record(b, "bot:audio-data");
    const speaking = record(b, "voice:speaking");
    const marker = new Uint8Array(3840).fill(0x5a);
    for (let i = 0; i < 20; i++) a.emit("bot:audio-data", { channelId: voiceId, pcm: marker, sampleRate: 48000, channels: 2 });
    // A room broadcast that is not audio does go through the adapter's stream.
    expect((await emitAck(a, "voice:speaking", { speaking: true })).ok).toBe(true);
    await eventually(() => got.length === 20 && speaking.length === 1, "20 frames and voice:speaking on node 2");
    // The monitor lists commands in the order Redis ran them: a frame sent through Redis would come before this.
    await eventually(() => commands.some((line) => line.startsWith("xadd hearth:gateway") && line.includes("voice:speaking")), "the monitor to show voice:speaking's XADD");
    monitor.disconnect();
    client.disconnect();
    // The monitor saw the cluster's traffic (voice:speaking, published to the gateway stream)...
    expect(commands.some((line) => line.startsWith("xadd hearth:gateway") && line.includes("voice:speaking"))).toBe(true);
    // ...and no frame: neither the raw bytes nor their base64 (how the adapter would carry binary).
    const raw = "Z".repeat(64);
    const base64 = Buffer.from(new Uint8Array(96).fill(0x5a)).toString("base64");
    expect(commands.filter((line) => line.includes(raw) || line.includes(base64))).toEqual([]);
  });

  test("voice:leave through a relayed member leaves the room on its home; a kick through node 3 takes a relayed member out of the room", async () => {
    const { owner, second, third, serverId, voiceId } = await voiceRoom();
    const a = await connect(n1, owner.token);
    const b = await connect(n2, second.token);
    const c = await connect(n2, third.token);
    await join(a, voiceId);
    await join(b, voiceId);
    await join(c, voiceId);
    const leftSeenByA = record<{ socketId: string }>(a, "voice:user-left");
    expect(await emitAck(c, "voice:leave", {})).toMatchObject({ ok: true });
    await eventually(() => leftSeenByA.length === 1, "the leave seen on node 1");

    const removed = record(b, "voice:force-disconnect");
    const kicked = await api(n3, "DELETE", `/api/v1/servers/${serverId}/members/${second.id}`, { token: owner.token });
    expect(kicked.status).toBe(200);
    await eventually(() => removed.length === 1 && leftSeenByA.length === 2, "the kicked member out of the room held by node 1");
    const participants = await emitAck(a, "bot:voice-participants", { channelId: voiceId });
    expect(participants.ok).toBe(true);
    expect(participants.participants.map((p: { userId: string }) => p.userId)).toEqual([owner.id]);
  });

  test("when the room empties its home is released: the next first member's node holds it", async () => {
    const { owner, second, voiceId } = await voiceRoom();
    const redis = new Redis(REDIS_URL);
    try {
      const homeUrl = async () => {
        const home = await redis.get(`hearth:home:voice:${voiceId}`);
        return home ? redis.get(`hearth:node:${home}`) : null;
      };
      const a = await connect(n1, owner.token);
      await join(a, voiceId);
      expect(await homeUrl()).toBe(n1.url);
      expect(await emitAck(a, "voice:leave", {})).toMatchObject({ ok: true });
      // Node 1 stops renewing a room it has nobody in: the claim runs out (10 s).
      await eventually(async () => (await homeUrl()) === null, "the home released", 20_000);
      const b = await connect(n2, second.token);
      await join(b, voiceId);
      expect(await homeUrl()).toBe(n2.url);
    } finally {
      redis.disconnect();
    }
  });
});

describe("a DM call with its members on different nodes", () => {
  test("ring on node 2, accept from node 3, signal both ways to the call socket only, hang up: the call lives on the caller's node", async () => {
    const alice = await register(n1);
    const bob = await register(n1);
    await serverWith(n1, alice, [bob]);
    const opened = await api(n1, "POST", `/api/v1/dm/channels/${bob.id}`, { token: alice.token });
    expect(opened.status).toBeLessThan(300);
    const conversationId: string = opened.body.id;
    const aliceSocket = await connect(n1, alice.token);
    const bobPhone = await connect(n2, bob.token);
    const bobLaptop = await connect(n3, bob.token);
    const rings = [record(bobPhone, "dm:call-incoming"), record(bobLaptop, "dm:call-incoming")];
    const started = await emitAck(aliceSocket, "dm:call-start", { conversationId });
    expect(started).toEqual({ ok: true, callId: expect.any(String), conversationId });
    const { callId } = started;
    await eventually(() => rings.every((r) => r.length === 1), "both of bob's devices ring");
    expect(rings[0]![0]).toMatchObject({ callId, conversationId });

    // Accepted through node 3: relayed to node 1, which holds the call.
    const accepted = record(aliceSocket, "dm:call-accepted");
    expect(await emitAck(bobLaptop, "dm:call-accept", { callId })).toEqual({ ok: true, callId });
    await eventually(() => accepted.length === 1, "alice sees the accept");
    expect(await emitAck(bobPhone, "dm:call-accept", { callId })).toEqual({ ok: false, error: "You are already in this call" });

    const phoneSignals = record(bobPhone, "dm:call-signal");
    const laptopSignals = record(bobLaptop, "dm:call-signal");
    const aliceSignals = record(aliceSocket, "dm:call-signal");
    expect(await emitAck(aliceSocket, "dm:call-signal", { callId, to: bob.id, type: "offer", sdp: "v=0 offer" })).toEqual({ ok: true, callId });
    await eventually(() => laptopSignals.length === 1, "the offer on bob's laptop (node 3)");
    expect(laptopSignals[0]).toEqual({ callId, from: alice.id, type: "offer", sdp: "v=0 offer" });
    expect(await emitAck(bobLaptop, "dm:call-signal", { callId, to: alice.id, type: "answer", sdp: "v=0 answer" })).toEqual({ ok: true, callId });
    await eventually(() => aliceSignals.length === 1, "the answer at alice");
    expect(aliceSignals[0]).toEqual({ callId, from: bob.id, type: "answer", sdp: "v=0 answer" });

    const ended = record(aliceSocket, "dm:call-ended");
    expect(await emitAck(bobLaptop, "dm:call-end", { callId })).toEqual({ ok: true, callId });
    await eventually(() => ended.length === 1, "the end at alice");
    expect(ended[0]).toEqual({ callId, endedBy: bob.id, reason: "ended" });
    await quietWindow(150); // the phone's socket: nothing later on it to wait for
    expect(phoneSignals).toEqual([]);
    expect(laptopSignals).toHaveLength(1);
  });

  test("a device that connects to node 3 while a call held by node 1 rings is rung there, and can answer", async () => {
    const alice = await register(n1);
    const bob = await register(n1);
    await serverWith(n1, alice, [bob]);
    const opened = await api(n1, "POST", `/api/v1/dm/channels/${bob.id}`, { token: alice.token });
    const conversationId: string = opened.body.id;
    const aliceSocket = await connect(n1, alice.token);
    const { callId } = await emitAck(aliceSocket, "dm:call-start", { conversationId });
    const bobLaptop = await connect(n3, bob.token);
    const rings = record(bobLaptop, "dm:call-incoming");
    await eventually(() => rings.length === 1, "bob's laptop rings on connecting");
    expect(rings[0]).toEqual({ callId, conversationId, from: { id: alice.id, username: alice.username, avatar: null } });
    const accepted = record(aliceSocket, "dm:call-accepted");
    expect(await emitAck(bobLaptop, "dm:call-accept", { callId })).toEqual({ ok: true, callId });
    await eventually(() => accepted.length === 1, "alice sees the accept");
    expect(await emitAck(aliceSocket, "dm:call-end", { callId })).toEqual({ ok: true, callId });
    await quietWindow(150); // nothing more is due on the laptop
    expect(rings).toHaveLength(1);
  });

  test("a relayed participant whose socket closes leaves the call held by another node", async () => {
    const alice = await register(n2);
    const bob = await register(n2);
    await serverWith(n2, alice, [bob]);
    const opened = await api(n2, "POST", `/api/v1/dm/channels/${bob.id}`, { token: alice.token });
    const conversationId: string = opened.body.id;
    const aliceSocket = await connect(n2, alice.token);
    const bobSocket = await connect(n1, bob.token);
    const { callId } = await emitAck(aliceSocket, "dm:call-start", { conversationId });
    expect(await emitAck(bobSocket, "dm:call-accept", { callId })).toEqual({ ok: true, callId });
    const left = record(aliceSocket, "dm:call-left");
    const ended = record(aliceSocket, "dm:call-ended");
    bobSocket.close();
    await eventually(() => left.length + ended.length >= 1, "bob's leave seen by alice");
    expect([...left, ...ended][0]).toMatchObject({ callId });
  });

  test("leaving a group DM through node 3 takes the member out of its call held by node 1", async () => {
    const owner = await register(n1);
    const second = await register(n1);
    const third = await register(n1);
    await serverWith(n1, owner, [second, third]);
    const group = await api(n1, "POST", "/api/v1/dm/groups", { token: owner.token, body: { member_ids: [second.id, third.id] } });
    expect(group.status).toBeLessThan(300);
    const ownerSocket = await connect(n1, owner.token);
    const secondSocket = await connect(n2, second.token);
    const thirdSocket = await connect(n1, third.token);
    const { callId } = await emitAck(ownerSocket, "dm:call-start", { conversationId: group.body.id });
    expect(await emitAck(secondSocket, "dm:call-accept", { callId })).toEqual({ ok: true, callId });
    expect(await emitAck(thirdSocket, "dm:call-accept", { callId })).toEqual({ ok: true, callId });
    const left = record(ownerSocket, "dm:call-left");
    const leave = await api(n3, "POST", `/api/v1/dm/groups/${group.body.id}/leave`, { token: second.token });
    expect(leave.status).toBe(200);
    await eventually(() => left.length === 1, "the departure applied by node 1");
    expect(left[0]).toMatchObject({ callId, userId: second.id });
  });
});
