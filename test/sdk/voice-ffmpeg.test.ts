/**
 * The voice helper playing files, URLs and encoded streams through ffmpeg, against a real server
 * and a real relay: a person's socket in the voice channel hears the frames and checks the tone
 * in them (its frequency by zero crossings, its level by RMS). The fixtures are made by ffmpeg
 * itself in a temporary folder (sub-second tones from its `sine` source; no committed binaries).
 * Also: volume, pause (ffmpeg held by backpressure), stop and leave (the process gone), the
 * queue, and the errors when ffmpeg is missing or cannot read a source.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createReadStream, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBot, type Bot } from "../../sdk/src/index.ts";
import { FfmpegError, FfmpegNotFoundError, ffmpegVersion, joinVoice, type PcmChunk, type QueueItem } from "../../sdk/src/voice.ts";
import { readWavFile } from "../../sdk/src/wav.ts";
import { addBot } from "../helpers/bots.ts";
import { community, type Community } from "../helpers/community.ts";
import { recordEvents, startServer, type ClientSocket, type TestServer } from "../helpers/server.ts";
import { dominantHz, rms, toneFile } from "../helpers/tone.ts";
import { quietWindow, until } from "../helpers/wait.ts";

type Heard = { pcm: Uint8Array; sampleRate: number; channels: number; botUserId: string };

let server: TestServer;
let place: Community & { voiceId: string };
let listener: ClientSocket;
let heard: Heard[];
let dir: string;
let http: ReturnType<typeof Bun.serve>;
const bots: Bot[] = [];

const fixture = (name: string, options?: Parameters<typeof toneFile>[1]) => toneFile(join(dir, name), options);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "hearth-ffmpeg-"));
  fixture("tone.mp3");
  fixture("tone.opus.ogg", { args: ["-ar", "48000", "-c:a", "libopus"] }); // Opus is 48 kHz
  fixture("tone.flac");
  fixture("tone.wav");
  fixture("high.mp3", { hz: 880, seconds: 0.4 });
  fixture("long.mp3", { seconds: 5 });
  // A stand-in for a radio or a file host: serves the fixtures; /stall sends a little and then nothing.
  http = Bun.serve({
    port: 0,
    fetch(request) {
      const path = new URL(request.url).pathname;
      if (path === "/stall") {
        const head = readFileSync(join(dir, "long.mp3")).subarray(0, 4000);
        return new Response(new ReadableStream({ start: (controller) => controller.enqueue(head) }), { headers: { "content-type": "audio/mpeg" } });
      }
      const file = join(dir, path.slice(1));
      return existsSync(file) ? new Response(Bun.file(file)) : new Response("no such file", { status: 404 });
    },
  });
  server = await startServer();
  place = await community(server, { voice: true });
  listener = await server.connect(place.member.token);
  expect((await listener.emitWithAck("voice:join", { channelId: place.voiceId })).ok).toBe(true);
  heard = recordEvents<Heard>(listener, "bot:audio-data");
}, 30_000);
afterAll(async () => {
  for (const bot of bots) bot.stop();
  http?.stop(true);
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function voiceBot(name: string) {
  const app = await addBot(server, place.owner, place.serverId, name);
  const bot = createBot({ url: server.url, token: app.token });
  bots.push(bot);
  await bot.start();
  return { app, voice: await joinVoice(bot, place.voiceId) };
}

const from = (botUserId: string) => heard.filter((f) => f.botUserId === botUserId);

/** Whether a process with this id exists (a zombie counts: it has not been reaped). */
const alive = (pid: number) => existsSync(`/proc/${pid}`);

test("ffmpeg is on this machine (CI installs Debian's)", async () => {
  expect(await ffmpegVersion()).toStartWith("ffmpeg version");
});

