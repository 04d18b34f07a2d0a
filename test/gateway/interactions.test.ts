import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { history, registerCommands, say } from "../helpers/bot-platform.ts";
import { addBot } from "../helpers/bots.ts";
import { community, joinChannel } from "../helpers/community.ts";
import { io as connectClient } from "socket.io-client";
import { recordEvents, startServer, waitForEvent, type TestServer } from "../helpers/server.ts";
import { quietWindow } from "../helpers/wait.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const USE_APPLICATION_COMMANDS = 8388608;
const ROLL = { name: "roll", description: "Roll a die", options: [{ name: "sides", description: "How many sides", type: 4, required: true }] };

describe("slash commands: the round trip", () => {
  test("a user's /roll reaches only its bot with every field; the bot's answer lands in the channel", async () => {
    const { owner, member, serverId, channelId } = await community(server);
    const bot = await addBot(server, owner, serverId, "Dice");
    const bystander = await addBot(server, owner, serverId, "Bystander");
    await registerCommands(server, bot, [ROLL]);

    const botSocket = await server.connect(bot.token);
    const bystanderSocket = await joinChannel(server, bystander, channelId);
    const memberSocket = await joinChannel(server, member, channelId);
    const bystanderSaw = recordEvents(bystanderSocket, "interaction:create");
    const memberSaw = recordEvents(memberSocket, "interaction:create");

    const delivered = waitForEvent(botSocket, "interaction:create");
    const commandLine = waitForEvent(memberSocket, "message:new");
    const sent = await say(server, member, channelId, "/roll 20");
    expect(sent.status).toBe(201);
    expect(sent.body.content).toBe("/roll 20");
    expect((await commandLine).id).toBe(sent.body.id);

    const interaction = await delivered;
    expect(interaction).toEqual({
      id: expect.any(String),
      type: "slash_command",
      command: "roll",
      args: "20",
      options: { sides: 20 },
      channel_id: channelId,
      server_id: serverId,
      message_id: sent.body.id,
      user: { id: member.id, username: member.username },
    });
    const row = await server.app.store.interactions.findById(interaction.id);
    expect(row).toMatchObject({ bot_user_id: bot.botUserId, application_id: bot.appId, type: "slash_command", user_id: member.id, responded_at: null });

    const answer = waitForEvent(memberSocket, "message:new", { filter: (m) => m.user_id === bot.botUserId });
    const embeds = [{ title: "🎲 17", components: [{ type: "button", label: "Again", custom_id: "again" }] }];
    const ack = await botSocket.emitWithAck("interaction:response", { interaction_id: interaction.id, channel_id: channelId, content: "You rolled 17", embeds });
    expect(ack).toEqual({ ok: true, message_id: expect.any(String), message: expect.objectContaining({ content: "You rolled 17", is_bot: 1, user_id: bot.botUserId }) });
    expect(ack.message.id).toBe(ack.message_id);
    expect(ack.message.embeds).toEqual([{ title: "🎲 17", components: [{ type: "button", label: "Again", style: "primary", custom_id: "again" }] }]);
    expect((await answer).id).toBe(ack.message_id);
    expect((await server.app.store.interactions.findById(interaction.id))!.responded_at).toEqual(expect.any(Number));

    // A follow-up is allowed; the first response time stays.
    const first = (await server.app.store.interactions.findById(interaction.id))!.responded_at;
    expect((await botSocket.emitWithAck("interaction:response", { interaction_id: interaction.id, channel_id: channelId, content: "again" })).ok).toBe(true);
    expect((await server.app.store.interactions.findById(interaction.id))!.responded_at).toBe(first);

    await quietWindow(); // other sockets: nothing later on them to wait for
    expect(bystanderSaw).toEqual([]);
    expect(memberSaw).toEqual([]);
    for (const s of [botSocket, bystanderSocket, memberSocket]) s.close();
  });

  test("a command used while the bot is offline is stored but never delivered later", async () => {
    const { owner, member, serverId, channelId } = await community(server);
    const bot = await addBot(server, owner, serverId);
    await registerCommands(server, bot, [{ name: "ping", description: "Ping" }]);
    const missed = await say(server, member, channelId, "/ping");
    expect(missed.status).toBe(201);
    expect((await history(server, member.token, channelId)).map((m) => m.id)).toContain(missed.body.id);
    // The bot connects afterwards (listening before the handshake, so nothing sent at connect
    // could slip past): what it receives is the next command only, not a replay.
    const botSocket = connectClient(server.url, { auth: { token: bot.token }, transports: ["websocket"], reconnection: false, forceNew: true, autoConnect: false });
    const seen = recordEvents(botSocket, "interaction:create");
    const connected = waitForEvent(botSocket, "connect");
    botSocket.connect();
    await connected;
    const next = waitForEvent(botSocket, "interaction:create");
    const later = await say(server, member, channelId, "/ping");
    expect((await next).message_id).toBe(later.body.id);
    // In order on one socket: a replay would have come before the next command.
    expect(seen.map((i) => i.message_id)).toEqual([later.body.id]);
    botSocket.close();
  });

  test("a command without options gets the raw text in options.value", async () => {
    const { owner, member, serverId, channelId } = await community(server);
    const bot = await addBot(server, owner, serverId);
    await registerCommands(server, bot, [{ name: "echo", description: "Echo" }]);
    const botSocket = await server.connect(bot.token);
    const delivered = waitForEvent(botSocket, "interaction:create");
    expect((await say(server, member, channelId, "/echo hello there")).status).toBe(201);
    const interaction = await delivered;
    expect(interaction.command).toBe("echo");
    expect(interaction.options).toEqual({ value: "hello there" });
    botSocket.close();
  });

  test("no matching command, or a bot sender, is an ordinary message", async () => {
    const { owner, member, serverId, channelId } = await community(server);
    const bot = await addBot(server, owner, serverId);
    await registerCommands(server, bot, [ROLL]);
    const botSocket = await server.connect(bot.token);
    const seen = recordEvents(botSocket, "interaction:create");

    const plain = await say(server, member, channelId, "/shrug whatever");
    expect(plain.status).toBe(201);
    expect(plain.body.content).toBe("/shrug whatever");
    // Not a command invocation: the name must start the message.
    expect((await say(server, member, channelId, "roll /roll 3")).status).toBe(201);
    // A bot's message starting with /roll is a chat line, even with bad arguments.
    const fromBot = await botSocket.emitWithAck("bot:send_message", { channel_id: channelId, content: "/roll banana" });
    expect(fromBot).toMatchObject({ ok: true, message: { content: "/roll banana" } });

    await quietWindow();
    expect(seen).toEqual([]);
    botSocket.close();
  });

  test("a command of a bot in another server does not trigger here", async () => {
    const { owner, member, channelId } = await community(server);
    const elsewhere = await community(server);
    const bot = await addBot(server, elsewhere.owner, elsewhere.serverId);
    await registerCommands(server, bot, [ROLL]);
    const botSocket = await server.connect(bot.token);
    const seen = recordEvents(botSocket, "interaction:create");
    const res = await say(server, member, channelId, "/roll banana");
    expect(res.status).toBe(201);
    await quietWindow();
    expect(seen).toEqual([]);
    expect(owner.id).toBeString();
    botSocket.close();
  });
});

