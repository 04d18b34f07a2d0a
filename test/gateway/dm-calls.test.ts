import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addMember, createServer } from "../helpers/community.ts";
import { recordEvents, startServer, waitForEvent, type TestServer, type TestUser } from "../helpers/server.ts";
import { letTimePass, quietWindow, until } from "../helpers/wait.ts";

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

    await quietWindow(50); // the laptop's and the stranger's sockets: nothing later on them to wait for
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

  test("a device that connects while the call rings is rung at once; the others are not rung twice; after an answer nobody is", async () => {
    const { users } = await people();
    const [alice, bob] = users as [TestUser, TestUser];
    const conversationId = await openDm(alice, bob);
    const aliceSocket = await server.connect(alice.token);
    const bobPhone = await server.connect(bob.token);
    const phoneRings = recordEvents(bobPhone, "dm:call-incoming");
    const { callId } = await aliceSocket.emitWithAck("dm:call-start", { conversationId });
    await until(() => phoneRings.length === 1, "the phone rings");

    // Bob opens the app on his laptop during the ring (the first ring went out before it was there).
    const bobLaptop = await server.connect(bob.token);
    const laptopRings = recordEvents(bobLaptop, "dm:call-incoming");
    const aliceTablet = await server.connect(alice.token);
    const tabletRings = recordEvents(aliceTablet, "dm:call-incoming");
    await until(() => laptopRings.length === 1, "the laptop rings on connecting");
    expect(laptopRings).toEqual([{ callId, conversationId, from: { id: alice.id, username: alice.username, avatar: null } }]);
    expect(await bobLaptop.emitWithAck("dm:call-accept", { callId })).toEqual({ ok: true, callId });

    // Answered: a device that connects now is not rung.
    const bobDesktop = await server.connect(bob.token);
    const desktopRings = recordEvents(bobDesktop, "dm:call-incoming");
    await quietWindow(100); // nothing is due on these sockets
    expect(desktopRings).toEqual([]);
    expect(tabletRings).toEqual([]); // the caller is not rung
    expect(phoneRings).toHaveLength(1);
    await aliceSocket.emitWithAck("dm:call-end", { callId });
    for (const s of [aliceSocket, aliceTablet, bobPhone, bobLaptop, bobDesktop]) s.close();
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
      await letTimePass(300, "twice the 150 ms ring timeout");
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

/**
 * Calling is messaging (issue 14, point 12): a call is refused where a message would be, nobody
 * who muted the caller is rung, and whoever leaves a group DM leaves its call.
 */
describe("DM calls follow the messaging rules", () => {
  const CANNOT_MESSAGE = "You can only message users who share a server with you or are your friends";
  const CALL_EVENTS = ["dm:call-incoming", "dm:call-accepted", "dm:call-declined", "dm:call-left", "dm:call-ended", "dm:call-signal"];

  /** Every call event `socket` receives, as [event, payload] in order. */
  function callEvents(socket: Awaited<ReturnType<TestServer["connect"]>>) {
    const seen: [string, any][] = [];
    for (const event of CALL_EVENTS) socket.on(event, (payload) => seen.push([event, payload]));
    return seen;
  }

  const leaveServer = (user: TestUser, serverId: string) =>
    server.api("DELETE", `/api/v1/servers/${serverId}/leave`, { token: user.token });
  const mute = (user: TestUser, target: TestUser) => server.api("POST", `/api/v1/users/me/muted-users/${target.id}`, { token: user.token });

  test("after F left the only shared server and muted E, E's call is refused like E's DM, and F hears nothing", async () => {
    const e = await server.register();
    const f = await server.register();
    const serverId = await createServer(server, e);
    await addMember(server, serverId, f);
    const conversationId = await openDm(e, f);
    expect((await leaveServer(f, serverId)).status).toBe(200);
    expect((await mute(f, e)).status).toBe(201);

    const eSocket = await server.connect(e.token);
    const fSocket = await server.connect(f.token);
    const fHeard = callEvents(fSocket);
    const dm = await server.api("POST", `/api/v1/dm/${f.id}/messages`, { token: e.token, body: { content: "hi" } });
    expect(dm).toMatchObject({ status: 403, body: { error: CANNOT_MESSAGE } });
    expect(await eSocket.emitWithAck("dm:call-start", { conversationId })).toEqual({ ok: false, error: CANNOT_MESSAGE });
    // Nor the other way round.
    expect(await fSocket.emitWithAck("dm:call-start", { conversationId })).toEqual({ ok: false, error: CANNOT_MESSAGE });
    await quietWindow(50);
    expect(fHeard).toEqual([]);
    eSocket.close();
    fSocket.close();
  });

  test("a member who muted the caller is not rung, not told, and cannot answer; the call rings on unanswered", async () => {
    const { users } = await people(3);
    const [caller, muter, other] = users as [TestUser, TestUser, TestUser];
    const groupId = await openGroup(caller, [muter, other]);
    expect((await mute(muter, caller)).status).toBe(201);
    const callerSocket = await server.connect(caller.token);
    const muterSocket = await server.connect(muter.token);
    const otherSocket = await server.connect(other.token);
    const muterHeard = callEvents(muterSocket);

    const ringOther = waitForEvent(otherSocket, "dm:call-incoming");
    const { callId } = await callerSocket.emitWithAck("dm:call-start", { conversationId: groupId });
    expect((await ringOther).callId).toBe(callId);
    expect(await muterSocket.emitWithAck("dm:call-accept", { callId })).toEqual({ ok: false, error: "Call not found" });
    const accepted = waitForEvent(callerSocket, "dm:call-accepted");
    await otherSocket.emitWithAck("dm:call-accept", { callId });
    await accepted;
    await callerSocket.emitWithAck("dm:call-end", { callId });
    expect(muterHeard).toEqual([]); // and still so after the ring timeout below

    // 1:1: a muted caller's call starts (a mute is not told) and rings nobody until the timeout.
    const conversationId = await openDm(caller, muter);
    const calls = server.app.domain.dmCalls;
    calls.ringTimeoutMs = 150;
    try {
      const started = await callerSocket.emitWithAck("dm:call-start", { conversationId });
      expect(started).toEqual({ ok: true, callId: expect.any(String), conversationId });
      expect(await waitForEvent(callerSocket, "dm:call-ended")).toEqual({ callId: started.callId, endedBy: null, reason: "timeout" });
    } finally {
      calls.ringTimeoutMs = 60_000;
    }
    expect(muterHeard).toEqual([]);
    for (const s of [callerSocket, muterSocket, otherSocket]) s.close();
  });

  test("while a group call rings, a new device of whoever muted the caller or declined is not rung; one of a member still rung is", async () => {
    const { users } = await people(4);
    const [caller, muter, decliner, waiting] = users as [TestUser, TestUser, TestUser, TestUser];
    const groupId = await openGroup(caller, [muter, decliner, waiting]);
    expect((await mute(muter, caller)).status).toBe(201);
    const callerSocket = await server.connect(caller.token);
    const declinerSocket = await server.connect(decliner.token);
    const ringDecliner = waitForEvent(declinerSocket, "dm:call-incoming");
    const { callId } = await callerSocket.emitWithAck("dm:call-start", { conversationId: groupId });
    await ringDecliner;
    expect(await declinerSocket.emitWithAck("dm:call-decline", { callId })).toEqual({ ok: true, callId });

    const muterLaptop = await server.connect(muter.token);
    const muterHeard = callEvents(muterLaptop);
    const declinerLaptop = await server.connect(decliner.token);
    const declinerRings = recordEvents(declinerLaptop, "dm:call-incoming");
    const waitingLaptop = await server.connect(waiting.token);
    const waitingRings = recordEvents(waitingLaptop, "dm:call-incoming");
    await until(() => waitingRings.length === 1, "the member still rung hears it on connecting");
    expect(waitingRings[0]).toMatchObject({ callId, conversationId: groupId });
    await quietWindow(100); // nothing is due on the other two
    expect(muterHeard).toEqual([]);
    expect(declinerRings).toEqual([]);
    await callerSocket.emitWithAck("dm:call-end", { callId });
    for (const s of [callerSocket, declinerSocket, muterLaptop, declinerLaptop, waitingLaptop]) s.close();
  });

  test("1:1: losing the shared server mid-call stops signalling and answering", async () => {
    const e = await server.register();
    const f = await server.register();
    const g = await server.register();
    const serverId = await createServer(server, e);
    await addMember(server, serverId, f);
    await addMember(server, serverId, g);
    const conversationId = await openDm(e, f);
    const eSocket = await server.connect(e.token);
    const fSocket = await server.connect(f.token);
    const { callId } = await eSocket.emitWithAck("dm:call-start", { conversationId });
    await fSocket.emitWithAck("dm:call-accept", { callId });
    const offer = waitForEvent(fSocket, "dm:call-signal");
    expect(await eSocket.emitWithAck("dm:call-signal", { callId, to: f.id, type: "offer" })).toEqual({ ok: true, callId });
    await offer;

    expect((await leaveServer(f, serverId)).status).toBe(200);
    const fSignals = recordEvents(fSocket, "dm:call-signal");
    const eSignals = recordEvents(eSocket, "dm:call-signal");
    expect(await eSocket.emitWithAck("dm:call-signal", { callId, to: f.id, type: "candidate" })).toEqual({ ok: false, error: CANNOT_MESSAGE });
    expect(await fSocket.emitWithAck("dm:call-signal", { callId, to: e.id, type: "answer" })).toEqual({ ok: false, error: CANNOT_MESSAGE });
    await eSocket.emitWithAck("dm:call-end", { callId });

    // A call that was ringing when the server was lost cannot be answered either.
    const gConversation = await openDm(e, g);
    const gSocket = await server.connect(g.token);
    const ring = await eSocket.emitWithAck("dm:call-start", { conversationId: gConversation });
    expect((await leaveServer(g, serverId)).status).toBe(200);
    expect(await gSocket.emitWithAck("dm:call-accept", { callId: ring.callId })).toEqual({ ok: false, error: CANNOT_MESSAGE });
    await quietWindow(50);
    expect(fSignals).toEqual([]);
    expect(eSignals).toEqual([]);
    for (const s of [eSocket, fSocket, gSocket]) s.close();
  });

  test("a member removed from a group DM mid-call is out of the call: no more accepts, signals or ends reach them", async () => {
    const { users } = await people(4);
    const [owner, ann, ben, cat] = users as [TestUser, TestUser, TestUser, TestUser];
    const groupId = await openGroup(owner, [ann, ben, cat]);
    const ownerSocket = await server.connect(owner.token);
    const annSocket = await server.connect(ann.token);
    const benSocket = await server.connect(ben.token);
    const catSocket = await server.connect(cat.token);
    const { callId } = await ownerSocket.emitWithAck("dm:call-start", { conversationId: groupId });
    // Both accepts reach every member (on PostgreSQL each after a round trip of its own) before the recording below starts.
    const everySocket = [ownerSocket, annSocket, benSocket, catSocket];
    const bothAccepted = [ann, ben].flatMap((who) => everySocket.map((s) => waitForEvent(s, "dm:call-accepted", { filter: (p) => p.userId === who.id })));
    for (const s of [annSocket, benSocket]) expect(await s.emitWithAck("dm:call-accept", { callId })).toEqual({ ok: true, callId });
    await Promise.all(bothAccepted);

    const benHeard = callEvents(benSocket);
    const othersHeard = [ownerSocket, annSocket, catSocket].map(callEvents);
    expect((await server.api("DELETE", `/api/v1/dm/groups/${groupId}/members/${ben.id}`, { token: owner.token })).status).toBe(200);
    await until(() => benHeard.length > 0 && othersHeard.every((heard) => heard.length > 0), "the removal told to everyone");
    expect(benHeard).toEqual([["dm:call-ended", { callId, endedBy: owner.id, reason: "removed" }]]);
    for (const heard of othersHeard) expect(heard).toEqual([["dm:call-left", { callId, userId: ben.id, reason: "removed" }]]);

    // The call goes on without Ben: Cat (still ringing) answers, the others signal; Ben hears none of it.
    const accepted = waitForEvent(annSocket, "dm:call-accepted");
    await catSocket.emitWithAck("dm:call-accept", { callId });
    expect(await accepted).toEqual({ callId, userId: cat.id });
    const offer = waitForEvent(annSocket, "dm:call-signal");
    expect(await ownerSocket.emitWithAck("dm:call-signal", { callId, to: ann.id, type: "offer" })).toEqual({ ok: true, callId });
    await offer;
    expect(await ownerSocket.emitWithAck("dm:call-signal", { callId, to: ben.id, type: "offer" })).toEqual({
      ok: false,
      error: "to: must be another participant of this call",
    });
    expect(await benSocket.emitWithAck("dm:call-signal", { callId, to: owner.id, type: "offer" })).toEqual({ ok: false, error: "Call not found" });
    expect(await benSocket.emitWithAck("dm:call-accept", { callId })).toEqual({ ok: false, error: "Call not found" });

    // Leaving is the same; when only the caller is left, the call ends.
    expect((await server.api("POST", `/api/v1/dm/groups/${groupId}/leave`, { token: ann.token })).status).toBe(200);
    const ended = waitForEvent(ownerSocket, "dm:call-ended");
    expect((await server.api("POST", `/api/v1/dm/groups/${groupId}/leave`, { token: cat.token })).status).toBe(200);
    expect(await ended).toEqual({ callId, endedBy: cat.id, reason: "removed" });
    await quietWindow(50); // Ben's socket: nothing later on it to wait for
    expect(benHeard).toEqual([["dm:call-ended", { callId, endedBy: owner.id, reason: "removed" }]]);
    for (const s of [ownerSocket, annSocket, benSocket, catSocket]) s.close();
  });

  test("the caller leaving the group, or the group being deleted, ends the call for everyone", async () => {
    const { users } = await people(3);
    const [owner, ann, ben] = users as [TestUser, TestUser, TestUser];
    const ownerSocket = await server.connect(owner.token);
    const annSocket = await server.connect(ann.token);
    const benSocket = await server.connect(ben.token);

    const groupId = await openGroup(owner, [ann, ben]);
    const first = await annSocket.emitWithAck("dm:call-start", { conversationId: groupId });
    await benSocket.emitWithAck("dm:call-accept", { callId: first.callId });
    const endedAtBen = waitForEvent(benSocket, "dm:call-ended");
    expect((await server.api("POST", `/api/v1/dm/groups/${groupId}/leave`, { token: ann.token })).status).toBe(200);
    expect(await endedAtBen).toEqual({ callId: first.callId, endedBy: ann.id, reason: "removed" });

    const second = await ownerSocket.emitWithAck("dm:call-start", { conversationId: groupId });
    await benSocket.emitWithAck("dm:call-accept", { callId: second.callId });
    const endings = [ownerSocket, benSocket].map((s) => waitForEvent(s, "dm:call-ended"));
    expect((await server.api("DELETE", `/api/v1/dm/groups/${groupId}`, { token: owner.token })).status).toBe(200);
    for (const ending of endings) expect(await ending).toEqual({ callId: second.callId, endedBy: owner.id, reason: "removed" });
    expect(await benSocket.emitWithAck("dm:call-signal", { callId: second.callId, to: owner.id })).toEqual({ ok: false, error: "Call not found" });
    for (const s of [ownerSocket, annSocket, benSocket]) s.close();
  });
});