test("MP3, Ogg/Opus, FLAC and WAV files play as 48 kHz stereo frames of their 440 Hz tone", async () => {
  const files = ["tone.mp3", "tone.opus.ogg", "tone.flac", "tone.wav"];
  const players = await Promise.all(files.map((file, n) => voiceBot(`Format${n}`)));
  const results = await Promise.all(players.map(({ voice }, n) => voice.play(join(dir, files[n]!)).finished));
  for (const [n, { app }] of players.entries()) {
    const stats = results[n]!;
    expect(stats.ended).toBe("finished");
    // 0.6 s: 30 frames of 20 ms (an MP3 or Opus decoder adds its padding: a frame or two).
    expect(stats.frames).toBeGreaterThanOrEqual(30);
    expect(stats.frames).toBeLessThanOrEqual(33);
    await until(() => from(app.botUserId).length === stats.frames, `${files[n]}: every frame heard`);
    const frames = from(app.botUserId);
    expect(frames.every((f) => f.sampleRate === 48000 && f.channels === 2)).toBe(true);
    expect(frames.slice(0, -1).every((f) => f.pcm.byteLength === 3840)).toBe(true);
    expect(Math.abs(dominantHz(frames) - 440)).toBeLessThan(10);
  }
  await Promise.all(players.map(({ voice }) => voice.leave()));
}, 20_000);

test("an HTTP URL, a fetch() body and a Node stream with {encoded: true} are decoded too, at the rate asked", async () => {
  const [a, b, c] = await Promise.all([voiceBot("Url"), voiceBot("Body"), voiceBot("NodeStream")]);
  const url = `http://127.0.0.1:${http.port}/tone.flac`;
  const body = (await fetch(`http://127.0.0.1:${http.port}/tone.mp3`)).body!;
  const [fromUrl, fromBody, fromStream] = await Promise.all([
    a.voice.play(url).finished,
    b.voice.play(body, { sampleRate: 24000, channels: 1 }).finished,
    c.voice.play(createReadStream(join(dir, "tone.opus.ogg")) as AsyncIterable<PcmChunk>, { encoded: true }).finished,
  ]);
  for (const [stats, { app }, format] of [
    [fromUrl, a, { sampleRate: 48000, channels: 2 }],
    [fromBody, b, { sampleRate: 24000, channels: 1 }],
    [fromStream, c, { sampleRate: 48000, channels: 2 }],
  ] as const) {
    expect(stats.frames).toBeGreaterThanOrEqual(30);
    await until(() => from(app.botUserId).length === stats.frames, "every frame heard");
    const frames = from(app.botUserId);
    expect(frames.every((f) => f.sampleRate === format.sampleRate && f.channels === format.channels)).toBe(true);
    expect(Math.abs(dominantHz(frames) - 440)).toBeLessThan(10);
  }
  await Promise.all([a, b, c].map(({ voice }) => voice.leave()));
}, 20_000);

test("volume scales the samples while playing: 1 then 0.25 is a quarter of the level; out of range is clamped", async () => {
  const { app, voice } = await voiceBot("Loudness");
  const playback = voice.play(join(dir, "long.mp3"));
  expect(playback.volume).toBe(1);
  await until(() => from(app.botUserId).length >= 15, "15 frames at volume 1");
  playback.volume = 0.25;
  const changedAt = from(app.botUserId).length;
  await until(() => from(app.botUserId).length >= changedAt + 20, "20 frames at volume 0.25");
  playback.stop();
  await playback.finished;
  const frames = from(app.botUserId);
  const loud = rms(frames.slice(3, changedAt - 1));
  const quiet = rms(frames.slice(changedAt + 6, changedAt + 20)); // past the frames already on their way (a loaded machine delivers late) and the ramp
  expect(loud).toBeGreaterThan(1500); // ffmpeg's sine at 1/8 of full scale, mono spread on two channels at -3 dB: RMS about 2000
  expect(quiet / loud).toBeGreaterThan(0.22);
  expect(quiet / loud).toBeLessThan(0.28);
  expect(Math.abs(dominantHz(frames.slice(changedAt + 6)) - 440)).toBeLessThan(10); // the same tone, softer
  playback.volume = 7;
  expect(playback.volume).toBe(2);
  playback.volume = -1;
  expect(playback.volume).toBe(0);
  expect(() => (playback.volume = Number.NaN)).toThrow("volume: must be a number from 0 to 2");
  await voice.leave();
});

