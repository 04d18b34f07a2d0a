/**
 * Runs examples/python-bot.py (Debian's python3-socketio, no Hearth SDK) against a real server:
 * it registers /beep over REST, answers the interaction and sends PCM frames into the user's
 * voice channel. Skipped when the module is missing, except in CI (CI=true), where .ci/run
 * installs it and a missing module fails.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { community, type Community } from "../helpers/community.ts";
import { addBot } from "../helpers/bots.ts";
import { recordEvents, startServer, waitForEvent, type TestServer } from "../helpers/server.ts";
import { ROOT } from "./fresh-folder.ts";

/** Debian's interpreter: python3-socketio installs for it, not for another python3 on the PATH. */
const PYTHON = "/usr/bin/python3";
const importable = spawnSync(PYTHON, ["-c", "import socketio, websocket"], { encoding: "utf8" }).status === 0;
const inCi = process.env.CI === "true";

test("python3-socketio and python3-websocket are installed in CI", () => {
  if (inCi) expect(importable).toBe(true);
});

let server: TestServer;
let place: Community & { voiceId: string };
let bot: ChildProcess | null = null;

beforeAll(async () => {
  server = await startServer();
  place = await community(server, { voice: true });
});
afterAll(async () => {
  bot?.kill("SIGTERM");
  await server.stop();
});

test.skipIf(!importable)("the Python bot registers /beep, answers it and sends PCM frames", async () => {
  const app = await addBot(server, place.owner, place.serverId, "PyBeep");
  const output: string[] = [];
  bot = spawn(PYTHON, [join(ROOT, "examples", "python-bot.py")], { env: { ...process.env, HEARTH_URL: server.url, HEARTH_BOT_TOKEN: app.token } });
  const ready = new Promise<void>((resolve, reject) => {
    bot!.stdout!.on("data", (chunk: Buffer) => {
      output.push(chunk.toString());
      if (output.join("").includes("python bot ready")) resolve();
    });
    bot!.stderr!.on("data", (chunk: Buffer) => output.push(chunk.toString()));
    bot!.on("exit", (code) => reject(new Error(`the Python bot exited (${code}): ${output.join("")}`)));
  });
  await ready;

  // Registered over REST, as the reference's CommandDefinition.
  const commands = await server.api("GET", `/api/v1/oauth2/servers/${place.serverId}/commands`, { token: place.member.token });
  expect(commands.body.map((c: { name: string; bot_id: string }) => [c.name, c.bot_id])).toContainEqual(["beep", app.botUserId]);

  const socket = await server.connect(place.member.token);
  expect((await socket.emitWithAck("channel:join", place.channelId)).ok).toBe(true);
  expect((await socket.emitWithAck("voice:join", { channelId: place.voiceId })).ok).toBe(true);
  const frames = recordEvents<{ pcm: Uint8Array; sampleRate: number; channels: number; botUserId: string }>(socket, "bot:audio-data");
  const answer = waitForEvent(socket, "message:new", { filter: (m) => m.user_id === app.botUserId, timeout: 8000 });
  const left = waitForEvent(socket, "voice:user-left", { timeout: 8000 });
  expect((await server.api("POST", `/api/v1/messages/${place.channelId}`, { token: place.member.token, body: { content: "/beep" } })).status).toBe(201);
  expect((await answer).content).toBe("beep!");
  await left;
  expect(frames.length).toBe(10);
  expect(frames.every((f) => f.sampleRate === 48000 && f.channels === 1 && f.pcm.byteLength === 1920 && f.botUserId === app.botUserId)).toBe(true);
  socket.close();
}, 30_000);
