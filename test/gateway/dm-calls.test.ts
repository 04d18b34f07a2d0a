import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addMember, createServer } from "../helpers/community.ts";
import { recordEvents, sleep, startServer, waitForEvent, type TestServer, type TestUser } from "../helpers/server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";

/** Users who share a server (so they may DM each other), plus an outsider. */
async function people(count = 2) {
  const users: TestUser[] = [];
  for (let i = 0; i < count; i++) users.push(await server.register());
  const serverId = await createServer(server, users[0]!);
  for (const user of users.slice(1)) await addMember(server, serverId, user);
  return { users, outsider: await server.register() };
}

async function openDm(a: TestUser, b: TestUser): Promise<string> {
  const res = await server.api("POST", `/api/v1/dm/channels/${b.id}`, { token: a.token });
  if (res.status >= 300) throw new Error(`open DM failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

async function openGroup(owner: TestUser, others: TestUser[]): Promise<string> {
  const res = await server.api("POST", "/api/v1/dm/groups", { token: owner.token, body: { member_ids: others.map((u) => u.id) } });
  if (res.status >= 300) throw new Error(`create group failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

describe("DM calls", () => {
  test("1:1: ring, accept, signal to the peer's call socket only, hang up", async () => {
    const { users, outsider } = await people();
    const [alice, bob] = users as [TestUser, TestUser];
    const conversationId = await openDm(alice, bob);
    const aliceSocket = await server.connect(alice.token);
    const bobPhone = await server.connect(bob.token);
    const bobLaptop = await server.connect(bob.token);
    const stranger = await server.connect(outsider.token);
    const aliceIncoming = recordEvents(aliceSocket, "dm:call-incoming");
    const strangerSaw = [...["dm:call-incoming", "dm:call-accepted", "dm:call-signal", "dm:call-ended"].map((e) => recordEvents(stranger, e))];

    const ringPhone = waitForEvent(bobPhone, "dm:call-incoming");
    const ringLaptop = waitForEvent(bobLaptop, "dm:call-incoming");
    const started = await aliceSocket.emitWithAck("dm:call-start", { conversationId });
    expect(started).toEqual({ ok: true, callId: expect.any(String), conversationId });
    const { callId } = started;
    const incoming = { callId, conversationId, from: { id: alice.id, username: alice.username, avatar: null } };
    expect(await ringPhone).toEqual(incoming);
    expect(await ringLaptop).toEqual(incoming);

    const acceptedAtAlice = waitForEvent(aliceSocket, "dm:call-accepted");
    const acceptedAtLaptop = waitForEvent(bobLaptop, "dm:call-accepted");
    expect(await bobPhone.emitWithAck("dm:call-accept", { callId })).toEqual({ ok: true, callId });
    expect(await acceptedAtAlice).toEqual({ callId, userId: bob.id });
    expect(await acceptedAtLaptop).toEqual({ callId, userId: bob.id });
    expect(await bobLaptop.emitWithAck("dm:call-accept", { callId })).toEqual({ ok: false, error: "You are already in this call" });

    const laptopSignals = recordEvents(bobLaptop, "dm:call-signal");
    const offer = waitForEvent(bobPhone, "dm:call-signal");
    expect(await aliceSocket.emitWithAck("dm:call-signal", { callId, to: bob.id, type: "offer", sdp: "v=0 offer" })).toEqual({ ok: true, callId });
    expect(await offer).toEqual({ callId, from: alice.id, type: "offer", sdp: "v=0 offer" });
    const answer = waitForEvent(aliceSocket, "dm:call-signal");
    await bobPhone.emitWithAck("dm:call-signal", { callId, to: alice.id, type: "answer", sdp: "v=0 answer", from: "forged" });
    expect(await answer).toEqual({ callId, from: bob.id, type: "answer", sdp: "v=0 answer" });

    const endedAtAlice = waitForEvent(aliceSocket, "dm:call-ended");
    expect(await bobPhone.emitWithAck("dm:call-end", { callId })).toEqual({ ok: true, callId });
    expect(await endedAtAlice).toEqual({ callId, endedBy: bob.id, reason: "ended" });
    expect(await aliceSocket.emitWithAck("dm:call-end", { callId })).toEqual({ ok: false, error: "Call not found" });

    await sleep(50);
    expect(aliceIncoming).toEqual([]);
    expect(laptopSignals).toEqual([]);
    expect(strangerSaw.flat()).toEqual([]);
    for (const s of [aliceSocket, bobPhone, bobLaptop, stranger]) s.close();
  });

  test("refusals: non-members, unknown ids, a second call, bad payloads, signals outside the call", async () => {
    const { users, outsider } = await people();
    const [alice, bob] = users as [TestUser, TestUser];
    const conversationId = await openDm(alice, bob);
    const aliceSocket = await server.connect(alice.token);
    const bobSocket = await server.connect(bob.token);
    const stranger = await server.connect(outsider.token);

    expect(await stranger.emitWithAck("dm:call-start", { conversationId })).toEqual({ ok: false, error: "Conversation not found" });
    expect(await aliceSocket.emitWithAck("dm:call-start", { conversationId: UNKNOWN })).toEqual({ ok: false, error: "Conversation not found" });
    expect(await aliceSocket.emitWithAck("dm:call-start", { conversationId: "nope" })).toEqual({ ok: false, error: "Conversation not found" });
    expect(await aliceSocket.emitWithAck("dm:call-start", "nope")).toEqual({ ok: false, error: "payload: must be an object {conversationId}" });
    expect(await aliceSocket.emitWithAck("dm:call-start", [conversationId])).toEqual({ ok: false, error: "payload: must be an object {conversationId}" });
    expect(await aliceSocket.emitWithAck("dm:call-end", [])).toEqual({ ok: false, error: "payload: must be an object {callId}" });
    expect(await aliceSocket.emitWithAck("dm:call-signal", null)).toEqual({ ok: false, error: "payload: must be an object {callId, to, ...}" });

    const { callId } = await aliceSocket.emitWithAck("dm:call-start", { conversationId });
    expect(await bobSocket.emitWithAck("dm:call-start", { conversationId })).toEqual({
      ok: false,
      error: "A call is already in progress in this conversation",
    });
    expect(await stranger.emitWithAck("dm:call-accept", { callId })).toEqual({ ok: false, error: "Call not found" });
    expect(await bobSocket.emitWithAck("dm:call-accept", { callId: UNKNOWN })).toEqual({ ok: false, error: "Call not found" });
    expect(await bobSocket.emitWithAck("dm:call-accept", {})).toEqual({ ok: false, error: "Call not found" });
    // Bob is still ringing: he is not in the call yet.
    expect(await bobSocket.emitWithAck("dm:call-end", { callId })).toEqual({ ok: false, error: "You are not in this call" });
    expect(await bobSocket.emitWithAck("dm:call-signal", { callId, to: alice.id })).toEqual({ ok: false, error: "You are not in this call" });
    expect(await aliceSocket.emitWithAck("dm:call-signal", { callId, to: bob.id })).toEqual({
      ok: false,
      error: "to: must be another participant of this call",
    });
    expect(await aliceSocket.emitWithAck("dm:call-decline", { callId })).toEqual({ ok: false, error: "You are in this call; end it instead" });

    const ended = waitForEvent(bobSocket, "dm:call-ended");
    await aliceSocket.emitWithAck("dm:call-end", { callId });
    expect(await ended).toEqual({ callId, endedBy: alice.id, reason: "ended" });
    for (const s of [aliceSocket, bobSocket, stranger]) s.close();
  });

  test("1:1 decline ends the call", async () => {
    const { users } = await people();
    const [alice, bob] = users as [TestUser, TestUser];
    const conversationId = await openDm(alice, bob);
    const aliceSocket = await server.connect(alice.token);
    const bobSocket = await server.connect(bob.token);
    const { callId } = await aliceSocket.emitWithAck("dm:call-start", { conversationId });
    const declined = waitForEvent(aliceSocket, "dm:call-declined");
    const ended = waitForEvent(aliceSocket, "dm:call-ended");
    expect(await bobSocket.emitWithAck("dm:call-decline", { callId })).toEqual({ ok: true, callId });
    expect(await declined).toEqual({ callId, userId: bob.id });
    expect(await ended).toEqual({ callId, endedBy: bob.id, reason: "declined" });
    // The conversation is free for a new call.
    expect((await bobSocket.emitWithAck("dm:call-start", { conversationId })).ok).toBe(true);
    aliceSocket.close();
    bobSocket.close();
  });

  test("an unanswered call ends after the ring timeout", async () => {
    const { users } = await people();
    const [alice, bob] = users as [TestUser, TestUser];
    const conversationId = await openDm(alice, bob);
    const aliceSocket = await server.connect(alice.token);
    const bobSocket = await server.connect(bob.token);
    const calls = server.app.domain.dmCalls;
    calls.ringTimeoutMs = 150;
    try {
      const { callId } = await aliceSocket.emitWithAck("dm:call-start", { conversationId });
      const ended = await waitForEvent(bobSocket, "dm:call-ended");
      expect(ended).toEqual({ callId, endedBy: null, reason: "timeout" });
      expect(await bobSocket.emitWithAck("dm:call-accept", { callId })).toEqual({ ok: false, error: "Call not found" });

      // An answered call outlives the ring timeout.
      const second = await aliceSocket.emitWithAck("dm:call-start", { conversationId });
      await bobSocket.emitWithAck("dm:call-accept", { callId: second.callId });
      const endings = recordEvents(aliceSocket, "dm:call-ended");
      await sleep(300);
      expect(endings).toEqual([]);
      await aliceSocket.emitWithAck("dm:call-end", { callId: second.callId });
    } finally {
      calls.ringTimeoutMs = 60_000;
    }
    aliceSocket.close();
    bobSocket.close();
  });

  test("the caller disconnecting ends the call", async () => {
    const { users } = await people();
    const [alice, bob] = users as [TestUser, TestUser];
    const conversationId = await openDm(alice, bob);
    const aliceSocket = await server.connect(alice.token);
    const bobSocket = await server.connect(bob.token);
    const { callId } = await aliceSocket.emitWithAck("dm:call-start", { conversationId });
    await bobSocket.emitWithAck("dm:call-accept", { callId });
    const ended = waitForEvent(bobSocket, "dm:call-ended");
    aliceSocket.close();
    expect(await ended).toEqual({ callId, endedBy: alice.id, reason: "disconnect" });
    bobSocket.close();
  });

  test("group call: others leave without ending it; it ends when nobody else is left", async () => {
    const { users } = await people(3);
    const [owner, ann, ben] = users as [TestUser, TestUser, TestUser];
    const groupId = await openGroup(owner, [ann, ben]);
    const ownerSocket = await server.connect(owner.token);
    const annSocket = await server.connect(ann.token);
    const benSocket = await server.connect(ben.token);
    const ringAnn = waitForEvent(annSocket, "dm:call-incoming");
    const ringBen = waitForEvent(benSocket, "dm:call-incoming");
    const { callId } = await ownerSocket.emitWithAck("dm:call-start", { conversationId: groupId });
    expect((await ringAnn).conversationId).toBe(groupId);
    expect((await ringBen).callId).toBe(callId);

    await annSocket.emitWithAck("dm:call-accept", { callId });
    const endings = recordEvents(ownerSocket, "dm:call-ended");
    const left = waitForEvent(ownerSocket, "dm:call-left");
    annSocket.close();
    expect(await left).toEqual({ callId, userId: ann.id, reason: "disconnect" });
    expect(endings).toEqual([]);

    // Ben was still ringing; his decline leaves nobody to talk to.
    const ended = waitForEvent(ownerSocket, "dm:call-ended");
    await benSocket.emitWithAck("dm:call-decline", { callId });
    expect(await ended).toEqual({ callId, endedBy: ben.id, reason: "declined" });
    ownerSocket.close();
    benSocket.close();
  });
});
