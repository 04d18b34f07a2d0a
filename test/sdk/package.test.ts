/**
 * The package as a bot developer gets it: `npm install http://<server>/sdk/latest.tgz` from a
 * real server (GET /sdk/..., src/ops/sdk-tarball.ts, which packs the checkout's SDK as
 * `npm pack` does) into a fresh folder outside the repository. What the tarball holds, that Node
 * imports and requires every entry point and calls the server with it, and that a TypeScript
 * consumer gets the types (typed options included) from the declarations, with no access to
 * the repository's sources.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureBuilt, ROOT } from "../examples/fresh-folder.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { createBot, type TestBot } from "../helpers/bots.ts";

const manifest = JSON.parse(readFileSync(join(ROOT, "sdk", "package.json"), "utf8"));
let server: TestServer;
let bot: TestBot;
let folder: string;
let served: Response;
let tarball: Uint8Array<ArrayBuffer>;

beforeAll(async () => {
  server = await startServer();
  bot = await createBot(server, await server.register(), "Packaged");
  served = await fetch(`${server.url}/sdk/hearth-sdk-${manifest.version}.tgz`);
  tarball = new Uint8Array(await served.arrayBuffer());
  folder = mkdtempSync(join(tmpdir(), "hearth-sdk-install-"));
  writeFileSync(join(folder, "package.json"), JSON.stringify({ name: "sdk-consumer", private: true, type: "module" }));
  const install = await run(["npm", "install", `${server.url}/sdk/latest.tgz`, "--prefer-offline", "--no-audit", "--no-fund"], { npm_config_update_notifier: "false" });
  if (install.status !== 0) throw new Error(`npm install of ${server.url}/sdk/latest.tgz failed:\n${install.stdout}\n${install.stderr}`);
}, 120_000);

/** A command in the folder, without blocking this process (the server under test runs in it). */
async function run(command: string[], env: Record<string, string> = {}) {
  const child = Bun.spawn(command, { cwd: folder, stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env } });
  const [stdout, stderr, status] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { stdout, stderr, status };
}
afterAll(async () => {
  await server.stop();
  rmSync(folder, { recursive: true, force: true });
});

test("the server serves the tarball of its own SDK version: gzip, length, ETag, 304, same bytes as latest.tgz", async () => {
  expect(served.status).toBe(200);
  expect(served.headers.get("content-type")).toBe("application/gzip");
  expect(Number(served.headers.get("content-length"))).toBe(tarball.byteLength);
  expect(served.headers.get("cache-control")).toBe("no-cache");
  const etag = served.headers.get("etag")!;
  expect(etag).toMatch(/^"[\w-]+"$/);
  expect([tarball[0], tarball[1]]).toEqual([0x1f, 0x8b]);
  const latest = await fetch(`${server.url}/sdk/latest.tgz`);
  expect(latest.headers.get("etag")).toBe(etag);
  expect(new Uint8Array(await latest.arrayBuffer())).toEqual(tarball);
  const again = await fetch(`${server.url}/sdk/latest.tgz`, { headers: { "if-none-match": etag } });
  expect(again.status).toBe(304);
  expect(await again.text()).toBe("");
  // The version it names is sdk/package.json's, as installed.
  expect(JSON.parse(readFileSync(join(folder, "node_modules", "@hearth", "sdk", "package.json"), "utf8")).version).toBe(manifest.version);
  expect(JSON.parse(readFileSync(join(folder, "package.json"), "utf8")).dependencies["@hearth/sdk"]).toBe(`${server.url}/sdk/latest.tgz`);
  // The lockfile pins these bytes (docs/bots.md: `npm ci` installs exactly them).
  const locked = JSON.parse(readFileSync(join(folder, "package-lock.json"), "utf8")).packages["node_modules/@hearth/sdk"];
  expect(locked).toMatchObject({ resolved: `${server.url}/sdk/latest.tgz`, integrity: `sha512-${new Bun.CryptoHasher("sha512").update(tarball).digest("base64")}` });
});

