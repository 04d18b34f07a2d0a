/**
 * A voice room whose home node dies (docs/audio.md, "Several nodes"; docs/operations.md, "A
 * voice room's home node lost"): the relayed members are told at once, and a join from another
 * node is answered within a couple of seconds (the dead node is found refusing connections and
 * declared dead), not after its 10 s heartbeat TTL.
 */
import { afterAll, expect, test } from "bun:test";
import { api, closeSockets, connect, emitAck, eventually, record, register, serverWith, startNodes, type HearthNode, type Nodes } from "./nodes.ts";

let cluster: Nodes;

afterAll(async () => {
  closeSockets();
  await cluster?.stop();
});

const ids = (ack: { participants: { userId: string }[] }) => ack.participants.map((p) => p.userId).sort();

test("SIGKILL of a room's home: relayed members get voice:error at once; joins on the other nodes are answered within ~2 s and the new room carries audio; the channel list drops the dead node's rooms and tells of the one left empty", async () => {
  cluster = await startNodes(3);
  const [n1, n2, n3] = cluster.nodes as [HearthNode, HearthNode, HearthNode];
  const [owner, bob, carol, dave, eve, fay] = [await register(n1), await register(n1), await register(n1), await register(n1), await register(n1), await register(n1)];
  const { serverId } = await serverWith(n1, owner, [bob, carol, dave, eve, fay]);
  const voiceChannel = async (name: string) => {
    const created = await api(n1, "POST", `/api/v1/channels/${serverId}`, { token: owner.token, body: { name, type: "voice" } });
    expect(created.status).toBe(201);
    return created.body.id as string;
  };
  const lounge = await voiceChannel("Lounge");
  const den = await voiceChannel("Den");
  const nook = await voiceChannel("Nook");

  // The owner's join on node 1 makes it the Lounge's home; Bob (node 2) and Carol (node 3) are relayed there.
  const a = await connect(n1, owner.token);
  const b = await connect(n2, bob.token);
  const c = await connect(n3, carol.token);
  for (const socket of [a, b, c]) expect(await emitAck(socket, "voice:join", { channelId: lounge })).toMatchObject({ ok: true, channelId: lounge });
  // The Den is held by node 1 too, with nobody relayed to it: Dave (node 3) has no link there.
  const e = await connect(n1, eve.token);
  expect(await emitAck(e, "voice:join", { channelId: den })).toMatchObject({ ok: true, channelId: den });
  const d = await connect(n3, dave.token);
  // The Nook: only Fay, on node 1; nobody joins it again, so the channel list must show it emptied.
  const f = await connect(n1, fay.token);
  expect(await emitAck(f, "voice:join", { channelId: nook })).toMatchObject({ ok: true, channelId: nook });
  const watcher = await connect(n2, owner.token);
  expect(await emitAck(watcher, "server:join", serverId)).toEqual({ ok: true, serverId });
  const updates = record(watcher, "voice:channel-update");
  const errors = { b: record(b, "voice:error"), c: record(c, "voice:error") };

  const killedAt = performance.now();
  await n1.kill("SIGKILL");
  const sinceKill = () => Math.round(performance.now() - killedAt);

  // A join through a link that cannot open: node 1 is found dead on the way, and the join is made again here.
  const daveJoin = await emitAck(d, "voice:join", { channelId: den });
  const denJoinedMs = sinceKill();
  expect(daveJoin).toMatchObject({ ok: true, channelId: den });
  expect(ids(daveJoin)).toEqual([dave.id]);

  await eventually(() => errors.b.length >= 1 && errors.c.length >= 1, "voice:error at Bob and Carol", 5000);
  const toldMs = sinceKill();
  expect(errors.b).toEqual([{ error: "The voice room's node went away; join again" }]);
  const bobJoin = await emitAck(b, "voice:join", { channelId: lounge });
  const loungeJoinedMs = sinceKill();
  expect(bobJoin).toMatchObject({ ok: true, channelId: lounge });
  expect(ids(bobJoin)).toEqual([bob.id]);
  const carolJoin = await emitAck(c, "voice:join", { channelId: lounge });
  expect(ids(carolJoin)).toEqual([bob.id, carol.id].sort());
  console.log(`voice home lost: a join with no link answered after ${denJoinedMs} ms; relayed members told after ${toldMs} ms, their join answered after ${loungeJoinedMs} ms`);
  expect(denJoinedMs).toBeLessThan(3000);
  expect(loungeJoinedMs).toBeLessThan(3000);

  // The new room carries audio: Carol's frame (node 3) reaches Bob (node 2, the new home) once.
  const heard = record(b, "bot:audio-data");
  c.emit("bot:audio-data", { channelId: lounge, pcm: new Uint8Array(3840).fill(7), sampleRate: 48000, channels: 2 });
  await eventually(() => heard.length === 1, "Bob hears Carol in the new room", 3000);

  // The channel list: each room as its new home holds it; the dead node's members are gone from it.
  let text = "";
  await eventually(async () => {
    const states = await api(n3, "GET", `/api/v1/servers/${serverId}/voice-states`, { token: bob.token });
    expect(states.status).toBe(200);
    text = JSON.stringify(states.body);
    return text.includes(carol.id);
  }, () => `the Lounge with Carol in the channel list: ${text}`, 3000);
  expect(text).not.toContain(owner.id);
  expect(text).not.toContain(eve.id);
  expect(text).not.toContain(fay.id);
  expect(text).not.toContain(nook);

  // Those who see the channel list are told the dead node's room that nobody joined again is empty, once.
  await eventually(() => updates.some((u) => u.channel_id === nook), "voice:channel-update for the Nook", 5000);
  expect(updates.filter((u) => u.channel_id === nook)).toEqual([{ server_id: serverId, channel_id: nook, occupants: [], audience_count: 0 }]);
  expect(text).toContain(dave.id);
  expect(text).toContain(carol.id);
});
