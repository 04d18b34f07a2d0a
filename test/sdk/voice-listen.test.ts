/**
 * The voice helper hearing people (docs/audio.md, "Bots that listen"): `listen()` and
 * `joinVoice(..., {listen: true})` against a real server. People's sockets (socket.io-client,
 * standing in for the web app's page) send their microphone as `voice:audio-data`; the bot gets
 * it per speaker, byte for byte, with `kind: "person"`, through the same `receive()` and
 * `speakers()` as bots' audio; it stops at `listen(false)`, and the opt-in, which the server
 * forgets, is sent again after a reconnect and after a move.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createBot, HearthError, type Bot } from "../../sdk/src/index.ts";
import { joinFrames, joinVoice, type ReceivedFrame, type SpeakerStream } from "../../sdk/src/voice.ts";
import { tone } from "../../sdk/src/wav.ts";
import { addBot } from "../helpers/bots.ts";
import { community, createVoiceChannel, type Community } from "../helpers/community.ts";
import { recordEvents, startServer, waitForEvent, type ClientSocket, type TestServer } from "../helpers/server.ts";
import { letTimePass, quietWindow, until } from "../helpers/wait.ts";

type Listening = { socketId: string; userId: string; listening: boolean };
const asBytes = (pcm: Int16Array) => Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);

let server: TestServer;
let place: Community & { voiceId: string };
/** Two people in the voice channel, as their pages would be. */
let alice: ClientSocket;
let bob: ClientSocket;
const bots: Bot[] = [];

beforeAll(async () => {
  server = await startServer();
  place = await community(server, { voice: true, extraMembers: 1 });
  alice = await inVoice(place.member.token, place.voiceId);
  bob = await inVoice(place.members[1]!.token, place.voiceId);
});
afterAll(async () => {
  for (const bot of bots) bot.stop();
  await server.stop();
});

async function inVoice(token: string, channelId: string): Promise<ClientSocket> {
  const socket = await server.connect(token);
  const ack = await socket.emitWithAck("voice:join", { channelId });
  if (!ack.ok) throw new Error(`voice:join failed: ${ack.error}`);
  return socket;
}

async function startBot(name: string) {
  const app = await addBot(server, place.owner, place.serverId, name);
  const bot = createBot({ url: server.url, token: app.token, reconnect: { initialDelayMs: 50, maxDelayMs: 200 } });
  bots.push(bot);
  await bot.start();
  return { bot, app };
}

/** `count` recognisable frames of `bytes` each (distinct per seed, so a mix-up shows). */
function microphone(count: number, bytes: number, seed: number): Uint8Array[] {
  return Array.from({ length: count }, (_, n) => {
    const frame = new Uint8Array(bytes);
    for (let i = 0; i < bytes; i++) frame[i] = (i * 31 + n * 7 + seed) & 0xff;
    return frame;
  });
}

/** Sends a person's frames as the page does, one every 20 ms (acked here, so a refusal shows). */
async function speak(person: ClientSocket, channelId: string, frames: Uint8Array[], format: { sampleRate: number; channels: number }) {
  for (const pcm of frames) {
    expect(await person.emitWithAck("voice:audio-data", { channelId, pcm, ...format })).toEqual({ ok: true });
    await letTimePass(20, "a frame every 20 ms, the pace the bot's utterance timing expects");
  }
}

/** Collects every speaker of a `speakers()` iteration with the frames of each utterance. */
function collect(speakers: AsyncIterable<SpeakerStream>) {
  const utterances: { userId: string; kind: string; frames: ReceivedFrame[]; ended: boolean }[] = [];
  const done = (async () => {
    for await (const speaker of speakers) {
      const utterance = { userId: speaker.userId, kind: speaker.kind, frames: [] as ReceivedFrame[], ended: false };
      utterances.push(utterance);
      void (async () => {
        for await (const frame of speaker.frames) utterance.frames.push(frame);
        utterance.ended = true;
      })();
    }
  })();
  return { utterances, done };
}

const bytesOf = (frames: ReceivedFrame[]) => asBytes(joinFrames(frames).pcm);
const sent = (frames: Uint8Array[]) => Buffer.concat(frames);

