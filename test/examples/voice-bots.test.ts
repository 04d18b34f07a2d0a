/**
 * Runs examples/voice-bot.js (plays a WAV file on /play) and examples/echo-bot.js (records what
 * it hears, people and bots, and plays it back) against a real server, from the fresh folder
 * where @hearth/sdk is installed from its tarball. A person's socket in the voice channel (as
 * the web app's page) checks every byte heard, and speaks to the echo bot as the page does.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createBot as createSdkBot, type Bot } from "../../sdk/src/index.ts";
import { joinVoice } from "../../sdk/src/voice.ts";
import { encodeWav, tone } from "../../sdk/src/wav.ts";
import { addBot } from "../helpers/bots.ts";
import { community, type Community } from "../helpers/community.ts";
import { recordEvents, startServer, waitForEvent, type ClientSocket, type TestServer } from "../helpers/server.ts";
import { letTimePass, until } from "../helpers/wait.ts";
import { examplesFolder } from "./fresh-folder.ts";

type Frame = { pcm: Uint8Array; sampleRate: number; channels: number; botUserId: string };
const bytes = (frames: Frame[]) => Buffer.concat(frames.map((frame) => Buffer.from(frame.pcm)));
const pcmBytes = (pcm: Int16Array) => Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);

let server: TestServer;
let folder: string;
let place: Community & { voiceId: string };
let listener: ClientSocket;
const bots: Bot[] = [];

beforeAll(async () => {
  server = await startServer();
  folder = examplesFolder();
  place = await community(server, { voice: true });
  listener = await server.connect(place.member.token);
  expect((await listener.emitWithAck("channel:join", place.channelId)).ok).toBe(true);
}, 120_000);
afterAll(async () => {
  for (const bot of bots) bot.stop();
  await server.stop();
});

const botAnswer = (botUserId: string) =>
  waitForEvent(listener, "message:new", { filter: (m) => m.user_id === botUserId, timeout: 5000 });

test("the voice bot plays a WAV file, paced in 20 ms frames, into the caller's voice channel", async () => {
  const app = await addBot(server, place.owner, place.serverId, "Jukebox");
  // 24 kHz stereo, 0.5 s: 25 frames of 1920 bytes.
  const sound = tone({ frequency: 330, durationMs: 500, sampleRate: 24000, channels: 2 });
  const wavPath = join(folder, "chime.wav");
  writeFileSync(wavPath, encodeWav(sound));
  const { startVoiceBot } = (await import(join(folder, "voice-bot.js"))) as { startVoiceBot(url: string, token: string, path: string): Promise<Bot> };
  bots.push(await startVoiceBot(server.url, app.token, wavPath));

  // Not in a voice channel yet: the bot says so.
  let answer = botAnswer(app.botUserId);
  expect((await server.api("POST", `/api/v1/messages/${place.channelId}`, { token: place.member.token, body: { content: "/play" } })).status).toBe(201);
  expect((await answer).content).toBe("Join a voice channel first, then /play again.");

  expect((await listener.emitWithAck("voice:join", { channelId: place.voiceId })).ok).toBe(true);
  const frames = recordEvents<Frame>(listener, "bot:audio-data");
  const arrivals: number[] = [];
  listener.on("bot:audio-data", () => arrivals.push(performance.now()));
  const left = waitForEvent(listener, "voice:user-left", { timeout: 8000 });
  answer = botAnswer(app.botUserId);
  const edited = waitForEvent(listener, "message:update", { filter: (m) => m.user_id === app.botUserId, timeout: 5000 });
  expect((await server.api("POST", `/api/v1/messages/${place.channelId}`, { token: place.member.token, body: { content: "/play" } })).status).toBe(201);
  // defer() shows a placeholder at once; the reply replaces it.
  expect((await answer).content).toBe("Joining…");
  expect((await edited).content).toBe(`Playing in <#${place.voiceId}> (0.5 s)`);
  await left; // the bot leaves when the sound ends

  expect(frames.length).toBe(25);
  expect(frames.every((f) => f.sampleRate === 24000 && f.channels === 2 && f.botUserId === app.botUserId && f.pcm.byteLength === 1920)).toBe(true);
  expect(bytes(frames).equals(pcmBytes(sound.pcm))).toBe(true);
  // Paced, not sent in one burst: 24 gaps of 20 ms take about 480 ms (a generous floor for a loaded machine).
  expect(arrivals.at(-1)! - arrivals[0]!).toBeGreaterThan(300);
  expect((await listener.emitWithAck("voice:leave")).ok).toBe(true);
}, 30_000);

test("the echo bot listens to the room, records what a bot and a person say and plays each back", async () => {
  const echoApp = await addBot(server, place.owner, place.serverId, "Parrot");
  const speakerApp = await addBot(server, place.owner, place.serverId, "Talker");
  const { startEchoBot } = (await import(join(folder, "echo-bot.js"))) as { startEchoBot(url: string, token: string, options?: { pauseMs?: number }): Promise<Bot> };
  bots.push(await startEchoBot(server.url, echoApp.token, { pauseMs: 400 }));

  expect((await listener.emitWithAck("voice:join", { channelId: place.voiceId })).ok).toBe(true);
  const joined = waitForEvent(listener, "voice:user-joined", { filter: (p) => p.userId === echoApp.botUserId, timeout: 5000 });
  const listening = waitForEvent(listener, "voice:listening", { filter: (p) => p.userId === echoApp.botUserId, timeout: 5000 });
  const answer = botAnswer(echoApp.botUserId);
  expect((await server.api("POST", `/api/v1/messages/${place.channelId}`, { token: place.member.token, body: { content: "/echo" } })).status).toBe(201);
  expect((await answer).content).toBe(`Listening in <#${place.voiceId}>: speak, pause, and hear yourself.`);
  await joined;
  // It hears people: the room is told (the web app marks it "Listening").
  expect(await listening).toMatchObject({ userId: echoApp.botUserId, listening: true });

  // Another bot speaks: 0.3 s of 48 kHz mono.
  const speaker = createSdkBot({ url: server.url, token: speakerApp.token });
  bots.push(await speaker.start());
  const voice = await joinVoice(speaker, place.voiceId);
  const frames = recordEvents<Frame>(listener, "bot:audio-data");
  const said = tone({ frequency: 520, durationMs: 300, sampleRate: 48000, channels: 1 });
  expect((await voice.play(said).finished).frames).toBe(15);

  // The echo: the same 15 frames, byte for byte, from the echo bot.
  await until(() => frames.filter((f) => f.botUserId === echoApp.botUserId).length >= 15, "the echo of the bot's 15 frames");
  const echoed = frames.filter((f) => f.botUserId === echoApp.botUserId);
  expect(echoed.length).toBe(15);
  expect(bytes(echoed).equals(pcmBytes(said.pcm))).toBe(true);
  expect(bytes(frames.filter((f) => f.botUserId === speakerApp.botUserId)).equals(pcmBytes(said.pcm))).toBe(true);
  await voice.leave();

  // The person speaks, as the web app's page sends the microphone: 20 ms frames of 48 kHz mono.
  const microphone = tone({ frequency: 180, durationMs: 400, sampleRate: 48000, channels: 1 });
  const spoken = pcmBytes(microphone.pcm);
  for (let at = 0; at < spoken.length; at += 1920) {
    expect(await listener.emitWithAck("voice:audio-data", { channelId: place.voiceId, pcm: spoken.subarray(at, at + 1920), sampleRate: 48000, channels: 1 })).toEqual({ ok: true });
    await letTimePass(20, "a frame every 20 ms, as the page sends the microphone");
  }
  // The person hears themselves: 20 frames from the echo bot, their own bytes, in their format.
  await until(() => frames.filter((f) => f.botUserId === echoApp.botUserId).length >= 35, "the echo of the person's 20 frames");
  const personEcho = frames.filter((f) => f.botUserId === echoApp.botUserId).slice(15);
  expect(personEcho.length).toBe(20);
  expect(personEcho.every((f) => f.sampleRate === 48000 && f.channels === 1)).toBe(true);
  expect(bytes(personEcho).equals(spoken)).toBe(true);

  // /leave: it leaves the room.
  const left = waitForEvent(listener, "voice:user-left", { timeout: 5000 });
  const bye = botAnswer(echoApp.botUserId);
  expect((await server.api("POST", `/api/v1/messages/${place.channelId}`, { token: place.member.token, body: { content: "/leave" } })).status).toBe(201);
  expect((await bye).content).toBe("Left the voice channel.");
  await left;
}, 30_000);