test("pause sends nothing and holds ffmpeg by backpressure (it does not decode ahead); resume goes on; stop kills it", async () => {
  const { app, voice } = await voiceBot("Holder");
  const playback = voice.play(join(dir, "long.mp3"));
  await until(() => from(app.botUserId).length >= 5, "five frames");
  const pid = playback.decoder!.pid!;
  expect(pid).toBeGreaterThan(0);
  playback.pause();
  await quietWindow(60); // a frame already on the wire still lands
  const atPause = from(app.botUserId).length;
  const decodedAtPause = playback.decoder!.bytesDecoded;
  await quietWindow(400);
  expect(from(app.botUserId).length).toBe(atPause);
  // 5 s of 48 kHz stereo is 960 kB, which ffmpeg decodes in a few ms: still running, and read
  // no further, it is blocked on a full pipe.
  expect(playback.decoder!.running).toBe(true);
  expect(alive(pid)).toBe(true);
  expect(playback.decoder!.bytesDecoded).toBe(decodedAtPause);
  expect(decodedAtPause).toBeLessThan(400_000);
  playback.resume();
  await until(() => from(app.botUserId).length >= atPause + 5, "frames again after resume");
  playback.stop();
  const stats = await playback.finished;
  expect(stats.ended).toBe("stopped");
  expect(playback.decoder!.running).toBe(false);
  expect(alive(pid)).toBe(false); // killed and reaped: no zombie
  await voice.leave();
});

test("leaving while ffmpeg waits on a stalled URL ends the playback at once and kills ffmpeg", async () => {
  const { voice } = await voiceBot("Staller");
  const playback = voice.play(`http://127.0.0.1:${http.port}/stall`);
  await until(() => (playback.decoder!.pid ?? 0) > 0, "ffmpeg started");
  const pid = playback.decoder!.pid!;
  await quietWindow(200);
  expect(alive(pid)).toBe(true);
  const left = performance.now();
  await voice.leave();
  expect((await playback.finished).ended).toBe("left");
  expect(performance.now() - left).toBeLessThan(2000);
  expect(alive(pid)).toBe(false);
});

test("the queue plays its items in order, skips, reports a bad one and goes on, goes idle; clear, stop and leaving empty it", async () => {
  const { app, voice } = await voiceBot("Jukebox");
  const events: string[] = [];
  const queue = voice.queue;
  expect(voice.queue).toBe(queue);
  queue.on("start", ({ item }) => events.push(`start ${item.title}`));
  const sent: number[] = [];
  queue.on("end", ({ item, stats }) => {
    events.push(`end ${item.title} ${stats.ended}`);
    sent.push(stats.frames);
  });
  queue.on("error", ({ item, error }) => events.push(`error ${item.title}: ${(error as Error).message}`));
  queue.on("idle", () => events.push("idle"));
  const first = queue.add(join(dir, "long.mp3"), { title: "long", volume: 0.5 });
  const missing = join(dir, "missing.mp3");
  queue.add(missing);
  const last: QueueItem = queue.add(join(dir, "high.mp3"), { title: "high" });
  expect(queue.nowPlaying?.item).toBe(first);
  // An item's volume is relative to the queue's.
  expect(queue.nowPlaying?.playback.volume).toBe(0.5);
  queue.volume = 1.5;
  expect(queue.nowPlaying?.playback.volume).toBe(0.75);
  queue.volume = 1;
  expect(queue.list().map((item) => item.title)).toEqual([missing, "high"]);
  await until(() => from(app.botUserId).length >= 10, "the first item under way");
  expect(queue.skip()).toBe(first);
  await queue.whenIdle();
  expect(events).toEqual([
    "start long",
    "end long stopped",
    `start ${missing}`,
    `error ${missing}: ffmpeg could not read ${missing}: No such file or directory`,
    "start high",
    "end high finished",
    "idle",
  ]);
  expect(last.id).toBe(3);
  expect(sent[0]).toBeLessThan(20); // the long one, skipped after about ten frames
  expect(sent[1]).toBe(20); // 0.4 s
  await until(() => from(app.botUserId).length === sent[0]! + sent[1]!, "every frame heard");
  const frames = from(app.botUserId);
  // The long one's 440 Hz, then the high one's 880 Hz: in that order, and nothing of the long one after the skip.
  const high = frames.slice(sent[0]);
  expect(Math.abs(dominantHz(high) - 880)).toBeLessThan(15);
  expect(Math.abs(dominantHz(frames.slice(0, 10)) - 440)).toBeLessThan(10);
  expect(queue.idle).toBe(true);

  // clear() drops what waits and keeps what plays; stop() ends that too; leaving empties the queue.
  events.length = 0;
  queue.add(join(dir, "long.mp3"), { title: "again" });
  queue.add(join(dir, "high.mp3"));
  queue.add(join(dir, "high.mp3"));
  expect(queue.clear()).toBe(2);
  expect(queue.list()).toEqual([]);
  expect(queue.nowPlaying?.item.title).toBe("again");
  queue.stop();
  await queue.whenIdle();
  expect(events).toEqual(["start again", "end again stopped", "idle"]);
  queue.add(join(dir, "long.mp3"), { title: "cut" });
  queue.add(join(dir, "high.mp3"), { title: "never" });
  await voice.leave();
  await queue.whenIdle();
  expect(events.slice(3)).toEqual(["start cut", "end cut left", "idle"]);
  expect(() => queue.add(join(dir, "high.mp3"))).toThrow("queue.add(): the bot left this voice channel");
}, 15_000);

