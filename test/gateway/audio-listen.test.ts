/**
 * Bots that listen (docs/audio.md, "Bots that listen"): `voice:listen` (a bot opts in to hear
 * its voice room's people) and `voice:audio-data` (a person's microphone frames, delivered
 * only to those bots).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { listenStats, LISTENER_HIGH_WATER_BYTES } from "../../src/audio/listen-relay.ts";
import { websocketOf } from "../../src/gateway/native-fanout.ts";
import { LIMITS } from "../../src/domain/shared/limits.ts";
import { addBot } from "../helpers/bots.ts";
import { community, createVoiceChannel } from "../helpers/community.ts";
import { recordEvents, startServer, waitForEvent, type ClientSocket, type TestServer } from "../helpers/server.ts";
import { quietWindow, until } from "../helpers/wait.ts";
import { StalledGatewayClient, streamPastStalled } from "../helpers/stalled-gateway-client.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const SPEAK = 1 << 15;

/** A recognisable 20 ms 48 kHz mono frame. */
function frame(bytes = 1920, seed = 5): Uint8Array {
  const pcm = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i++) pcm[i] = (i * 17 + seed) & 0xff;
  return pcm;
}

const asBytes = (pcm: ArrayBuffer | ArrayBufferView) =>
  pcm instanceof ArrayBuffer ? new Uint8Array(pcm) : new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength);

async function inVoice(token: string, channelId: string, transports?: ("websocket" | "polling")[]): Promise<ClientSocket> {
  const socket = await server.connect(token, { transports });
  const ack = await socket.emitWithAck("voice:join", { channelId });
  if (!ack.ok) throw new Error(`voice:join failed: ${ack.error}`);
  return socket;
}

/** A voice room with a person (`member`), a second person, a bot and a second bot. */
async function setup() {
  const c = await community(server, { voice: true, bot: true, extraMembers: 1 });
  const otherBot = await addBot(server, c.owner, c.serverId);
  return { ...c, other: c.members[1]!, otherBot, channelId: c.voiceId };
}

/** Emits with an ack and returns it with the voice:error events that came with it. */
async function send(socket: ClientSocket, event: string, payload: unknown) {
  const errors = recordEvents(socket, "voice:error");
  const ack = await socket.emitWithAck(event, payload);
  // A refusal's voice:error is emitted right after its ack, on the same socket.
  if (!ack.ok) await until(() => errors.length > 0, `voice:error after ${event}`);
  socket.off("voice:error");
  return { ack, errors };
}

