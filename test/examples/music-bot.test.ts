/**
 * Runs examples/music-bot.js against a real server, from the fresh folder where @hearth/sdk is
 * installed from its tarball, with ffmpeg decoding: a person in the voice channel types its
 * commands and hears the songs (tones made by ffmpeg at test time, one served over HTTP) in
 * queue order, paused, softer, skipped; the bot reports a song it cannot play and leaves when
 * the queue runs out.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Bot } from "../../sdk/src/index.ts";
import { addBot } from "../helpers/bots.ts";
import { community, type Community } from "../helpers/community.ts";
import { recordEvents, startServer, waitForEvent, type ClientSocket, type TestServer } from "../helpers/server.ts";
import { dominantHz, rms, toneFile } from "../helpers/tone.ts";
import { quietWindow, until } from "../helpers/wait.ts";
import { examplesFolder } from "./fresh-folder.ts";

type Frame = { pcm: Uint8Array; sampleRate: number; channels: number; botUserId: string };

let server: TestServer;
let folder: string;
let place: Community & { voiceId: string };
let listener: ClientSocket;
let http: ReturnType<typeof Bun.serve>;
const bots: Bot[] = [];

beforeAll(async () => {
  server = await startServer();
  folder = examplesFolder();
  const music = join(folder, "music");
  mkdirSync(music, { recursive: true });
  toneFile(join(music, "long.mp3"), { hz: 440, seconds: 5 });
  toneFile(join(music, "high.ogg"), { hz: 880, seconds: 0.4, args: ["-ar", "48000", "-c:a", "libopus"] });
  toneFile(join(music, "mid.flac"), { hz: 660, seconds: 0.4 });
  http = Bun.serve({ port: 0, fetch: () => new Response(Bun.file(join(music, "mid.flac"))) });
  place = await community(server, { voice: true });
  listener = await server.connect(place.member.token);
  expect((await listener.emitWithAck("channel:join", place.channelId)).ok).toBe(true);
}, 120_000);
afterAll(async () => {
  for (const bot of bots) bot.stop();
  http?.stop(true);
  await server.stop();
});

test("the music bot queues files and URLs, pauses, changes the volume, skips, reports a bad song and leaves when done", async () => {
  const app = await addBot(server, place.owner, place.serverId, "Radio");
  const { startMusicBot } = (await import(join(folder, "music-bot.js"))) as { startMusicBot(url: string, token: string, options?: { musicDir?: string }): Promise<Bot> };
  bots.push(await startMusicBot(server.url, app.token, { musicDir: join(folder, "music") }));
  /** Types a command as the person and returns the bot's next new message (or, after a defer, its edit). */
  const run = async (content: string, { deferred = false } = {}) => {
    const answer = deferred
      ? waitForEvent(listener, "message:update", { filter: (m) => m.user_id === app.botUserId, timeout: 5000 })
      : waitForEvent(listener, "message:new", { filter: (m) => m.user_id === app.botUserId, timeout: 5000 });
    expect((await server.api("POST", `/api/v1/messages/${place.channelId}`, { token: place.member.token, body: { content } })).status).toBe(201);
    return (await answer).content as string;
  };

  expect(await run("/play long.mp3")).toBe("Join a voice channel first, then /play again.");
  expect(await run("/play ../../etc/passwd")).toBe("Give a file from my music folder or an http(s) URL.");
  expect((await listener.emitWithAck("voice:join", { channelId: place.voiceId })).ok).toBe(true);
  const frames = recordEvents<Frame>(listener, "bot:audio-data");
  const heard = () => frames.filter((f) => f.botUserId === app.botUserId);
  expect(await run("/play long.mp3", { deferred: true })).toBe(`Playing **long.mp3** in <#${place.voiceId}>`);
  const url = `http://127.0.0.1:${http.port}/mid.flac`;
  expect(await run("/play high.ogg")).toBe("Queued **high.ogg** (#1)");
  expect(await run(`/play ${url}`)).toBe(`Queued **${url}** (#2)`);
  expect(await run("/queue")).toBe(`Now playing: **long.mp3**\n1. high.ogg\n2. ${url}`);

  await until(() => heard().length >= 10, "the first song under way");
  expect(Math.abs(dominantHz(heard().slice(2, 10)) - 440)).toBeLessThan(10);
  expect(await run("/pause")).toBe("Paused.");
  await quietWindow(60);
  const atPause = heard().length;
  await quietWindow(300);
  expect(heard().length).toBe(atPause);
  expect(await run("/queue")).toStartWith("Now playing: **long.mp3** (paused)");
  const loud = rms(heard().slice(2, atPause - 1));
  expect(await run("/volume 50")).toBe("Volume: 50%");
  expect(await run("/resume")).toBe("Resumed.");
  await until(() => heard().length >= atPause + 12, "the song going on");
  const soft = rms(heard().slice(atPause + 2, atPause + 12));
  expect(soft / loud).toBeGreaterThan(0.45);
  expect(soft / loud).toBeLessThan(0.55);

  const left = waitForEvent(listener, "voice:user-left", { timeout: 10_000 }); // the bot is the only other one in the room
  expect(await run("/skip")).toBe("Skipped **long.mp3**");
  await left; // high.ogg, then the URL, then nothing: the bot leaves
  await quietWindow(100); // the last frames already on their way
  const after = heard().slice(atPause + 12);
  // Past the end of the long song: 0.4 s at 880 Hz, then 0.4 s at 660 Hz (20 frames each, give or take the decoders' padding).
  const tail = after.slice(-40);
  expect(Math.abs(dominantHz(tail.slice(2, 18)) - 880)).toBeLessThan(15);
  expect(Math.abs(dominantHz(tail.slice(-18, -2)) - 660)).toBeLessThan(15);

  // A song that is not there: the bot says why, and leaves again.
  const report = waitForEvent(listener, "message:new", { filter: (m) => m.user_id === app.botUserId && m.content.startsWith("Could not play"), timeout: 5000 });
  expect(await run("/play nope.mp3", { deferred: true })).toBe(`Playing **nope.mp3** in <#${place.voiceId}>`);
  expect((await report).content).toBe(`Could not play **nope.mp3**: ffmpeg could not read ${join(folder, "music", "nope.mp3")}: No such file or directory`);
  expect(await run("/skip")).toBe("Nothing is playing.");
}, 60_000);