describe("slash commands: routing between bots sharing a name", () => {
  test("the --__bot flag picks the bot; without it 400; it never reaches history, args or options", async () => {
    const { owner, member, serverId, channelId } = await community(server);
    const first = await addBot(server, owner, serverId, "First");
    const second = await addBot(server, owner, serverId, "Second");
    await registerCommands(server, first, [ROLL]);
    await registerCommands(server, second, [ROLL]);
    const firstSocket = await server.connect(first.token);
    const secondSocket = await server.connect(second.token);
    const firstSaw = recordEvents(firstSocket, "interaction:create");
    const before = (await history(server, member.token, channelId)).length;

    const ambiguous = await say(server, member, channelId, "/roll 6");
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.body.error).toStartWith("Several bots have /roll: add --__bot <@botId>");
    expect(ambiguous.body.error).toContain(`<@${first.botUserId}>`);
    expect(ambiguous.body.error).toContain(`<@${second.botUserId}>`);

    const unknownBot = "01a20805-7d72-77cc-b541-8c28e661b52b";
    const wrong = await say(server, member, channelId, `/roll 6 --__bot <@${unknownBot}>`);
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toContain(`<@${unknownBot}>`);
    expect(wrong.body.error).toContain(`<@${second.botUserId}>`);
    expect((await history(server, member.token, channelId)).length).toBe(before);

    const delivered = waitForEvent(secondSocket, "interaction:create");
    const routed = await say(server, member, channelId, `/roll 6 --__bot <@${second.botUserId}>`);
    expect(routed.status).toBe(201);
    expect(routed.body.content).not.toContain("__bot");
    expect(routed.body.content).not.toContain(second.botUserId);
    const interaction = await delivered;
    expect(interaction).toMatchObject({ command: "roll", args: "6", options: { sides: 6 }, message_id: routed.body.id });
    expect(JSON.stringify(interaction)).not.toContain("__bot");

    // The flag may come first too.
    const leading = waitForEvent(firstSocket, "interaction:create");
    const flagFirst = await say(server, member, channelId, `/roll --__bot <@${first.botUserId}> 12`);
    expect(flagFirst.status).toBe(201);
    expect((await leading).options).toEqual({ sides: 12 });

    const stored = await history(server, member.token, channelId);
    expect(stored.length).toBe(before + 2);
    for (const message of stored) expect(message.content).not.toContain("__bot");
    expect(firstSaw.length).toBe(1);
    firstSocket.close();
    secondSocket.close();
  });
});

