/**
 * Follows docs/bots.md as a newcomer would, in an empty folder against a real server: every
 * ```sh block runs in order in one bash (so variables and `cd` carry over), every listing
 * preceded by `<!-- file: NAME -->` is written to NAME when its place comes, and every
 * ```sh bot block (a bot that runs until stopped) is started in the background and waited for
 * until it prints "ready" (and stopped when the test ends). One line is pointed at the test: `export BASE=...` (this server,
 * which also serves the SDK the guide installs: GET /sdk/latest.tgz). Then the test checks what the guide promised:
 * the dice bot answered the curl `/roll 20`, and the voice bot plays into the voice channel.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "./fresh-folder.ts";
import { recordEvents, startServer, waitForEvent, type TestServer } from "../helpers/server.ts";

interface Block {
  info: string;
  code: string;
  file: string | null;
}

/** The fenced blocks of a Markdown page, with the file a `<!-- file: NAME -->` line names. */
export function blocks(markdown: string): Block[] {
  const out: Block[] = [];
  const pattern = /(?:<!-- file: ([^ ]+) -->\n)?```([^\n]*)\n([\s\S]*?)```\n/g;
  for (const match of markdown.matchAll(pattern)) out.push({ file: match[1] ?? null, info: match[2]!.trim(), code: match[3]! });
  return out;
}

const GUIDE = readFileSync(join(ROOT, "docs", "bots.md"), "utf8");

/** The guide as one bash script. */
function script(base: string): string {
  const lines = ["set -euo pipefail"];
  let bots = 0;
  for (const block of blocks(GUIDE)) {
    if (block.file) {
      lines.push(`cat > ${block.file} <<'GUIDE_FILE_END'\n${block.code}GUIDE_FILE_END`);
    } else if (block.info === "sh") {
      lines.push(
        block.code
          .replace(/^export BASE=.*$/m, `export BASE=${base}`)
          .trimEnd(),
      );
    } else if (block.info === "sh bot") {
      const log = `.bot-${++bots}.log`;
      lines.push(
        `( ${block.code.trim()} ) > ${log} 2>&1 &`,
        `for i in $(seq 150); do grep -q ready ${log} && break; sleep 0.2; done`,
        `grep -q ready ${log} || { echo "bot ${bots} did not start:"; cat ${log}; exit 1; }`,
        `echo "--- bot ${bots}: $(cat ${log})"`,
      );
    }
  }
  return lines.join("\n") + "\n";
}

let server: TestServer;
/** The guide's shell runs in a process group of its own: the bots it leaves running are stopped with it. */
let group: number | null = null;
beforeAll(async () => {
  server = await startServer();
}, 60_000);
afterAll(async () => {
  if (group !== null) {
    try {
      process.kill(-group, "SIGTERM");
    } catch {
      // already gone
    }
  }
  await server.stop();
});

test("the guide has its shell steps and both listings, and quotes the examples exactly", () => {
  const all = blocks(GUIDE);
  expect(all.filter((b) => b.info === "sh").length).toBeGreaterThanOrEqual(8);
  expect(all.filter((b) => b.info === "sh bot").length).toBe(2);
  expect(all.find((b) => b.file === "bot.js")?.code).toBe(readFileSync(join(ROOT, "examples", "roll-bot.js"), "utf8"));
  expect(all.find((b) => b.file === "voice-bot.js")?.code).toBe(readFileSync(join(ROOT, "examples", "voice-bot.js"), "utf8"));
});

/** The guide's commands use curl; a machine without it skips this (CI has it, and must not skip). */
const hasCurl = spawnSync("curl", ["--version"]).status === 0;

test("curl is there in CI", () => {
  if (process.env.CI === "true") expect(hasCurl).toBe(true);
});

test.skipIf(!hasCurl)("a newcomer following docs/bots.md in an empty folder gets a working bot, then a voice bot", async () => {
  const folder = mkdtempSync(join(tmpdir(), "hearth-guide-"));
  const child = spawn("bash", ["-c", script(server.url)], { cwd: folder, detached: true, env: { ...process.env, npm_config_update_notifier: "false" } });
  group = child.pid ?? null;
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  if (code !== 0) throw new Error(`the guide's commands failed (${code}):\n${output}`);

  // Step 6's curl printed the bot's answer to /roll 20.
  expect(output).toMatch(/<@[0-9a-f-]+> rolled \*\*([1-9]|1[0-9]|20)\*\*/);
  expect(output).toContain("roll bot ready as Dice");
  expect(output).toContain("voice bot ready as Jukebox");

  // Step 7, as the user in the web app would: join Lounge, type /play.
  const login = await server.api("POST", "/api/v1/auth/login", { body: { login: "dicemaster", password: "correct horse battery" } });
  expect(login.status).toBe(200);
  const token = login.body.token as string;
  const servers = await server.api("GET", "/api/v1/servers", { token });
  const serverId = servers.body[0].id as string;
  const channels = (await server.api("GET", `/api/v1/channels/${serverId}`, { token })).body.channels as { id: string; name: string; type: string }[];
  const lounge = channels.find((c) => c.type === "voice" && c.name === "Lounge")!;
  const general = channels.find((c) => c.name === "general")!;
  const socket = await server.connect(token);
  expect((await socket.emitWithAck("channel:join", general.id)).ok).toBe(true);
  expect((await socket.emitWithAck("voice:join", { channelId: lounge.id })).ok).toBe(true);
  const frames = recordEvents(socket, "bot:audio-data");
  const edited = waitForEvent(socket, "message:update", { filter: (m) => m.content.startsWith("Playing in"), timeout: 10_000 });
  const left = waitForEvent(socket, "voice:user-left", { timeout: 10_000 });
  expect((await server.api("POST", `/api/v1/messages/${general.id}`, { token, body: { content: "/play" } })).status).toBe(201);
  expect((await edited).content).toBe(`Playing in <#${lounge.id}> (1.5 s)`);
  await left;
  expect(frames.length).toBe(75); // 1.5 s of 20 ms frames
  socket.close();
}, 180_000);
