import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { LIMITS } from "../../src/domain/shared/limits.ts";
import { community, createVoiceChannel } from "../helpers/community.ts";
import { addBot } from "../helpers/bots.ts";
import { recordEvents, startServer, waitForEvent, type ClientSocket, type TestServer } from "../helpers/server.ts";
import { quietWindow, until } from "../helpers/wait.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const SPEAK = 1 << 15;

/** A recognisable 20 ms 48 kHz stereo frame. */
function frame(bytes = 3840, seed = 7): Uint8Array {
  const pcm = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i++) pcm[i] = (i * 31 + seed) & 0xff;
  return pcm;
}

/** What socket.io-client hands over for a binary attachment, as bytes. */
const asBytes = (pcm: ArrayBuffer | ArrayBufferView) =>
  pcm instanceof ArrayBuffer ? new Uint8Array(pcm) : new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength);

/** The shared community with a voice channel (`channelId` here), a bot, a second bot and a listener. */
async function setup() {
  const c = await community(server, { voice: true, bot: true, extraMembers: 1 });
  const otherBot = await addBot(server, c.owner, c.serverId);
  return { ...c, listener: c.members[1]!, otherBot, channelId: c.voiceId, everyoneId: c.everyone };
}

/** A connected socket that has joined the voice channel. */
async function inVoice(token: string, channelId: string, transports?: ("websocket" | "polling")[]): Promise<ClientSocket> {
  const socket = await server.connect(token, { transports });
  const ack = await socket.emitWithAck("voice:join", { channelId });
  if (!ack.ok) throw new Error(`voice:join failed: ${ack.error}`);
  return socket;
}

/** Sends a frame with an ack and returns the ack and the voice:error the sender got, if any. */
async function send(socket: ClientSocket, payload: unknown) {
  const errors = recordEvents(socket, "voice:error");
  const ack = await socket.emitWithAck("bot:audio-data", payload);
  // A refusal's voice:error is emitted right after its ack, on the same socket.
  if (!ack.ok) await until(() => errors.length > 0, "voice:error after the refused frame");
  socket.off("voice:error");
  return { ack, errors };
}