test("without ffmpeg: a clear FfmpegNotFoundError; WAV files and PCM still play; a source ffmpeg cannot read names it", async () => {
  const { app, voice } = await voiceBot("NoFfmpeg");
  const missingBinary = voice.play(join(dir, "tone.mp3"), { ffmpeg: "/nonexistent/ffmpeg" }).finished;
  await expect(missingBinary).rejects.toBeInstanceOf(FfmpegNotFoundError);
  await expect(missingBinary).rejects.toThrow(
    'ffmpeg was not found (looked for "/nonexistent/ffmpeg"): install it to play MP3, Ogg, FLAC and other files and URLs (Debian and Ubuntu: apt-get install ffmpeg; macOS: brew install ffmpeg) or pass {ffmpeg: "/path/to/ffmpeg"}; WAV files (readWavFile) and raw PCM play without it',
  );
  await expect(ffmpegVersion({ ffmpeg: "/nonexistent/ffmpeg" })).rejects.toBeInstanceOf(FfmpegNotFoundError);
  // A name is looked up on PATH, as "ffmpeg" is by default.
  await expect(ffmpegVersion({ ffmpeg: "no-such-ffmpeg-here" })).rejects.toThrow('ffmpeg was not found (looked for "no-such-ffmpeg-here")');
  // The WAV reader needs no ffmpeg.
  const stats = await voice.play(await readWavFile(join(dir, "tone.wav"))).finished;
  expect(stats.frames).toBe(30);
  await until(() => from(app.botUserId).length === 30, "the WAV's frames");

  const notThere = voice.play(join(dir, "nope.flac")).finished;
  await expect(notThere).rejects.toBeInstanceOf(FfmpegError);
  await expect(notThere).rejects.toThrow(`ffmpeg could not read ${join(dir, "nope.flac")}: No such file or directory`);
  const url = `http://127.0.0.1:${http.port}/gone.mp3`;
  await expect(voice.play(url).finished).rejects.toThrow(`ffmpeg could not read ${url}: Server returned 404 Not Found`);
  await expect(voice.play(new Uint8Array(4096).fill(7), { encoded: true }).finished).rejects.toThrow("ffmpeg could not read the stream: Invalid data found when processing input");
  expect(() => voice.play(new URL("ftp://example.com/song.mp3"))).toThrow("source: ftp: URLs are not played (http, https and file are)");
  await voice.leave();
});