describe("voice:listen", () => {
  test("a bot in the room opts in and out; the room is told; participants carry the flag", async () => {
    const { owner, member, bot, serverId, channelId } = await setup();
    const person = await inVoice(member.token, channelId);
    const listener = await inVoice(bot.token, channelId);
    // In the voice channel's text room only: not told.
    const textRoom = await server.connect(owner.token);
    expect((await textRoom.emitWithAck("channel:join", channelId)).ok).toBe(true);
    const inText = recordEvents(textRoom, "voice:listening");
    const atPerson = recordEvents(person, "voice:listening");

    const told = waitForEvent(person, "voice:listening");
    const atBot = waitForEvent(listener, "voice:listening");
    expect(await listener.emitWithAck("voice:listen", { channelId, listening: true })).toEqual({ ok: true, channelId, listening: true });
    const event = { socketId: listener.id, userId: bot.botUserId, listening: true };
    expect(await told).toEqual(event);
    expect(await atBot).toEqual(event);

    // Participant objects say so: the room query, and what a newcomer is given.
    const query = await person.emitWithAck("bot:voice-participants", { channelId });
    expect(query.participants.map((p: any) => [p.userId, p.listening])).toEqual([
      [member.id, false],
      [bot.botUserId, true],
    ]);
    const newcomer = await server.connect(owner.token);
    const existing = waitForEvent(newcomer, "voice:existing");
    expect((await newcomer.emitWithAck("voice:join", { channelId })).ok).toBe(true);
    expect((await existing).find((p: any) => p.userId === bot.botUserId)).toMatchObject({ isBot: true, listening: true });

    // The same answer again changes nothing and tells nobody.
    expect(await listener.emitWithAck("voice:listen", { channelId, listening: true })).toEqual({ ok: true, channelId, listening: true });
    const stopped = waitForEvent(person, "voice:listening");
    expect(await listener.emitWithAck("voice:listen", { channelId: channelId.toUpperCase(), listening: false })).toEqual({ ok: true, channelId, listening: false });
    expect(await stopped).toEqual({ ...event, listening: false });
    // In order on one socket: had the repeat told anyone, it would sit between the two.
    expect(atPerson).toEqual([event, { ...event, listening: false }]);
    expect(inText).toEqual([]);
    expect(server.app.domain.voice.rooms.listeners(channelId).size).toBe(0);
    expect(serverId).toBeTruthy();
    for (const s of [person, listener, textRoom, newcomer]) s.close();
  });

  test("unauthenticated: no socket at all", async () => {
    await expect(server.connect(undefined)).rejects.toThrow("Unauthorized");
    await expect(server.connect("not-a-token")).rejects.toThrow("Unauthorized");
  });

  test("refused (403): a person, a bot outside the room or in another room; with voice:error", async () => {
    const { owner, member, bot, otherBot, serverId, channelId } = await setup();
    const person = await inVoice(member.token, channelId);
    const seen = recordEvents(person, "voice:listening");
    // A person may not listen: they hear the room over WebRTC, never as raw frames.
    const byPerson = await send(person, "voice:listen", { channelId, listening: true });
    expect(byPerson.ack).toEqual({ ok: false, error: "Only bots can listen to a voice room" });
    expect(byPerson.errors).toEqual([{ error: "Only bots can listen to a voice room" }]);

    const outside = await server.connect(bot.token);
    const notJoined = await send(outside, "voice:listen", { channelId, listening: true });
    expect(notJoined.ack).toEqual({ ok: false, error: "You are not in this voice channel" });
    expect(notJoined.errors).toEqual([{ error: "You are not in this voice channel" }]);

    const elsewhere = await inVoice(otherBot.token, await createVoiceChannel(server, owner, serverId, { name: "Other" }));
    expect((await send(elsewhere, "voice:listen", { channelId, listening: true })).ack).toEqual({ ok: false, error: "You are not in this voice channel" });
    await quietWindow(50);
    expect(seen).toEqual([]);
    for (const s of [person, outside, elsewhere]) s.close();
  });

  test("bad payloads (400) name the field", async () => {
    const { bot, channelId } = await setup();
    const listener = await inVoice(bot.token, channelId);
    for (const [payload, error] of [
      [undefined, "payload: must be an object {channelId, listening}"],
      ["x", "payload: must be an object {channelId, listening}"],
      [{ listening: true }, "channelId: is required"],
      [{ channelId: "nope", listening: true }, "channelId: must be a channel id"],
      [{ channelId }, "listening: is required"],
      [{ channelId, listening: "yes" }, "listening: must be a boolean"],
    ] as const) {
      const answer = await send(listener, "voice:listen", payload);
      expect(answer.ack).toEqual({ ok: false, error });
      expect(answer.errors).toEqual([{ error }]);
    }
    listener.close();
  });
});