describe("bot:audio-data relay", () => {
  test("a frame reaches the room's other participants byte-identical, and nobody else", async () => {
    const { member, listener, outsider, bot, otherBot, channelId } = await setup();
    const sender = await inVoice(bot.token, channelId);
    const botReceiver = await inVoice(otherBot.token, channelId);
    const userReceiver = await inVoice(member.token, channelId);
    // In the voice channel's text room, but not in the voice room.
    const textRoom = await server.connect(listener.token);
    expect((await textRoom.emitWithAck("channel:join", channelId)).ok).toBe(true);
    const stranger = await server.connect(outsider.token);

    const seenBySender = recordEvents(sender, "bot:audio-data");
    const seenInText = recordEvents(textRoom, "bot:audio-data");
    const seenByStranger = recordEvents(stranger, "bot:audio-data");

    const pcm = frame();
    const atBot = waitForEvent(botReceiver, "bot:audio-data");
    const atUser = waitForEvent(userReceiver, "bot:audio-data");
    expect(await sender.emitWithAck("bot:audio-data", { channelId, pcm })).toEqual({ ok: true });
    for (const got of [await atBot, await atUser]) {
      expect(got.sampleRate).toBe(48000);
      expect(got.channels).toBe(2);
      expect(got.botUserId).toBe(bot.botUserId);
      expect(asBytes(got.pcm)).toEqual(pcm);
    }
    await quietWindow(); // other sockets: no ordering to lean on
    expect(seenBySender).toEqual([]);
    expect(seenInText).toEqual([]);
    expect(seenByStranger).toEqual([]);
    for (const s of [sender, botReceiver, userReceiver, textRoom, stranger]) s.close();
  });

  test("a user participant may send too; botUserId is the sender's user id; declared formats pass through", async () => {
    const { member, bot, channelId } = await setup();
    const sender = await inVoice(member.token, channelId);
    const receiver = await inVoice(bot.token, channelId);
    const pcm = frame(1920, 3);
    const got = waitForEvent(receiver, "bot:audio-data");
    sender.emit("bot:audio-data", { channelId, pcm, sampleRate: 24000, channels: 1 }); // no ack: fire and forget
    const payload = await got;
    expect(payload.botUserId).toBe(member.id);
    expect(payload.sampleRate).toBe(24000);
    expect(payload.channels).toBe(1);
    expect(asBytes(payload.pcm)).toEqual(pcm);
    sender.close();
    receiver.close();
  });

  test("a long-polling receiver gets the frame too", async () => {
    const { member, bot, channelId } = await setup();
    const sender = await inVoice(bot.token, channelId);
    const poller = await inVoice(member.token, channelId, ["polling"]);
    const pcm = frame(LIMITS.audioFrameBytes, 11);
    const got = waitForEvent(poller, "bot:audio-data");
    expect(await sender.emitWithAck("bot:audio-data", { channelId, pcm: pcm.buffer })).toEqual({ ok: true });
    expect(asBytes((await got).pcm)).toEqual(pcm);
    sender.close();
    poller.close();
  });

  test("refused: not in that voice room", async () => {
    const { owner, member, bot, serverId, channelId } = await setup();
    const receiver = await inVoice(member.token, channelId);
    const seen = recordEvents(receiver, "bot:audio-data");
    const error = "You are not in this voice channel";

    const notJoined = await server.connect(bot.token);
    const refused = await send(notJoined, { channelId, pcm: frame() });
    expect(refused.ack).toEqual({ ok: false, error });
    expect(refused.errors).toEqual([{ error }]);

    // In another voice channel of the same server: still not this room.
    const elsewhere = await inVoice(bot.token, await createVoiceChannel(server, owner, serverId));
    expect((await send(elsewhere, { channelId, pcm: frame() })).errors).toEqual([{ error }]);
    // Without an ack, the voice:error alone answers.
    const errorEvent = waitForEvent(elsewhere, "voice:error");
    elsewhere.emit("bot:audio-data", { channelId, pcm: frame() });
    expect(await errorEvent).toEqual({ error });

    await quietWindow(50); // the receiver's socket: nothing later on it to wait for
    expect(seen).toEqual([]);
    for (const s of [receiver, notJoined, elsewhere]) s.close();
  });

  test("refused: a meeting's audience member; allowed once a speaker", async () => {
    const { owner, member, bot, serverId } = await setup();
    const meetingId = await createVoiceChannel(server, owner, serverId, { is_meeting: true });
    const sender = await inVoice(member.token, meetingId);
    const receiver = await inVoice(bot.token, meetingId);
    const seen = recordEvents(receiver, "bot:audio-data");
    expect(server.app.domain.voice.rooms.participant(sender.id!)?.meetingRole).toBe("audience");
    const refused = await send(sender, { channelId: meetingId, pcm: frame() });
    expect(refused.ack).toEqual({ ok: false, error: "Audience members cannot speak in a meeting" });
    expect(refused.errors).toEqual([{ error: "Audience members cannot speak in a meeting" }]);
    expect(seen).toEqual([]);

    // Promoted directly in the room state (voice:set-meeting-role has its own tests).
    server.app.domain.voice.rooms.update(sender.id!, { meetingRole: "speaker" });
    const got = waitForEvent(receiver, "bot:audio-data");
    expect(await sender.emitWithAck("bot:audio-data", { channelId: meetingId, pcm: frame() })).toEqual({ ok: true });
    expect(asBytes((await got).pcm)).toEqual(frame());
    sender.close();
    receiver.close();
  });

  test("refused: a server-muted participant", async () => {
    const { owner, member, bot, channelId } = await setup();
    const sender = await inVoice(bot.token, channelId);
    const receiver = await inVoice(member.token, channelId);
    const seen = recordEvents(receiver, "bot:audio-data");
    const moderator = await server.connect(owner.token);
    expect((await moderator.emitWithAck("voice:server-mute", { userId: bot.botUserId, muted: true })).ok).toBe(true);
    expect(server.app.domain.voice.rooms.participant(sender.id!)?.serverMuted).toBe(true);
    const refused = await send(sender, { channelId, pcm: frame() });
    expect(refused.ack).toEqual({ ok: false, error: "You are server muted" });
    expect(refused.errors).toEqual([{ error: "You are server muted" }]);
    await quietWindow(50); // the receiver's socket: nothing later on it to wait for
    expect(seen).toEqual([]);
    for (const s of [sender, receiver, moderator]) s.close();
  });

  test("refused: no SPEAK in the channel", async () => {
    const { owner, member, bot, channelId, everyoneId } = await setup();
    const sender = await inVoice(member.token, channelId);
    const receiver = await inVoice(bot.token, channelId);
    const seen = recordEvents(receiver, "bot:audio-data");
    const denied = await server.api("PUT", `/api/v1/channels/${channelId}/permissions/${everyoneId}`, {
      token: owner.token,
      body: { allow: 0, deny: SPEAK },
    });
    expect(denied.status).toBe(200);
    const refused = await send(sender, { channelId, pcm: frame() });
    expect(refused.ack).toEqual({ ok: false, error: "Missing permission: SPEAK" });
    expect(refused.errors).toEqual([{ error: "Missing permission: SPEAK" }]);
    await quietWindow(50); // the receiver's socket: nothing later on it to wait for
    expect(seen).toEqual([]);
    sender.close();
    receiver.close();
  });

  test("admission follows permission changes at once, although it is memoized between them", async () => {
    const { owner, member, bot, serverId, channelId, everyoneId } = await setup();
    const sender = await inVoice(member.token, channelId);
    const receiver = await inVoice(bot.token, channelId);
    const accepted = async () => expect((await send(sender, { channelId, pcm: frame() })).ack).toEqual({ ok: true });
    const refusedWith = async (error: string) => expect((await send(sender, { channelId, pcm: frame() })).ack).toEqual({ ok: false, error });
    const ok = (res: { status: number }) => expect(res.status).toBeLessThan(300);
    const overrides = `/api/v1/channels/${channelId}/permissions/${everyoneId}`;

    await accepted(); // memoized now
    ok(await server.api("PUT", overrides, { token: owner.token, body: { allow: 0, deny: SPEAK } }));
    await refusedWith("Missing permission: SPEAK");
    ok(await server.api("DELETE", overrides, { token: owner.token }));
    await accepted();

    // A timeout takes the member out of voice (Discord's), so their frames have no room.
    ok(await server.api("POST", `/api/v1/servers/${serverId}/timeouts`, { token: owner.token, body: { targetUserId: member.id, duration: 600 } }));
    await refusedWith("You are not in this voice channel");
    expect(await sender.emitWithAck("voice:join", { channelId })).toEqual({ ok: false, error: "You are timed out in this server" });
    ok(await server.api("DELETE", `/api/v1/servers/${serverId}/timeouts/${member.id}`, { token: owner.token }));
    expect((await sender.emitWithAck("voice:join", { channelId })).ok).toBe(true);
    await accepted();

    // The channel becomes a meeting: a participant who is not a speaker may not transmit.
    ok(await server.api("PUT", `/api/v1/channels/${channelId}`, { token: owner.token, body: { is_meeting: true } }));
    await refusedWith("Audience members cannot speak in a meeting");
    sender.close();
    receiver.close();
  });

  test("frames sent back to back arrive in order, across the admission's store lookups (the first frame, a permission change) and its memo", async () => {
    const { owner, member, bot, channelId, everyoneId } = await setup();
    const sender = await inVoice(member.token, channelId);
    const receiver = await inVoice(bot.token, channelId);
    const got: number[] = [];
    receiver.on("bot:audio-data", (p: { pcm: ArrayBuffer | ArrayBufferView }) => got.push(asBytes(p.pcm)[0]! | (asBytes(p.pcm)[1]! << 8)));
    const numbered = (n: number) => {
      const pcm = frame(3840, n);
      pcm[0] = n & 0xff;
      pcm[1] = n >> 8;
      return pcm;
    };
    // 0-59: the first frame asks the store; the ones behind it wait for that answer, the later ones read the memo.
    for (let n = 0; n < 60; n++) sender.emit("bot:audio-data", { channelId, pcm: numbered(n) });
    // A permission change that keeps SPEAK: the memo is dropped, the store asked again mid-stream.
    const res = await server.api("PUT", `/api/v1/channels/${channelId}/permissions/${everyoneId}`, { token: owner.token, body: { allow: SPEAK, deny: 0 } });
    expect(res.status).toBeLessThan(300);
    for (let n = 60; n < 120; n++) sender.emit("bot:audio-data", { channelId, pcm: numbered(n) });
    await until(() => got.length >= 120, "all 120 frames");
    expect(got).toEqual(Array.from({ length: 120 }, (_, n) => n));
    sender.close();
    receiver.close();
  });

  test("malformed frames are dropped and answered with voice:error", async () => {
    const { member, bot, channelId } = await setup();
    const sender = await inVoice(bot.token, channelId);
    const receiver = await inVoice(member.token, channelId);
    const seen = recordEvents(receiver, "bot:audio-data");
    const cases: [unknown, string][] = [
      [{ channelId, pcm: "AAAA" }, "pcm: must be binary (16-bit PCM)"],
      [{ channelId, pcm: Array.from(frame(8)) }, "pcm: must be binary (16-bit PCM)"],
      [{ channelId }, "pcm: must be binary (16-bit PCM)"],
      [{ channelId, pcm: new Uint8Array(0) }, "pcm: must not be empty"],
      [{ channelId, pcm: frame(3841) }, "pcm: must be a whole number of 16-bit samples for 2 channel(s) (a multiple of 4 bytes)"],
      [{ channelId, pcm: frame(LIMITS.audioFrameBytes + 4) }, `pcm: must be at most ${LIMITS.audioFrameBytes} bytes`],
      [{ channelId, pcm: frame(), sampleRate: 44100 }, "sampleRate: must be one of 8000, 12000, 16000, 24000, 48000"],
      [{ channelId, pcm: frame(), channels: 3 }, "channels: must be one of 1, 2"],
      [{ pcm: frame() }, "channelId: must be a channel id"],
      ["just a string", "payload: must be an object {channelId, pcm, sampleRate?, channels?}"],
    ];
    for (const [payload, error] of cases) {
      const refused = await send(sender, payload);
      expect(refused.ack).toEqual({ ok: false, error });
      expect(refused.errors).toEqual([{ error }]);
    }
    await quietWindow(50); // the receiver's socket: nothing later on it to wait for
    expect(seen).toEqual([]);
    sender.close();
    receiver.close();
  });
});