test("listen(): people's frames arrive per speaker, byte for byte, kind 'person', beside a bot's; listen(false) stops them", async () => {
  const { bot, app } = await startBot("Scribe");
  const voice = await joinVoice(bot, place.voiceId);
  const everything: ReceivedFrame[] = [];
  void (async () => {
    for await (const frame of voice.receive()) everything.push(frame);
  })();

  // Not listening: a person's frame is admitted by the server and reaches no one.
  await speak(alice, place.voiceId, microphone(2, 1920, 1), { sampleRate: 48000, channels: 1 });
  await quietWindow();
  expect(everything).toEqual([]);
  expect(voice.listening).toBe(false);

  // listen(): the room is told (the people see who hears them), the participant says so.
  const told = waitForEvent<Listening>(alice, "voice:listening");
  await voice.listen();
  const event = { socketId: bot.gateway.socket.id!, userId: app.botUserId, listening: true };
  expect(await told).toEqual(event);
  expect(voice.listening).toBe(true);
  expect(voice.participants.get(bot.gateway.socket.id!)).toMatchObject({ userId: app.botUserId, isBot: true, listening: true });
  expect([...server.app.domain.voice.rooms.listeners(place.voiceId)].map((p) => p.userId)).toEqual([app.botUserId]);

  const { utterances, done } = collect(voice.speakers({ idleMs: 400 }));
  const fromAlice = voice.receive(place.member.id, { idleMs: 400 });
  // Alice: 48 kHz mono (her page's format); Bob: 24 kHz stereo; a bot plays at the same time.
  const aliceSaid = microphone(10, 1920, 11);
  const bobSaid = microphone(6, 1920, 77);
  const other = await startBot("Talker");
  const otherVoice = await joinVoice(other.bot, place.voiceId);
  const botSaid = tone({ frequency: 440, durationMs: 100, sampleRate: 16000, channels: 1 });
  await Promise.all([
    speak(alice, place.voiceId, aliceSaid, { sampleRate: 48000, channels: 1 }),
    speak(bob, place.voiceId, bobSaid, { sampleRate: 24000, channels: 2 }),
    otherVoice.play(botSaid).finished,
  ]);
  const onlyAlice: ReceivedFrame[] = [];
  for await (const frame of fromAlice) onlyAlice.push(frame); // ends 400 ms after her last frame
  expect(onlyAlice.length).toBe(10);
  expect(onlyAlice.every((f) => f.kind === "person" && f.userId === place.member.id && f.sampleRate === 48000 && f.channels === 1)).toBe(true);
  expect(bytesOf(onlyAlice).equals(sent(aliceSaid))).toBe(true);

  await until(() => utterances.length === 3 && utterances.every((u) => u.ended), "utterances.length === 3 && utterances.every((u) => u.ended)");
  const by = Object.fromEntries(utterances.map((u) => [u.userId, u]));
  expect(by[place.member.id]).toMatchObject({ kind: "person" });
  expect(bytesOf(by[place.member.id]!.frames).equals(sent(aliceSaid))).toBe(true);
  expect(by[place.members[1]!.id]).toMatchObject({ kind: "person" });
  expect(by[place.members[1]!.id]!.frames.every((f) => f.kind === "person" && f.sampleRate === 24000 && f.channels === 2)).toBe(true);
  expect(bytesOf(by[place.members[1]!.id]!.frames).equals(sent(bobSaid))).toBe(true);
  expect(by[other.app.botUserId]).toMatchObject({ kind: "bot" });
  expect(bytesOf(by[other.app.botUserId]!.frames).equals(asBytes(botSaid.pcm))).toBe(true);
  expect(everything.length).toBe(10 + 6 + 5);

  // listen(false): the room is told, and people's frames stop; a bot's still arrive.
  const stopped = waitForEvent<Listening>(bob, "voice:listening");
  await voice.listen(false);
  expect(await stopped).toEqual({ ...event, listening: false });
  expect(voice.listening).toBe(false);
  expect(voice.participants.get(bot.gateway.socket.id!)?.listening).toBe(false);
  const before = everything.length;
  await speak(alice, place.voiceId, microphone(3, 1920, 5), { sampleRate: 48000, channels: 1 });
  await otherVoice.play(botSaid).finished;
  await until(() => everything.length === before + 5, "the other bot's five frames");
  await quietWindow(); // and none of alice's
  expect(everything.slice(before).map((f) => f.kind)).toEqual(["bot", "bot", "bot", "bot", "bot"]);

  await voice.leave();
  await done;
  await expect(voice.listen()).rejects.toThrow(HearthError);
  await expect(voice.listen()).rejects.toThrow("listen(): the bot left this voice channel");
  await otherVoice.leave();
});