test("the reference documents it as a public operation answering application/gzip", async () => {
  const document = (await (await fetch(`${server.url}/api/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, Record<string, unknown>>> };
  const operation = document.paths["/sdk/{file}"]!.get! as { operationId: string; security: unknown[]; parameters: { name: string; in: string; description?: string }[]; responses: Record<string, { content?: Record<string, unknown> }> };
  expect(operation.operationId).toBe("getSdkTarball");
  expect(operation.security).toEqual([]);
  expect(operation.parameters.find((p) => p.name === "file")?.description).toContain("latest.tgz");
  expect(Object.keys(operation.responses["200"]!.content!)).toEqual(["application/gzip"]);
  expect(Object.keys(operation.responses)).toEqual(["200", "404", "503"]);
});

test("another version, or any other name, is 404 with an error; no token needed for the real one", async () => {
  for (const name of ["hearth-sdk-0.0.1.tgz", "hearth-sdk-.tgz", "latest.tar", "..%2Fpackage.json", "hearth-sdk-0.1.0.tgz.sig"]) {
    const response = await fetch(`${server.url}/sdk/${name}`);
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: string }).error).toContain(`hearth-sdk-${manifest.version}.tgz`);
  }
});

test("the tarball holds the build, the README, the licenses and package.json, nothing else", () => {
  const path = join(folder, "served.tgz");
  writeFileSync(path, tarball);
  const listing = spawnSync("tar", ["-tzf", path], { encoding: "utf8" }).stdout.trim().split("\n").sort();
  const outside = listing.filter((path) => !path.startsWith("package/dist/"));
  expect(outside).toEqual(["package/LICENSE", "package/README.md", "package/THIRD-PARTY-NOTICES.md", "package/package.json"]);
  for (const entry of ["index", "client", "voice", "wav"]) {
    expect(listing).toContain(`package/dist/${entry}.js`);
    expect(listing).toContain(`package/dist/${entry}.d.ts`);
    expect(listing).toContain(`package/dist/cjs/${entry}.cjs`);
  }
  expect(listing.filter((path) => path.endsWith(".map") || path.endsWith(".ts") && !path.endsWith(".d.ts"))).toEqual([]);
  expect(manifest).toMatchObject({ name: "@hearth/sdk", license: "MIT", type: "module", engines: { node: ">=20" }, dependencies: { "socket.io-client": expect.any(String) } });
  expect(Object.keys(manifest.dependencies)).toEqual(["socket.io-client"]);
  expect(Object.keys(manifest.exports)).toEqual([".", "./client", "./voice", "./wav", "./package.json"]);
}, 30_000);

test("package.json is ready to publish; npm pack --dry-run of sdk/ lists exactly what the served tarball holds", async () => {
  expect(manifest).toMatchObject({
    name: "@hearth/sdk",
    version: expect.stringMatching(/^\d+\.\d+\.\d+$/),
    description: expect.any(String),
    license: "MIT",
    author: expect.any(String),
    type: "module",
    engines: { node: ">=20" },
    main: "./dist/cjs/index.cjs",
    module: "./dist/index.js",
    types: "./dist/index.d.ts",
    sideEffects: false,
    files: ["dist", "README.md", "LICENSE", "THIRD-PARTY-NOTICES.md"],
    publishConfig: { access: "public" },
  });
  // Nothing runs at install, nothing but the one dependency comes along, and it may be published.
  for (const field of ["private", "scripts", "devDependencies", "peerDependencies", "optionalDependencies", "bundleDependencies"]) expect(manifest).not.toHaveProperty(field);
  expect(readFileSync(join(ROOT, "sdk", "LICENSE"), "utf8")).toStartWith("MIT License");
  for (const [entry, conditions] of Object.entries(manifest.exports as Record<string, string | Record<string, string>>)) {
    if (typeof conditions === "string") continue;
    expect(Object.keys(conditions)).toEqual(["types", "import", "require"]);
    expect(conditions.types).toStartWith("./dist/");
    expect([entry, conditions.import?.endsWith(".js")]).toEqual([entry, true]);
    expect(conditions.require).toEndWith(".cjs");
  }

  ensureBuilt();
  const dryRun = await run(["npm", "pack", join(ROOT, "sdk"), "--dry-run", "--json", "--ignore-scripts"], { npm_config_update_notifier: "false" });
  expect(dryRun.status).toBe(0);
  const [packed] = JSON.parse(dryRun.stdout) as { name: string; version: string; files: { path: string }[] }[];
  expect([packed!.name, packed!.version]).toEqual([manifest.name, manifest.version]);
  const path = join(folder, "listed.tgz");
  writeFileSync(path, tarball);
  const served = spawnSync("tar", ["-tzf", path], { encoding: "utf8" }).stdout.trim().split("\n").map((entry) => entry.replace(/^package\//, ""));
  expect(packed!.files.map((file) => file.path).sort()).toEqual(served.sort());
}, 30_000);

test("installed from the server, the SDK calls that server: ESM import and CommonJS require", async () => {
  const call = `const bot = sdk.createBot({ url: process.env.HEARTH_URL, token: process.env.BOT_TOKEN });
    bot.rest.request("getMe").then((me) => console.log(JSON.stringify({ id: me.id, username: me.username })), (error) => { console.error(error); process.exit(1); });`;
  const env = { HEARTH_URL: server.url, BOT_TOKEN: bot.token };
  const [esm, cjs] = await Promise.all([
    run(["node", "--input-type=module", "-e", `import * as sdk from "@hearth/sdk"; ${call}`], env),
    run(["node", "-e", `const sdk = require("@hearth/sdk"); ${call}`], env),
  ]);
  for (const result of [esm, cjs]) {
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout)).toEqual({ id: bot.botUserId, username: "Packaged" });
  }
}, 30_000);

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
}, 30_000);

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
}, 30_000);

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
}, 30_000);

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
}, 30_000);

test("a CommonJS TypeScript consumer (.cts, compiled to require) gets the same declarations", () => {
  writeFileSync(
    join(folder, "consumer.cts"),
    `import { createBot, HearthApiError } from "@hearth/sdk";
import { joinVoice, type Playback } from "@hearth/sdk/voice";
const bot = createBot({ url: "http://localhost:3000", token: "t" });
bot.on("message:new", (message) => message.content.toUpperCase());
// @ts-expect-error: not an event
bot.on("message:nope", () => {});
export const isApiError = (error: unknown): error is HearthApiError => error instanceof HearthApiError;
export const play = (channelId: string): Promise<Playback> => joinVoice(bot, channelId).then((voice) => voice.play("song.mp3"));
`,
  );
  writeFileSync(
    join(folder, "tsconfig.cjs.json"),
    JSON.stringify({ compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", lib: ["ES2022", "DOM"], types: [], strict: true, noEmit: true }, files: ["consumer.cts"] }),
  );
  const result = spawnSync("node", [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", join(folder, "tsconfig.cjs.json")], { encoding: "utf8" });
  expect(result.stdout + result.stderr).toBe("");
  expect(result.status).toBe(0);
}, 30_000);
