/**
 * Who is in each voice channel on several nodes (docs/voice.md, "Who is in each voice channel"):
 * the room's home publishes `voice:channel-update` (the bus reaches every node) and writes the
 * room's snapshot to Redis, which `GET /servers/:id/voice-states` reads through any node.
 */
import { describe, expect, test } from "bun:test";
import { Redis } from "ioredis";
import { api, connect, emitAck, eventually, record, register, REDIS_URL, serverWith, useThreeNodes, type ClientSocket, type ClusterUser, type HearthNode } from "./nodes.ts";

let n1: HearthNode, n2: HearthNode, n3: HearthNode;
useThreeNodes((nodes) => ([n1, n2, n3] = nodes));

const occupant = (user: ClusterUser, extra: Record<string, unknown> = {}) => ({
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

async function voiceServer() {
  const owner = await register(n1);
  const member = await register(n2);
  const third = await register(n3);
  const { serverId } = await serverWith(n1, owner, [member, third]);
  const created = await api(n1, "POST", `/api/v1/channels/${serverId}`, { token: owner.token, body: { name: "Lounge", type: "voice" } });
  expect(created.status).toBe(201);
  return { owner, member, third, serverId, voiceId: created.body.id as string };
}

async function watcher(node: HearthNode, user: ClusterUser, serverId: string): Promise<ClientSocket> {
  const socket = await connect(node, user.token);
  expect(await emitAck(socket, "server:join", serverId)).toEqual({ ok: true, serverId });
  return socket;
}

const states = async (node: HearthNode, serverId: string, viewer: ClusterUser) => {
  const res = await api(node, "GET", `/api/v1/servers/${serverId}/voice-states`, { token: viewer.token });
  expect(res.status).toBe(200);
  return res.body as { channel_id: string; occupants: { user_id: string; muted: boolean }[]; audience_count: number }[];
};

describe("voice occupants across nodes", () => {
  test("a join on node 1 reaches a member on node 2, whose node lists it; after the leave, nothing", async () => {
    const { owner, member, serverId, voiceId } = await voiceServer();
    const onB = await watcher(n2, member, serverId);
    const seen = record(onB, "voice:channel-update");
    const voice = await connect(n1, owner.token);
    expect(await emitAck(voice, "voice:join", { channelId: voiceId })).toMatchObject({ ok: true, channelId: voiceId });

    const room = { channel_id: voiceId, occupants: [occupant(owner)], audience_count: 0 };
    await eventually(() => seen.length === 1, "node 2's member gets the join");
    expect(seen[0]).toEqual({ server_id: serverId, ...room });
    expect(await states(n2, serverId, member)).toEqual([room]);

    expect(await emitAck(voice, "voice:state", { muted: true })).toMatchObject({ ok: true, muted: true });
    await eventually(() => seen.at(-1)?.occupants[0]?.muted === true, "node 2's member sees the mute");
    await eventually(async () => (await states(n3, serverId, member))[0]?.occupants[0]?.muted === true, "node 3 lists the mute");

    expect(await emitAck(voice, "voice:leave")).toEqual({ ok: true, channelId: voiceId });
    await eventually(() => seen.at(-1)?.occupants.length === 0, "node 2's member sees the leave");
    expect(seen.at(-1)).toEqual({ server_id: serverId, channel_id: voiceId, occupants: [], audience_count: 0 });
    expect(await states(n2, serverId, member)).toEqual([]);
  });

  test("a member relayed from node 2 to the room's home on node 1 is listed through node 3", async () => {
    const { owner, member, third, serverId, voiceId } = await voiceServer();
    const onC = await watcher(n3, third, serverId);
    const seen = record(onC, "voice:channel-update");
    const home = await connect(n1, owner.token);
    await emitAck(home, "voice:join", { channelId: voiceId });
    const relayed = await connect(n2, member.token);
    expect(await emitAck(relayed, "voice:join", { channelId: voiceId })).toMatchObject({ ok: true, channelId: voiceId });
    await eventually(() => seen.at(-1)?.occupants.length === 2, "node 3's member sees both");
    const listed = await states(n3, serverId, third);
    expect(listed.map((s) => s.occupants.map((o) => o.user_id))).toEqual([[owner.id, member.id]]);
    relayed.close();
    await eventually(async () => (await states(n3, serverId, third))[0]?.occupants.length === 1, "the relayed member's disconnect is listed");
  });

  test("a snapshot written by a node that is not alive is not listed", async () => {
    const { owner, serverId, voiceId } = await voiceServer();
    const redis = new Redis(REDIS_URL);
    try {
      const stale = { channel_id: voiceId, occupants: [occupant(owner)], audience_count: 0 };
      await redis.hset(`hearth:voice-states:${serverId}`, voiceId, JSON.stringify({ node: "01a20805-7d72-77cc-b541-8c28e661b52b", state: stale }));
      expect(await states(n2, serverId, owner)).toEqual([]);
    } finally {
      redis.disconnect();
    }
  });
});
