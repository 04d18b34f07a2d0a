/**
 * Runs examples/roll-bot.js (the bot docs/bots.md walks through) against a real server, from a
 * fresh folder where @hearth/sdk is installed from its packed tarball (./fresh-folder.ts).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Bot } from "../../sdk/src/index.ts";
import { community } from "../helpers/community.ts";
import { startServer, waitForEvent, type TestServer } from "../helpers/server.ts";
import { examplesFolder, ROOT } from "./fresh-folder.ts";

interface RollBotModule {
  startRollBot(url: string, token: string, random?: () => number): Promise<Bot>;
}

let server: TestServer;
let bot: Bot | null = null;
let folder: string;
beforeAll(async () => {
  server = await startServer();
  folder = examplesFolder(); // packs and installs the SDK: seconds, once per test process
}, 120_000);
afterAll(async () => {
  bot?.stop();
  await server.stop();
});

test("the example roll bot answers /roll with an embed and re-rolls on the button", async () => {
  const { owner, member: player, serverId, channelId, bot: app } = await community(server, { bot: true });
  const { startRollBot } = (await import(join(folder, "roll-bot.js"))) as RollBotModule;
  const rolls = [0.95, 0.05];
  bot = await startRollBot(server.url, app.token, () => rolls.shift() ?? 0.5);

  // /roll is registered with its option typed as the reference says (integer: code 4).
  const commands = await server.api("GET", `/api/v1/oauth2/servers/${serverId}/commands`, { token: player.token });
  expect(commands.status).toBe(200);
  const roll = commands.body.find((c: { name: string }) => c.name === "roll");
  expect(roll.options).toEqual([{ name: "sides", description: "How many sides (default 6)", type: 4, required: false, min_value: 2, max_value: 1000 }]);

  const socket = await server.connect(player.token);
  expect((await socket.emitWithAck("channel:join", channelId)).ok).toBe(true);

  // The player runs the command (named form); the bot answers in the channel.
  const answer = waitForEvent(socket, "message:new", { filter: (m) => m.user_id === app.botUserId });
  const sent = await server.api("POST", `/api/v1/messages/${channelId}`, { token: player.token, body: { content: "/roll --sides 20" } });
  expect(sent.status).toBe(201);
  const reply = await answer;
  expect(reply.content).toBe(`<@${player.id}> rolled **20**`);
  expect(reply.embeds).toEqual([
    {
      title: "🎲 20",
      description: `${player.username} rolled a d20`,
      color: "#5865F2",
      components: [{ type: "button", style: "primary", label: "Roll again", custom_id: "reroll:20" }],
    },
  ]);

  // The player presses "Roll again": the bot edits its message with the new roll.
  const updated = waitForEvent(socket, "message:update", { filter: (m) => m.id === reply.id });
  const pressed = await socket.emitWithAck("message:component", { message_id: reply.id, custom_id: "reroll:20" });
  expect(pressed).toEqual({ ok: true, interaction_id: expect.any(String) });
  const edited = await updated;
  expect(edited.content).toBe(`<@${player.id}> rolled again: **2**`);
  expect(edited.embeds[0].title).toBe("🎲 2");
  expect(edited.updated_at).toEqual(expect.any(Number));

  // Positional form, default sides.
  const second = waitForEvent(socket, "message:new", { filter: (m) => m.user_id === app.botUserId });
  expect((await server.api("POST", `/api/v1/messages/${channelId}`, { token: owner.token, body: { content: "/roll" } })).status).toBe(201);
  expect((await second).embeds[0].description).toBe(`${owner.username} rolled a d6`);
  socket.close();
});

test("docs/bots.md shows examples/roll-bot.js exactly", () => {
  const guide = readFileSync(join(ROOT, "docs", "bots.md"), "utf8");
  const code = readFileSync(join(ROOT, "examples", "roll-bot.js"), "utf8");
  expect(guide).toContain("```js\n" + code + "```\n");
});