describe("voice:audio-data", () => {
  test("a person's frame reaches only the room's bots that listen, byte-identical", async () => {
    const { owner, member, other, bot, otherBot, channelId } = await setup();
    const speaker = await inVoice(member.token, channelId);
    const otherPerson = await inVoice(other.token, channelId);
    const listener = await inVoice(bot.token, channelId);
    const deafBot = await inVoice(otherBot.token, channelId); // in the room, did not ask
    const textRoom = await server.connect(owner.token);
    expect((await textRoom.emitWithAck("channel:join", channelId)).ok).toBe(true);
    expect((await listener.emitWithAck("voice:listen", { channelId, listening: true })).ok).toBe(true);
    const unwanted = [speaker, otherPerson, deafBot, textRoom].map((s) => recordEvents(s, "voice:audio-data"));
    const asBotAudio = [otherPerson, listener, deafBot].map((s) => recordEvents(s, "bot:audio-data"));

    const pcm = frame();
    const got = waitForEvent(listener, "voice:audio-data");
    expect(await speaker.emitWithAck("voice:audio-data", { channelId, pcm, sampleRate: 48000, channels: 1 })).toEqual({ ok: true });
    const payload = await got;
    expect(Object.keys(payload).sort()).toEqual(["channelId", "channels", "pcm", "sampleRate", "userId"]);
    expect(payload).toMatchObject({ channelId, sampleRate: 48000, channels: 1, userId: member.id });
    expect(asBytes(payload.pcm)).toEqual(pcm);

    // The defaults of bot:audio-data apply (48 kHz stereo); a listener on long-polling hears too.
    const poller = await inVoice(otherBot.token, channelId, ["polling"]); // replaces deafBot's socket
    expect((await poller.emitWithAck("voice:listen", { channelId, listening: true })).ok).toBe(true);
    const atPoller = waitForEvent(poller, "voice:audio-data");
    const atListener = waitForEvent(listener, "voice:audio-data");
    const stereo = frame(3840, 9);
    speaker.emit("voice:audio-data", { channelId, pcm: stereo }); // no ack: as the page streams
    for (const p of [await atPoller, await atListener]) {
      expect(p).toMatchObject({ sampleRate: 48000, channels: 2, userId: member.id });
      expect(asBytes(p.pcm)).toEqual(stereo);
    }
    await quietWindow(); // other sockets: no ordering to lean on
    for (const seen of unwanted) expect(seen).toEqual([]);
    for (const seen of asBotAudio) expect(seen).toEqual([]);
    for (const s of [speaker, otherPerson, listener, deafBot, textRoom, poller]) s.close();
  });

  test("security: no person receives another's raw audio, whatever they ask", async () => {
    const { member, other, bot, channelId } = await setup();
    const speaker = await inVoice(member.token, channelId);
    const eavesdropper = await inVoice(other.token, channelId);
    // A second socket of the eavesdropper, and one of the speaker, outside the voice room.
    const spare = await server.connect(other.token);
    const speakersOwn = await server.connect(member.token);
    const listener = await inVoice(bot.token, channelId);
    expect((await listener.emitWithAck("voice:listen", { channelId, listening: true })).ok).toBe(true);
    expect((await eavesdropper.emitWithAck("voice:listen", { channelId, listening: true })).ok).toBe(false);
    expect((await spare.emitWithAck("voice:listen", { channelId, listening: true })).ok).toBe(false);
    const leaked = [eavesdropper, spare, speakersOwn, speaker].map((s) => recordEvents(s, "voice:audio-data"));
    const got = waitForEvent(listener, "voice:audio-data");
    expect(await speaker.emitWithAck("voice:audio-data", { channelId, pcm: frame(), channels: 1 })).toEqual({ ok: true });
    await got;
    await quietWindow(); // other sockets: no ordering to lean on
    for (const seen of leaked) expect(seen).toEqual([]);
    expect([...server.app.domain.voice.rooms.listeners(channelId)].map((p) => p.isBot)).toEqual([true]);
    for (const s of [speaker, eavesdropper, spare, speakersOwn, listener]) s.close();
  });

  test("refused (403): not in the room, muted, server-muted, audience, no SPEAK, a bot; nothing delivered", async () => {
    const { owner, member, other, bot, otherBot, serverId, channelId, everyone } = await setup();
    const listener = await inVoice(bot.token, channelId);
    expect((await listener.emitWithAck("voice:listen", { channelId, listening: true })).ok).toBe(true);
    const heard = recordEvents(listener, "voice:audio-data");
    const pcm = frame();
    const refused = async (socket: ClientSocket, error: string, channel = channelId) => {
      const answer = await send(socket, "voice:audio-data", { channelId: channel, pcm, channels: 1 });
      expect(answer.ack).toEqual({ ok: false, error });
      expect(answer.errors).toEqual([{ error }]);
    };

    const outside = await server.connect(member.token);
    await refused(outside, "You are not in this voice channel");

    const speaker = await inVoice(member.token, channelId);
    expect((await speaker.emitWithAck("voice:state", { muted: true })).ok).toBe(true);
    await refused(speaker, "You are muted");
    expect((await speaker.emitWithAck("voice:state", { muted: false })).ok).toBe(true);

    const owners = await server.connect(owner.token);
    expect((await owners.emitWithAck("voice:server-mute", { userId: member.id, muted: true })).ok).toBe(true);
    await refused(speaker, "You are server muted");
    expect((await owners.emitWithAck("voice:server-mute", { userId: member.id, muted: false })).ok).toBe(true);

    // A bot streams with bot:audio-data, not as a person.
    const botSpeaker = await inVoice(otherBot.token, channelId);
    await refused(botSpeaker, "Bots send audio with bot:audio-data");

    // No SPEAK for @everyone in this channel.
    const override = await server.api("PUT", `/api/v1/channels/${channelId}/permissions/${everyone}`, { token: owner.token, body: { allow: 0, deny: SPEAK } });
    expect(override.status).toBe(200);
    const second = await inVoice(other.token, channelId);
    await refused(second, "Missing permission: SPEAK");

    // A meeting's audience, even with a listening bot in it.
    const meetingId = await createVoiceChannel(server, owner, serverId, { is_meeting: true, name: "Town hall" });
    const audience = await inVoice(member.token, meetingId);
    const meetingBot = await inVoice(bot.token, meetingId);
    expect((await meetingBot.emitWithAck("voice:listen", { channelId: meetingId, listening: true })).ok).toBe(true);
    const heardInMeeting = recordEvents(meetingBot, "voice:audio-data");
    await refused(audience, "Audience members cannot speak in a meeting", meetingId);
    await quietWindow(50);
    expect(heard).toEqual([]);
    expect(heardInMeeting).toEqual([]);
    for (const s of [listener, outside, speaker, owners, botSpeaker, second, audience, meetingBot]) s.close();
  });

  test("malformed frames (400) are dropped and named, with voice:error", async () => {
    const { member, bot, channelId } = await setup();
    const speaker = await inVoice(member.token, channelId);
    const listener = await inVoice(bot.token, channelId);
    expect((await listener.emitWithAck("voice:listen", { channelId, listening: true })).ok).toBe(true);
    const heard = recordEvents(listener, "voice:audio-data");
    for (const [payload, error] of [
      ["x", "payload: must be an object {channelId, pcm, sampleRate?, channels?}"],
      [{ pcm: frame() }, "channelId: must be a channel id"],
      [{ channelId, pcm: "AAAA" }, "pcm: must be binary (16-bit PCM)"],
      [{ channelId, pcm: new Uint8Array(0) }, "pcm: must not be empty"],
      [{ channelId, pcm: new Uint8Array(LIMITS.audioFrameBytes + 4) }, `pcm: must be at most ${LIMITS.audioFrameBytes} bytes`],
      [{ channelId, pcm: new Uint8Array(6) }, "pcm: must be a whole number of 16-bit samples for 2 channel(s) (a multiple of 4 bytes)"],
      [{ channelId, pcm: frame(), sampleRate: 44100 }, "sampleRate: must be one of 8000, 12000, 16000, 24000, 48000"],
      [{ channelId, pcm: frame(), channels: 6 }, "channels: must be one of 1, 2"],
    ] as const) {
      const answer = await send(speaker, "voice:audio-data", payload);
      expect(answer.ack).toEqual({ ok: false, error });
      expect(answer.errors).toEqual([{ error }]);
    }
    await quietWindow(50);
    expect(heard).toEqual([]);
    speaker.close();
    listener.close();
  });

  test("listening ends with leaving the room, and a server-deafened bot hears nothing", async () => {
    const { owner, member, bot, channelId } = await setup();
    const speaker = await inVoice(member.token, channelId);
    let listener = await inVoice(bot.token, channelId);
    expect((await listener.emitWithAck("voice:listen", { channelId, listening: true })).ok).toBe(true);
    const owners = await server.connect(owner.token);
    expect((await owners.emitWithAck("voice:server-deafen", { userId: bot.botUserId, deafened: true })).ok).toBe(true);
    const whileDeaf = recordEvents(listener, "voice:audio-data");
    expect(await speaker.emitWithAck("voice:audio-data", { channelId, pcm: frame(), channels: 1 })).toEqual({ ok: true });
    expect((await owners.emitWithAck("voice:server-deafen", { userId: bot.botUserId, deafened: false })).ok).toBe(true);
    const got = waitForEvent(listener, "voice:audio-data");
    expect(await speaker.emitWithAck("voice:audio-data", { channelId, pcm: frame(), channels: 1 })).toEqual({ ok: true });
    await got;
    // In order on the listener's socket: the frame sent while deafened would have come first.
    expect(whileDeaf).toHaveLength(1);

    // Leaving and coming back: not listening until asked again.
    const left = waitForEvent(speaker, "voice:user-left");
    expect((await listener.emitWithAck("voice:leave")).ok).toBe(true);
    await left;
    listener.close();
    listener = await inVoice(bot.token, channelId);
    const afterRejoin = recordEvents(listener, "voice:audio-data");
    expect(await speaker.emitWithAck("voice:audio-data", { channelId, pcm: frame(), channels: 1 })).toEqual({ ok: true });
    await quietWindow();
    expect(afterRejoin).toEqual([]);
    for (const s of [speaker, listener, owners]) s.close();
  });

  test("rate limited as audio frames", async () => {
    const small = await startServer({ gatewayEventLimits: { ...server.config.gatewayEventLimits, audio: { perSecond: 10, burst: 20 } } });
    try {
      const { member, voiceId } = await community(small, { voice: true });
      const socket = await small.connect(member.token);
      expect((await socket.emitWithAck("voice:join", { channelId: voiceId })).ok).toBe(true);
      const pcm = frame();
      const answers = await Promise.all(
        Array.from({ length: 40 }, () => socket.timeout(5000).emitWithAck("voice:audio-data", { channelId: voiceId, pcm, channels: 1 })),
      );
      expect(answers.filter((a) => a.ok).length).toBeGreaterThanOrEqual(20);
      const refused = answers.filter((a) => !a.ok);
      expect(refused.length).toBeGreaterThanOrEqual(15);
      for (const r of refused) expect(r.error).toMatch(/^Rate limited: too many audio frames; retry in \d+ ms$/);
      socket.close();
    } finally {
      await small.stop();
    }
  });

  test("a listener that stops reading misses whole frames: bounded buffer, the others hear everything", async () => {
    // A server of its own whose audio limit lets one socket send the whole stream at once.
    const fast = await startServer({ gatewayEventLimits: { ...server.config.gatewayEventLimits, audio: { perSecond: 100_000, burst: 100_000 } } });
    try {
      const { owner, member, serverId, voiceId: channelId } = await community(fast, { voice: true });
      const bot = await addBot(fast, owner, serverId);
      const otherBot = await addBot(fast, owner, serverId);
      const join = async (token: string) => {
        const socket = await fast.connect(token);
        expect((await socket.emitWithAck("voice:join", { channelId })).ok).toBe(true);
        return socket;
      };
      const speaker = await join(member.token);
      const reader = await join(otherBot.token);
      expect((await reader.emitWithAck("voice:listen", { channelId, listening: true })).ok).toBe(true);
      // The other bot connects on a raw websocket, joins, listens, then never reads again.
      const stalled = await StalledGatewayClient.open(fast.url, bot.token, [
        ["voice:join", { channelId }],
        ["voice:listen", { channelId, listening: true }],
      ]);
      const listening = [...fast.app.domain.voice.rooms.listeners(channelId)];
      expect(listening).toHaveLength(2);
      const stalledSocketId = listening.find((p) => p.userId === bot.botUserId)!.socketId;
      const ws = websocketOf(fast.app.io.of("/").sockets.get(stalledSocketId)!)!;
      let received = 0;
      reader.on("voice:audio-data", () => received++);

      const before = { ...listenStats };
      const pcm = frame(LIMITS.audioFrameBytes, 3);
      const frames = 1200; // ~13.8 MB: far more than the kernel and the threshold hold
      // Paced by the reader, as a healthy listener keeps up: at most 10 frames (115 KB) ahead of
      // it, under the threshold. Unpaced, a loaded machine once let even this reader (in this
      // process) fall 256 KB behind, and it rightly missed frames (CI: 782 of 1200).
      const maxBuffered = await streamPastStalled(() => speaker.emit("voice:audio-data", { channelId, pcm }), () => received, ws, frames);
      expect(received).toBe(frames);
      expect(listenStats.dropped - before.dropped).toBeGreaterThan(0);
      // It did fill up to the threshold, and then held at most one frame (its header and bytes)
      // more: never near the 4 MiB close limit.
      expect(maxBuffered).toBeGreaterThan(LISTENER_HIGH_WATER_BYTES);
      expect(maxBuffered).toBeLessThanOrEqual(LISTENER_HIGH_WATER_BYTES + LIMITS.audioFrameBytes + 512);
      expect(ws.readyState).toBe(1);
      stalled.close();
      speaker.close();
      reader.close();
    } finally {
      await fast.stop();
    }
  }, 30_000);
});
