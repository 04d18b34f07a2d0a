import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { LIMITS } from "../../src/domain/shared/limits.ts";
import { DEFAULT_EVENT_LIMITS } from "../../src/gateway/event-limits.ts";
import { addMember, community, createServer } from "../helpers/community.ts";
import { recordEvents, startServer, waitForEvent, type ClientSocket, type TestServer } from "../helpers/server.ts";
import { quietWindow, until } from "../helpers/wait.ts";

/**
 * WebRTC signaling (`voice:signal`, `dm:call-signal`): each payload is capped at
 * LIMITS.voice.signalBytes serialized and refused, relayed to nobody, past it; signaling has its
 * own rate kind (docs/gateway.md, "Limits"), sized for a trickle of ICE candidates (issue 39, row 17).
 */
let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const TOO_LARGE = { ok: false, error: `payload: must be at most ${LIMITS.voice.signalBytes} bytes as JSON` };

/** An SDP offer the size of the largest Chromium makes here: audio, video with three simulcast layers, gathered candidates (about 6 KB). */
const realisticOffer = () => ({ type: "offer", sdp: `v=0\r\n${"a=candidate:1 1 udp 2122260223 192.168.1.10 51234 typ host generation 0\r\n".repeat(80)}` });

async function pairInVoice(s: TestServer) {
  const { owner, member, voiceId } = await community(s, { voice: true });
  const a = await s.connect(owner.token);
  const b = await s.connect(member.token);
  expect((await a.emitWithAck("voice:join", { channelId: voiceId })).ok).toBe(true);
  expect((await b.emitWithAck("voice:join", { channelId: voiceId })).ok).toBe(true);
  return { a, b, owner };
}

describe("voice:signal", () => {
  test("a payload past the cap is refused (also as voice:error) and relayed to nobody; a real offer and ICE candidates pass", async () => {
    const { a, b, owner } = await pairInVoice(server);
    const got = recordEvents(b, "voice:signal");
    const offer = realisticOffer();
    expect(JSON.stringify(offer).length).toBeGreaterThan(6000);

    const relayed = waitForEvent(b, "voice:signal");
    expect(await a.emitWithAck("voice:signal", { to: b.id, signal: offer })).toEqual({ ok: true, to: b.id });
    expect(await relayed).toEqual({ signal: offer, from: a.id, userId: owner.id });
    const candidate = { candidate: "candidate:1 1 udp 2122260223 192.168.1.10 51234 typ host generation 0", sdpMid: "0", sdpMLineIndex: 0 };
    expect(await a.emitWithAck("voice:signal", { to: b.id, candidate })).toEqual({ ok: true, to: b.id });

    const err = waitForEvent(a, "voice:error");
    expect(await a.emitWithAck("voice:signal", { to: b.id, signal: { sdp: "x".repeat(900_000) } })).toEqual(TOO_LARGE);
    expect(await err).toEqual({ error: TOO_LARGE.error });
    // Just past the cap, counted in bytes (multi-byte characters count for what they weigh).
    expect(await a.emitWithAck("voice:signal", { to: b.id, signal: "é".repeat(LIMITS.voice.signalBytes / 2) })).toEqual(TOO_LARGE);
    await quietWindow(50); // the refused ones are not relayed
    expect(got.length).toBe(2);
    for (const s of [a, b]) s.close();
  });

  test("signaling has its own rate, apart from the other voice events", async () => {
    const small = await startServer({ gatewayEventLimits: { ...DEFAULT_EVENT_LIMITS, signal: { perSecond: 1, burst: 3 } } });
    try {
      const { a, b } = await pairInVoice(small);
      const candidate = { candidate: "candidate:1 1 udp 1 10.0.0.1 9 typ host" };
      const acks = [];
      for (let i = 0; i < 5; i++) acks.push(await a.emitWithAck("voice:signal", { to: b.id, candidate }));
      expect(acks.slice(0, 3).every((ack) => ack.ok)).toBe(true);
      expect(acks[3]).toEqual({ ok: false, error: expect.stringMatching(/^Rate limited: too many signaling messages; retry in \d+ ms$/) });
      // Other voice events still pass: they are another kind.
      expect(await a.emitWithAck("voice:speaking", { speaking: true })).toEqual({ ok: true, speaking: true });
      for (const s of [a, b]) s.close();
    } finally {
      await small.stop();
    }
  });

  test("the default rate takes a call's burst of candidates", async () => {
    const { a, b } = await pairInVoice(server);
    const got = recordEvents(b, "voice:signal");
    const candidate = { candidate: "candidate:1 1 udp 1 10.0.0.1 9 typ host", sdpMid: "0" };
    const acks = await Promise.all(Array.from({ length: DEFAULT_EVENT_LIMITS.signal.burst }, () => a.emitWithAck("voice:signal", { to: b.id, candidate })));
    expect(acks.every((ack) => ack.ok)).toBe(true);
    await until(() => got.length >= DEFAULT_EVENT_LIMITS.signal.burst, "every candidate relayed");
    expect(got.length).toBe(DEFAULT_EVENT_LIMITS.signal.burst);
    for (const s of [a, b]) s.close();
  });
});

describe("dm:call-signal", () => {
  test("the same cap: refused and relayed to nobody", async () => {
    const alice = await server.register();
    const bob = await server.register();
    const serverId = await createServer(server, alice);
    await addMember(server, serverId, bob);
    const conversationId = (await server.api("POST", `/api/v1/dm/channels/${bob.id}`, { token: alice.token })).body.id;
    const aliceSocket: ClientSocket = await server.connect(alice.token);
    const bobSocket: ClientSocket = await server.connect(bob.token);
    const { callId } = await aliceSocket.emitWithAck("dm:call-start", { conversationId });
    expect((await bobSocket.emitWithAck("dm:call-accept", { callId })).ok).toBe(true);
    const got = recordEvents(bobSocket, "dm:call-signal");
    expect(await aliceSocket.emitWithAck("dm:call-signal", { callId, to: bob.id, type: "offer", sdp: "x".repeat(900_000) })).toEqual(TOO_LARGE);
    expect(await aliceSocket.emitWithAck("dm:call-signal", { callId, to: bob.id, ...realisticOffer() })).toEqual({ ok: true, callId });
    // The good offer follows the refused one on Bob's socket: once it is in, the other would be too.
    await until(() => got.length >= 1, "the offer within the cap");
    expect(got.length).toBe(1);
    for (const s of [aliceSocket, bobSocket]) s.close();
  });
});