test("joinVoice({listen: true}) listens from the start, and again after a reconnect, on a new socket", async () => {
  const { bot, app } = await startBot("Faithful");
  const told = recordEvents<Listening>(alice, "voice:listening");
  const voice = await joinVoice(bot, place.voiceId, { listen: true });
  expect(voice.listening).toBe(true);
  await until(() => told.length === 1, "told.length === 1");
  const firstSocket = bot.gateway.socket.id!;
  expect(told).toEqual([{ socketId: firstSocket, userId: app.botUserId, listening: true }]);

  // The server drops the bot: its participant (and the flag) goes; the SDK joins and listens again.
  const resumed = new Promise((resolve) => bot.on("resumed", resolve));
  const rejoined = waitForEvent(alice, "voice:user-joined", { filter: (p) => p.userId === app.botUserId, timeout: 5000 });
  server.app.io.in(`user:${app.botUserId}`).disconnectSockets();
  expect((await rejoined).listening).toBe(false); // a new participant: not listening until asked
  await resumed;
  await until(() => told.length === 2, "told.length === 2");
  const secondSocket = bot.gateway.socket.id!;
  expect(secondSocket).not.toBe(firstSocket);
  expect(told[1]).toEqual({ socketId: secondSocket, userId: app.botUserId, listening: true });
  expect(voice.participants.get(secondSocket)?.listening).toBe(true);

  const heard: ReceivedFrame[] = [];
  void (async () => {
    for await (const frame of voice.receive(place.member.id)) heard.push(frame);
  })();
  const said = microphone(8, 960, 3);
  await speak(alice, place.voiceId, said, { sampleRate: 24000, channels: 1 });
  await until(() => heard.length === 8, "heard.length === 8");
  expect(bytesOf(heard).equals(sent(said))).toBe(true);
  expect(heard.every((f) => f.kind === "person" && f.sampleRate === 24000)).toBe(true);
  await voice.leave();
});

test("listen() while the connection is down is kept and sent once the bot is back in the room", async () => {
  const { bot, app } = await startBot("Patient");
  const voice = await joinVoice(bot, place.voiceId);
  const told = recordEvents<Listening>(alice, "voice:listening");
  const resumed = new Promise((resolve) => bot.on("resumed", resolve));
  const down = new Promise<void>((resolve) => bot.on("disconnected", () => resolve()));
  server.app.io.in(`user:${app.botUserId}`).disconnectSockets();
  await down;
  await voice.listen(); // nothing to send it on: kept
  expect(voice.listening).toBe(true);
  await resumed;
  await until(() => told.length === 1, "told.length === 1");
  expect(told).toEqual([{ socketId: bot.gateway.socket.id!, userId: app.botUserId, listening: true }]);
  expect([...server.app.domain.voice.rooms.listeners(place.voiceId)].map((p) => p.userId)).toContain(app.botUserId);
  await voice.leave();
});

test("moved by a moderator: the bot listens again in the new room and hears its people; the old room's speakers end", async () => {
  const { bot, app } = await startBot("Wanderer");
  const voice = await joinVoice(bot, place.voiceId, { listen: true });
  const { utterances } = collect(voice.speakers({ idleMs: 60_000 })); // only leaving ends an utterance here
  await speak(bob, place.voiceId, microphone(3, 1920, 9), { sampleRate: 48000, channels: 1 });
  await until(() => utterances[0]?.frames.length === 3, "utterances[0]?.frames.length === 3");
  expect(utterances[0]).toMatchObject({ userId: place.members[1]!.id, kind: "person", ended: false });

  const stage = await createVoiceChannel(server, place.owner, place.serverId, { name: "Stage" });
  const host = await inVoice(place.owner.token, stage); // the owner is in the other room, and moves the bot there
  const told = waitForEvent<Listening>(host, "voice:listening", { filter: (e) => e.userId === app.botUserId, timeout: 5000 });
  expect(await host.emitWithAck("voice:move", { userId: app.botUserId, channelId: stage })).toEqual({ ok: true, userId: app.botUserId, channelId: stage });
  expect(await told).toEqual({ socketId: bot.gateway.socket.id!, userId: app.botUserId, listening: true });
  expect(voice.channelId).toBe(stage);
  await until(() => utterances[0]!.ended, "utterances[0]!.ended");
  expect(utterances[0]!.ended).toBe(true); // Bob is in the room the bot left
  await until(() => voice.participants.size === 2, "voice.participants.size === 2");
  expect([...voice.participants.values()].map((p) => [p.userId, p.listening]).sort()).toEqual(
    [
      [place.owner.id, false],
      [app.botUserId, true],
    ].sort(),
  );

  const said = microphone(5, 1920, 42);
  await speak(host, stage, said, { sampleRate: 48000, channels: 1 });
  await until(() => utterances.length === 2 && utterances[1]!.frames.length === 5, "utterances.length === 2 && utterances[1]!.frames.length === 5");
  expect(utterances[1]).toMatchObject({ userId: place.owner.id, kind: "person" });
  expect(bytesOf(utterances[1]!.frames).equals(sent(said))).toBe(true);
  // Bob, in the old room, reaches it no more.
  await speak(bob, place.voiceId, microphone(2, 1920, 8), { sampleRate: 48000, channels: 1 });
  await quietWindow();
  expect(utterances.length).toBe(2);
  await voice.leave();
  host.close();
});
