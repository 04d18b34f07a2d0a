/**
 * The voice helper against a real server: paced frames from decoded audio and from streams,
 * pause, resume and stop, the schedule under stalls, receiving per speaker, leaving, and the
 * voice channel joined again after a reconnect. A person's socket in the room hears it all.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createBot, HearthLimitError, type Bot } from "../../sdk/src/index.ts";
import type { Readable } from "node:stream";
import { frameBytes, joinFrames, joinVoice, type PcmChunk, type ReceivedFrame, type SpeakerStream } from "../../sdk/src/voice.ts";
import { tone } from "../../sdk/src/wav.ts";
import { addBot } from "../helpers/bots.ts";
import { community, type Community } from "../helpers/community.ts";
import { recordEvents, startServer, waitForEvent, type ClientSocket, type TestServer } from "../helpers/server.ts";
import { letTimePass, quietWindow, until } from "../helpers/wait.ts";

type Heard = { pcm: Uint8Array; sampleRate: number; channels: number; botUserId: string };
const concat = (chunks: ArrayLike<number>[]) => Buffer.concat(chunks.map((c) => Buffer.from(c as Uint8Array)));
const asBytes = (pcm: Int16Array) => Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);

let server: TestServer;
let place: Community & { voiceId: string };
let listener: ClientSocket;
const bots: Bot[] = [];

beforeAll(async () => {
  server = await startServer();
  place = await community(server, { voice: true });
  listener = await server.connect(place.member.token);
  expect((await listener.emitWithAck("voice:join", { channelId: place.voiceId })).ok).toBe(true);
});
afterAll(async () => {
  for (const bot of bots) bot.stop();
  await server.stop();
});

async function voiceBot(name: string) {
  const app = await addBot(server, place.owner, place.serverId, name);
  const bot = createBot({ url: server.url, token: app.token, reconnect: { initialDelayMs: 50, maxDelayMs: 200 } });
  bots.push(bot);
  await bot.start();
  return { bot, app, voice: await joinVoice(bot, place.voiceId) };
}

test("play() sends decoded audio as paced 20 ms frames, every byte in order", async () => {
  const { app, voice } = await voiceBot("Player");
  const heard = recordEvents<Heard>(listener, "bot:audio-data");
  const sound = tone({ durationMs: 1000, sampleRate: 48000, channels: 2 });
  const started = performance.now();
  const stats = await voice.play(sound).finished;
  const elapsed = performance.now() - started;
  expect(stats).toMatchObject({ frames: 50, bytes: 192000, audioMs: 1000, resyncs: 0, ended: "finished" });
  await until(() => heard.length === 50, "heard.length === 50");
  expect(heard.every((f) => f.botUserId === app.botUserId && f.sampleRate === 48000 && f.channels === 2 && f.pcm.byteLength === 3840)).toBe(true);
  expect(concat(heard.map((f) => f.pcm)).equals(asBytes(sound.pcm))).toBe(true);
  // Paced over about a second, not sent at once (bounds generous for a shared machine).
  expect(elapsed).toBeGreaterThan(900);
  expect(elapsed).toBeLessThan(5000);
  await voice.leave();
});

test("a raw PCM stream in chunks of any size is cut into whole frames; the last one is shorter", async () => {
  const { voice } = await voiceBot("Streamer");
  const heard = recordEvents<Heard>(listener, "bot:audio-data");
  const sound = tone({ durationMs: 130, sampleRate: 16000, channels: 1 }); // 2080 samples: 6 frames of 320 and one of 160
  const all = asBytes(sound.pcm);
  async function* chunks(): AsyncGenerator<PcmChunk> {
    for (let at = 0; at < all.length; at += 777) {
      await Promise.resolve(); // an asynchronous source, as a file or a socket is
      yield all.subarray(at, at + 777);
    }
  }
  const stats = await voice.play(chunks(), { sampleRate: 16000, channels: 1 }).finished;
  expect(stats.frames).toBe(7);
  await until(() => heard.length === 7, "heard.length === 7");
  expect(heard.map((f) => f.pcm.byteLength)).toEqual([640, 640, 640, 640, 640, 640, 320]);
  expect(concat(heard.map((f) => f.pcm)).equals(all)).toBe(true);
  await voice.leave();
});

test("pause holds the frames, resume goes on from the next one, stop ends it", async () => {
  const { voice } = await voiceBot("Pauser");
  const heard = recordEvents<Heard>(listener, "bot:audio-data");
  const playback = voice.play(tone({ durationMs: 2000, sampleRate: 48000, channels: 1 }));
  await until(() => heard.length >= 5, "heard.length >= 5");
  playback.pause();
  await quietWindow(60); // a frame already on the wire still lands
  const atPause = heard.length;
  await quietWindow(200); // ten frames' worth
  expect(heard.length).toBe(atPause); // nothing while paused
  playback.resume();
  await until(() => heard.length >= atPause + 5, "heard.length >= atPause + 5");
  playback.stop();
  const stats = await playback.finished;
  expect(stats.ended).toBe("stopped");
  expect(stats.frames).toBeLessThan(100);
  await until(() => heard.length >= stats.frames, "every frame sent before the stop");
  expect(heard.length).toBe(stats.frames);
  await voice.leave();
});

test("frames are scheduled on a monotonic clock: after a short stall they catch up, after a long one the schedule moves", async () => {
  const { voice } = await voiceBot("Steady");
  const playback = voice.play(tone({ durationMs: 1500, sampleRate: 48000, channels: 1 }), { maxLagMs: 200 });
  const busy = (ms: number) => {
    const end = performance.now() + ms;
    while (performance.now() < end);
  };
  // The playback's clock against the wall clock is what is tested: real time runs between stalls.
  await letTimePass(200, "playback under way");
  busy(150); // shorter than maxLagMs: the frames due meanwhile go out at once, late
  await letTimePass(300, "the schedule catches up");
  busy(450); // longer: the schedule moves forward rather than sending the backlog in a burst
  const stats = await playback.finished;
  expect(stats.frames).toBe(75);
  expect(stats.lateFrames).toBeGreaterThanOrEqual(3);
  expect(stats.resyncs).toBeGreaterThanOrEqual(1);
  await voice.leave();
});

test("receiving: per speaker, as async iterators of frames that end at a pause", async () => {
  const ear = await voiceBot("Ear");
  const a = await voiceBot("SpeakerA");
  const b = await voiceBot("SpeakerB");
  const everything: ReceivedFrame[] = [];
  const all = ear.voice.receive();
  void (async () => {
    for await (const frame of all) everything.push(frame);
  })();
  const fromA = ear.voice.receive(a.app.botUserId, { idleMs: 300 });
  const utterances: { userId: string; frames: ReceivedFrame[]; ended: boolean }[] = [];
  const speakers = ear.voice.speakers({ idleMs: 300 });
  const collecting = (async () => {
    for await (const speaker of speakers) {
      const utterance = { userId: speaker.userId, frames: [] as ReceivedFrame[], ended: false };
      utterances.push(utterance);
      for await (const frame of speaker.frames) utterance.frames.push(frame);
      utterance.ended = true;
    }
  })();

  const soundA = tone({ frequency: 300, durationMs: 200, sampleRate: 48000, channels: 1 });
  const soundB = tone({ frequency: 900, durationMs: 200, sampleRate: 24000, channels: 2 });
  await Promise.all([a.voice.play(soundA).finished, b.voice.play(soundB).finished]);
  const onlyA: ReceivedFrame[] = [];
  for await (const frame of fromA) onlyA.push(frame); // ends 300 ms after A's last frame
  expect(onlyA.length).toBe(10);
  expect(asBytes(joinFrames(onlyA).pcm).equals(asBytes(soundA.pcm))).toBe(true);

  await until(() => utterances.length === 2 && everything.length === 20, "both utterances, every frame");
  await until(() => utterances.every((u) => u.ended), "both utterances to end at the pause");
  const byUser = Object.fromEntries(utterances.map((u) => [u.userId, joinFrames(u.frames)]));
  expect(asBytes(byUser[a.app.botUserId]!.pcm).equals(asBytes(soundA.pcm))).toBe(true);
  expect(byUser[b.app.botUserId]).toMatchObject({ sampleRate: 24000, channels: 2 });
  expect(asBytes(byUser[b.app.botUserId]!.pcm).equals(asBytes(soundB.pcm))).toBe(true);
  expect(everything.every((f) => f.kind === "bot")).toBe(true);

  // A speaks again: a new utterance. Then the ear leaves: everything ends.
  await a.voice.play(soundA).finished;
  await until(() => utterances.length === 3, "utterances.length === 3");
  expect(utterances[2]!.userId).toBe(a.app.botUserId);
  await ear.voice.leave();
  await collecting;
  expect(ear.voice.active).toBe(false);
  for (const speaker of [a, b]) await speaker.voice.leave();
});

test("receiving as Node streams: each speaker as they start, their PCM as bytes that end when they stop, or frames in object mode", async () => {
  const ear = await voiceBot("NodeEar");
  const mouth = await voiceBot("NodeMouth");
  // toReadable() is typed loosely (the SDK needs no @types/node): it is Node's Readable.
  const speakers = ear.voice.speakers({ idleMs: 300 }).toReadable() as unknown as Readable;
  expect(speakers.readableObjectMode).toBe(true);
  const utterances: { userId: string; bytes: Buffer[]; ended: boolean }[] = [];
  speakers.on("data", (speaker: SpeakerStream) => {
    const utterance = { userId: speaker.userId, bytes: [] as Buffer[], ended: false };
    utterances.push(utterance);
    const pcm = speaker.frames.toReadable() as unknown as Readable;
    expect(pcm.readableObjectMode).toBe(false);
    pcm.on("data", (chunk: Buffer) => utterance.bytes.push(chunk));
    pcm.on("end", () => (utterance.ended = true));
  });
  const frames = ear.voice.receive(mouth.app.botUserId, { idleMs: 300 }).toReadable({ objectMode: true }) as unknown as Readable;
  const sound = tone({ frequency: 500, durationMs: 200, sampleRate: 48000, channels: 1 });
  await mouth.voice.play(sound).finished;
  const objects: ReceivedFrame[] = [];
  for await (const frame of frames) objects.push(frame as ReceivedFrame); // ends 300 ms after the last frame
  expect(objects.length).toBe(10);
  expect(objects.every((f) => f.userId === mouth.app.botUserId && f.kind === "bot" && f.sampleRate === 48000)).toBe(true);
  await until(() => utterances[0]?.ended === true, "the utterance's stream to end at the pause");
  expect(utterances.map((u) => u.userId)).toEqual([mouth.app.botUserId]);
  expect(Buffer.concat(utterances[0]!.bytes).equals(asBytes(sound.pcm))).toBe(true);
  // Speaking again is a new speaker stream; leaving ends the stream of speakers.
  await mouth.voice.play(sound).finished;
  await until(() => utterances.length === 2 && utterances[1]!.ended, "a second utterance");
  const done = new Promise((resolve) => speakers.on("end", resolve));
  await ear.voice.leave();
  await done;
  await mouth.voice.leave();
});

test("a drop mid-song: the bot joins its voice channel again and the song goes on", async () => {
  const { bot, app, voice } = await voiceBot("Resilient");
  const heard = recordEvents<Heard>(listener, "bot:audio-data");
  const playback = voice.play(tone({ durationMs: 3000, sampleRate: 48000, channels: 1 }));
  await until(() => heard.length >= 10, "heard.length >= 10");
  const resumed = new Promise((resolve) => bot.on("resumed", resolve));
  const rejoined = waitForEvent(listener, "voice:user-joined", { filter: (p) => p.userId === app.botUserId, timeout: 5000 });
  server.app.io.in(`user:${app.botUserId}`).disconnectSockets();
  await resumed;
  await rejoined;
  const afterResume = heard.length;
  await until(() => heard.length >= afterResume + 10, "heard.length >= afterResume + 10");
  expect(heard.length).toBeGreaterThanOrEqual(afterResume + 10);
  expect(voice.active).toBe(true);
  playback.stop();
  expect((await playback.finished).ended).toBe("stopped");
  await voice.leave();
});

test("leaving ends playback with 'left'; formats the relay refuses are refused before sending", async () => {
  const { voice } = await voiceBot("Leaver");
  const heard = recordEvents<Heard>(listener, "bot:audio-data");
  const playback = voice.play(tone({ durationMs: 2000 }));
  await until(() => heard.length > 0, "playback under way");
  await voice.leave();
  expect((await playback.finished).ended).toBe("left");
  expect(() => voice.play(tone())).toThrow("the bot left this voice channel");
  expect(() => frameBytes({ sampleRate: 44100, channels: 2 }, 20)).toThrow(HearthLimitError);
  expect(() => frameBytes({ sampleRate: 48000, channels: 3 }, 20)).toThrow("channels: must be one of 1, 2");
  expect(() => frameBytes({ sampleRate: 48000, channels: 2 }, 80)).toThrow("a 80 ms frame is 15360 bytes; the relay takes at most 11520");
});
