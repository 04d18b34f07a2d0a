/**
 * Runs examples/roll-bot.ts (the bot docs/bots.md walks through) against a real server:
 * application and bot set up over REST exactly as the guide does, then the full round trip.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { startRollBot, type RollBot } from "../../examples/roll-bot.ts";
import { sleep, startServer, waitForEvent, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let bot: RollBot | null = null;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  bot?.stop();
  await server.stop();
});

test("the example roll bot answers /roll with an embed and re-rolls on the button", async () => {
  // The guide's setup: an owner, a server, an application, the bot added to the server.
  const owner = await server.register();
  const player = await server.register();
  const created = await server.api("POST", "/api/v1/servers", { token: owner.token, body: { name: "Dice night" } });
  expect(created.status).toBe(201);
  const serverId = created.body.id as string;
  const channels = await server.api("GET", `/api/v1/channels/${serverId}`, { token: owner.token });
  const channelId = channels.body.channels.find((c: { name: string }) => c.name === "general").id as string;
  const invite = await server.api("POST", `/api/v1/servers/${serverId}/invites`, { token: owner.token, body: {} });
  expect(invite.status).toBe(201);
  expect((await server.api("POST", `/api/v1/servers/join/${invite.body.code}`, { token: player.token })).status).toBe(200);

  const app = await server.api("POST", "/api/v1/oauth2/applications", { token: owner.token, body: { name: "Dice", description: "Rolls dice" } });
  expect(app.status).toBe(201);
  const { application, bot_token } = app.body;
  const added = await server.api("POST", `/api/v1/oauth2/applications/${application.id}/servers/${serverId}`, { token: owner.token, body: {} });
  expect(added.status).toBeLessThan(300);

  const rolls = [0.95, 0.05];
  const logged: string[] = [];
  bot = await startRollBot(server.url, bot_token, { random: () => rolls.shift() ?? 0.5, log: (line) => logged.push(line) });

  const commands = await server.api("GET", `/api/v1/oauth2/servers/${serverId}/commands`, { token: player.token });
  expect(commands.status).toBe(200);
  expect(commands.body.map((c: { name: string }) => c.name)).toContain("roll");

  const socket = await server.connect(player.token);
  expect((await socket.emitWithAck("channel:join", channelId)).ok).toBe(true);

  // The player runs the command (named form); the bot answers in the channel.
  const answer = waitForEvent(socket, "message:new", { filter: (m) => m.user_id === application.bot_user_id });
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
  const second = waitForEvent(socket, "message:new", { filter: (m) => m.user_id === application.bot_user_id });
  expect((await server.api("POST", `/api/v1/messages/${channelId}`, { token: player.token, body: { content: "/roll" } })).status).toBe(201);
  expect((await second).embeds[0].description).toBe(`${player.username} rolled a d6`);

  // The bot's own ack of its last answer can come after the answer reached the player (on
  // PostgreSQL it waits for one more write): let it arrive before the bot stops, or the stop
  // rejects it.
  const pendingAcks = () => Object.keys((bot!.socket as unknown as { acks: object }).acks).length;
  for (let i = 0; i < 200 && pendingAcks() > 0; i++) await sleep(10);
  expect(logged.filter((line) => line.includes("failed"))).toEqual([]);
  socket.close();
});

test("docs/bots.md shows examples/roll-bot.ts exactly", () => {
  const root = new URL("../../", import.meta.url);
  const guide = readFileSync(new URL("docs/bots.md", root), "utf8");
  const code = readFileSync(new URL("examples/roll-bot.ts", root), "utf8");
  expect(guide).toContain("```ts\n" + code + "```\n");
});
