/**
 * The package as it would be published: what `npm pack` puts in it, and that it works installed
 * in a fresh folder: Node imports every entry point, and a TypeScript consumer gets the types
 * (typed options included) from the declarations, with no access to the repository's sources.
 */
import { beforeAll, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { examplesFolder, ROOT, sdkTarball } from "../examples/fresh-folder.ts";

let folder: string;
beforeAll(() => {
  folder = examplesFolder();
}, 120_000);

test("the tarball holds the build, the README, the licenses and package.json, nothing else", () => {
  const listing = spawnSync("tar", ["-tzf", sdkTarball()], { encoding: "utf8" }).stdout.trim().split("\n").sort();
  const outside = listing.filter((path) => !path.startsWith("package/dist/"));
  expect(outside).toEqual(["package/LICENSE", "package/README.md", "package/THIRD-PARTY-NOTICES.md", "package/package.json"]);
  for (const entry of ["index", "client", "voice", "wav"]) {
    expect(listing).toContain(`package/dist/${entry}.js`);
    expect(listing).toContain(`package/dist/${entry}.d.ts`);
    expect(listing).toContain(`package/dist/cjs/${entry}.cjs`);
  }
  const manifest = JSON.parse(readFileSync(join(ROOT, "sdk", "package.json"), "utf8"));
  expect(manifest).toMatchObject({ name: "@hearth/sdk", license: "MIT", type: "module", engines: { node: ">=20" }, dependencies: { "socket.io-client": expect.any(String) } });
  expect(Object.keys(manifest.dependencies)).toEqual(["socket.io-client"]);
  expect(Object.keys(manifest.exports)).toEqual([".", "./client", "./voice", "./wav", "./package.json"]);
});

test("Node imports every entry point from the installed package; errors are one class across them", () => {
  const script = `
    import * as sdk from "@hearth/sdk";
    import * as voice from "@hearth/sdk/voice";
    import * as wav from "@hearth/sdk/wav";
    import * as client from "@hearth/sdk/client";
    let same = false;
    try { voice.frameBytes({ sampleRate: 44100, channels: 2 }, 20); } catch (error) { same = error instanceof sdk.HearthLimitError; }
    const audio = wav.readWav(wav.encodeWav(wav.tone({ durationMs: 20 })));
    console.log(JSON.stringify({ createBot: typeof sdk.createBot, joinVoice: typeof voice.joinVoice, same, samples: audio.pcm.length, embedLimit: sdk.LIMITS.embed.title, clientShared: client.HearthApiError === sdk.HearthApiError && client.Gateway === sdk.Gateway }));
  `;
  const result = spawnSync("node", ["--input-type=module", "-e", script], { cwd: folder, encoding: "utf8" });
  expect(result.stderr).toBe("");
  expect(JSON.parse(result.stdout)).toEqual({ createBot: "function", joinVoice: "function", same: true, samples: 960, embedLimit: 256, clientShared: true });
});

test("CommonJS: require works for every entry point, with one class per error across them", () => {
  const script = `
    const sdk = require("@hearth/sdk");
    const voice = require("@hearth/sdk/voice");
    const wav = require("@hearth/sdk/wav");
    const client = require("@hearth/sdk/client");
    let same = false;
    try { voice.frameBytes({ sampleRate: 44100, channels: 2 }, 20); } catch (error) { same = error instanceof sdk.HearthLimitError && error instanceof client.HearthError; }
    const audio = wav.readWav(wav.encodeWav(wav.tone({ durationMs: 20 })));
    console.log(JSON.stringify({ createBot: typeof sdk.createBot, joinVoice: typeof voice.joinVoice, same, samples: audio.pcm.length, clientShared: client.Gateway === sdk.Gateway }));
  `;
  const result = spawnSync("node", ["-e", script], { cwd: folder, encoding: "utf8" });
  expect(result.stderr).toBe("");
  expect(JSON.parse(result.stdout)).toEqual({ createBot: "function", joinVoice: "function", same: true, samples: 960, clientShared: true });
});

test("Node (ESM and CommonJS) decodes through ffmpeg from the installed package, reads received frames as a Node stream, and names the ffmpeg errors", () => {
  const made = spawnSync("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=0.5", "-ar", "48000", "tone.flac"], { cwd: folder, encoding: "utf8" });
  expect(made.stderr).toBe("");
  const body = `
    const version = await voice.ffmpegVersion();
    const decoder = new voice.FfmpegDecoder("tone.flac", { sampleRate: 24000, channels: 1 });
    let bytes = 0;
    for await (const chunk of decoder) bytes += chunk.byteLength;
    let missing = "";
    try { await voice.ffmpegVersion({ ffmpeg: "/nonexistent/ffmpeg" }); } catch (error) { missing = require("node:util").inspect(error).split(":")[0]; }
    const frames = new voice.FrameStream({}, () => {});
    frames.push({ userId: "u", kind: "bot", pcm: new Int16Array([1, 2, 3]), sampleRate: 48000, channels: 1, receivedAt: 0 });
    frames.close();
    const chunks = [];
    for await (const chunk of frames.toReadable()) chunks.push(Buffer.isBuffer(chunk) || chunk instanceof Uint8Array ? chunk.length : -1);
    console.log(JSON.stringify({ version: version.startsWith("ffmpeg version"), bytes, running: decoder.running, missing, chunks, timeout: new sdk.HearthTimeoutError("awaitMessage", 5, "no message").name }));`;
  const esm = spawnSync("node", ["--input-type=module", "-e", `import * as sdk from "@hearth/sdk"; import * as voice from "@hearth/sdk/voice"; import { createRequire } from "node:module"; const require = createRequire(import.meta.url); ${body}`], { cwd: folder, encoding: "utf8" });
  const cjs = spawnSync("node", ["-e", `const sdk = require("@hearth/sdk"); const voice = require("@hearth/sdk/voice"); (async () => { ${body} })();`], { cwd: folder, encoding: "utf8" });
  for (const result of [esm, cjs]) {
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout)).toEqual({ version: true, bytes: 24000, running: false, missing: "FfmpegNotFoundError", chunks: [6], timeout: "HearthTimeoutError" });
  }
});

