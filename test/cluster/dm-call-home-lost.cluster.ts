/**
 * A DM call whose home node dies (docs/dm-calls.md, "Several nodes"): the node that sweeps the
 * dead one ends its calls for their members with `dm:call-ended`, once.
 */
import { afterAll, expect, test } from "bun:test";
import { api, closeSockets, connect, emitAck, eventually, record, register, serverWith, startNodes, type HearthNode, type Nodes } from "./nodes.ts";
import { letTimePass } from "../helpers/wait.ts";

let cluster: Nodes;

afterAll(async () => {
  closeSockets();
  await cluster?.stop();
});

test("killing a call's home (SIGKILL): the members on the other nodes get dm:call-ended {endedBy: null, reason: disconnect} once; a call that had ended gets nothing more", async () => {
  cluster = await startNodes(3);
  const [n1, n2, n3] = cluster.nodes as [HearthNode, HearthNode, HearthNode];
  const alice = await register(n1);
  const bob = await register(n1);
  const carol = await register(n1);
  const dave = await register(n1);
  await serverWith(n1, alice, [bob, carol, dave]);
  const group = await api(n1, "POST", "/api/v1/dm/groups", { token: alice.token, body: { member_ids: [bob.id, carol.id] } });
  expect(group.status).toBeLessThan(300);
  const direct = await api(n1, "POST", `/api/v1/dm/channels/${dave.id}`, { token: alice.token });
  expect(direct.status).toBeLessThan(300);

  // Alice calls from node 3 (the calls' home); Bob accepts from node 1, Carol still rings on node 2.
  const aliceSocket = await connect(n3, alice.token);
  const bobSocket = await connect(n1, bob.token);
  const carolSocket = await connect(n2, carol.token);
  const daveSocket = await connect(n1, dave.token);
  const ended = { bob: record(bobSocket, "dm:call-ended"), carol: record(carolSocket, "dm:call-ended"), dave: record(daveSocket, "dm:call-ended") };
  const rung = record(carolSocket, "dm:call-incoming");
  const { callId } = await emitAck(aliceSocket, "dm:call-start", { conversationId: group.body.id });
  expect(await emitAck(bobSocket, "dm:call-accept", { callId })).toEqual({ ok: true, callId });
  await eventually(() => rung.length === 1, "Carol rung");
  // A call with Dave, held by node 3 too, that Dave declines: it is over before the node dies.
  const other = await emitAck(aliceSocket, "dm:call-start", { conversationId: direct.body.id });
  expect(await emitAck(daveSocket, "dm:call-decline", { callId: other.callId })).toEqual({ ok: true, callId: other.callId });
  await eventually(() => ended.dave.length === 1, "Dave's call ended by his decline");
  expect(ended.dave).toEqual([{ callId: other.callId, endedBy: dave.id, reason: "declined" }]);

  await n3.kill("SIGKILL");
  const lost = { callId, endedBy: null, reason: "disconnect" };
  // Noticed when node 3's heartbeat expires (10 s) and a survivor sweeps it (every 3 s).
  await eventually(() => ended.bob.length === 1 && ended.carol.length === 1, "dm:call-ended at Bob and Carol", 40_000);
  expect(ended.bob).toEqual([lost]);
  expect(ended.carol).toEqual([lost]);
  // Past another sweep (every 3 s): the call is not ended twice, nor Dave's other call again.
  await letTimePass(4000, "another sweep of the lost node's calls");
  expect([ended.bob.length, ended.carol.length, ended.dave.length]).toEqual([1, 1, 1]);

  // The conversation can call again: the next start chooses a living home.
  const again = await emitAck(bobSocket, "dm:call-start", { conversationId: group.body.id });
  expect(again).toMatchObject({ ok: true, conversationId: group.body.id });
});