describe("slash commands: refusals store nothing", () => {
  test("USE_APPLICATION_COMMANDS denied on the channel: 403; the owner still may", async () => {
    const { owner, member, serverId, channelId } = await community(server);
    const bot = await addBot(server, owner, serverId);
    await registerCommands(server, bot, [ROLL]);
    const everyone = (await server.app.store.access.member(serverId, owner.id))!.everyone_id;
    const denied = await server.api("PUT", `/api/v1/channels/${channelId}/permissions/${everyone}`, {
      token: owner.token,
      body: { allow: 0, deny: USE_APPLICATION_COMMANDS },
    });
    expect(denied.status).toBe(200);
    const before = (await history(server, owner.token, channelId)).length;

    const botSocket = await server.connect(bot.token);
    const seen = recordEvents(botSocket, "interaction:create");
    const refused = await say(server, member, channelId, "/roll 6");
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe("Missing permission: USE_APPLICATION_COMMANDS");
    // Ordinary chat still works, including a "/" line that names no command.
    expect((await say(server, member, channelId, "/nothing here")).status).toBe(201);
    expect((await history(server, owner.token, channelId)).length).toBe(before + 1);

    const delivered = waitForEvent(botSocket, "interaction:create");
    expect((await say(server, owner, channelId, "/roll 6")).status).toBe(201);
    expect((await delivered).user.id).toBe(owner.id);
    expect(seen.length).toBe(1);
    botSocket.close();
  });

  test("invalid arguments: 400 with the parser's error; no message, no interaction", async () => {
    const { owner, member, serverId, channelId } = await community(server);
    const bot = await addBot(server, owner, serverId);
    await registerCommands(server, bot, [ROLL]);
    const botSocket = await server.connect(bot.token);
    const memberSocket = await joinChannel(server, member, channelId);
    const seen = recordEvents(botSocket, "interaction:create");
    const messages = recordEvents(memberSocket, "message:new");
    const before = (await history(server, member.token, channelId)).length;

    for (const content of ["/roll banana", "/roll"]) {
      const res = await say(server, member, channelId, content);
      expect(res.status).toBe(400);
      expect(res.body.error).toBeString();
      expect(res.body.error.length).toBeGreaterThan(0);
    }
    await quietWindow();
    expect(seen).toEqual([]);
    expect(messages).toEqual([]);
    expect((await history(server, member.token, channelId)).length).toBe(before);
    botSocket.close();
    memberSocket.close();
  });
});