test("errors print with their own class names (ESM and CommonJS)", () => {
  const make = `const errors = [new sdk.HearthApiError("getUser", 404, "Unknown user"), new sdk.HearthAckError("server:join", "No access"), new sdk.HearthLimitError("embeds.0.title", "too long"), new sdk.HearthError("x")];
    console.log(JSON.stringify(errors.map((e) => [e.name, e.constructor.name, require("node:util").inspect(e).split("\\n")[0]])));`;
  const esm = spawnSync("node", ["--input-type=module", "-e", `import * as sdk from "@hearth/sdk"; import { createRequire } from "node:module"; const require = createRequire(import.meta.url); ${make}`], { cwd: folder, encoding: "utf8" });
  const cjs = spawnSync("node", ["-e", `const sdk = require("@hearth/sdk"); ${make}`], { cwd: folder, encoding: "utf8" });
  const expected = [
    ["HearthApiError", "HearthApiError", "HearthApiError: getUser: 404 Unknown user"],
    ["HearthAckError", "HearthAckError", "HearthAckError: server:join: No access"],
    ["HearthLimitError", "HearthLimitError", "HearthLimitError: embeds.0.title: too long"],
    ["HearthError", "HearthError", "HearthError: x"],
  ];
  for (const result of [esm, cjs]) {
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout)).toEqual(expected);
  }
});

test("a TypeScript consumer gets the SDK's types from the installed declarations", () => {
  writeFileSync(
    join(folder, "consumer.ts"),
    `import { createBot, defineCommand, type Message } from "@hearth/sdk";
import { joinVoice, type Playback } from "@hearth/sdk/voice";
import { readWav } from "@hearth/sdk/wav";

const bot = createBot({ url: "http://localhost:3000", token: "t" });
bot.command(defineCommand({ name: "add", options: [{ name: "a", type: "integer", required: true }, { name: "b", type: "number" }] }), async (command) => {
  const sum: number = command.options.a + (command.options.b ?? 0);
  // @ts-expect-error: b may be missing
  const wrong: number = command.options.b;
  const sent: Message = await command.reply(String(sum + wrong));
  return sent.id;
});
bot.on("message:new", (message) => message.content.toUpperCase());
bot.on("resumed", (info) => info.downtimeMs.toFixed());
// @ts-expect-error: not an event
bot.on("message:nope", () => {});
export async function play(channelId: string, bytes: Uint8Array): Promise<Playback> {
  const voice = await joinVoice(bot, channelId);
  const ack = await bot.gateway.emit("bot:voice-participants", { channelId });
  ack.participants.map((p) => p.userId);
  // @ts-expect-error: voice:join takes {channelId}
  await bot.gateway.emit("voice:join", channelId);
  return voice.play(readWav(bytes));
}
const page = await bot.rest.request("botListMessages", { params: { channelId: "c" }, query: { limit: 10 } });
page[0]?.embeds;
// @ts-expect-error: path parameters are required
await bot.rest.request("botListMessages", {});
`,
  );
  writeFileSync(
    join(folder, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", lib: ["ES2022", "DOM"], types: [], strict: true, noEmit: true }, files: ["consumer.ts"] }),
  );
  const result = spawnSync("node", [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", folder], { encoding: "utf8" });
  expect(result.stdout + result.stderr).toBe("");
  expect(result.status).toBe(0);
});
