import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { LIMITS } from "../../src/domain/shared/limits.ts";
import { addBot, createBot } from "../helpers/bots.ts";
import { registerCommands, say } from "../helpers/bot-platform.ts";
import { community, createVoiceChannel, joinChannel } from "../helpers/community.ts";
import { startServer, waitForEvent, type TestServer } from "../helpers/server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";
const NEEDS_BOT = { ok: false, error: "This event needs a bot token" };
const CHAT_DISABLED = { ok: false, error: "Text chat is disabled for this voice channel" };

describe("bot:send_message", () => {
  test("sends as the bot through the one send path; ack {ok, message_id, message}", async () => {
    const { owner, member, serverId, channelId } = await community(server);
    const bot = await addBot(server, owner, serverId);
    const botSocket = await server.connect(bot.token);
    const memberSocket = await joinChannel(server, member, channelId);
    const arrived = waitForEvent(memberSocket, "message:new");

    const ack = await botSocket.emitWithAck("bot:send_message", {
      channel_id: channelId,
      content: "hello",
      embeds: [{ title: "Hi", color: "#00ff00" }],
    });
    expect(ack).toEqual({ ok: true, message_id: expect.any(String), message: expect.any(Object) });
    expect(ack.message).toMatchObject({
      id: ack.message_id,
      channel_id: channelId,
      user_id: bot.botUserId,
      content: "hello",
      is_bot: 1,
      updated_at: null,
      embeds: [{ title: "Hi", color: "#00FF00" }],
    });
    expect(await arrived).toEqual(ack.message);

    // The embed and content rules are the REST ones.
    expect(await botSocket.emitWithAck("bot:send_message", { channel_id: channelId })).toEqual({
      ok: false,
      error: "A message needs content, embeds or attachments",
    });
    const badEmbed = await botSocket.emitWithAck("bot:send_message", { channel_id: channelId, embeds: [{ title: "x", color: "green" }] });
    expect(badEmbed.ok).toBe(false);
    expect(badEmbed.error).toStartWith("embeds.0.color:");
    expect(await botSocket.emitWithAck("bot:send_message", { channel_id: UNKNOWN, content: "x" })).toEqual({ ok: false, error: "Channel not found" });
    expect(await botSocket.emitWithAck("bot:send_message", { channel_id: "nope", content: "x" })).toEqual({
      ok: false,
      error: "channel_id: must be a channel id",
    });
    expect(await botSocket.emitWithAck("bot:send_message", "nope")).toEqual({
      ok: false,
      error: "payload: must be an object {channel_id, content?, embeds?}",
    });
    botSocket.close();
    memberSocket.close();
  });

  test("voice channels need chat_enabled; a bot outside the server is refused", async () => {
    const { owner, serverId } = await community(server);
    const bot = await addBot(server, owner, serverId);
    const quiet = await createVoiceChannel(server, owner, serverId, { name: "voice-quiet", chat_enabled: false });
    const chatty = await createVoiceChannel(server, owner, serverId, { name: "voice-chat", chat_enabled: true });
    const botSocket = await server.connect(bot.token);
    expect(await botSocket.emitWithAck("bot:send_message", { channel_id: quiet, content: "hi" })).toEqual(CHAT_DISABLED);
    expect((await botSocket.emitWithAck("bot:send_message", { channel_id: chatty, content: "hi" })).ok).toBe(true);

    const stranger = await createBot(server, owner);
    const strangerSocket = await server.connect(stranger.token);
    expect(await strangerSocket.emitWithAck("bot:send_message", { channel_id: chatty, content: "hi" })).toEqual({
      ok: false,
      error: "You are not a member of this server",
    });
    botSocket.close();
    strangerSocket.close();
  });

  test("a user socket cannot emit any bot event", async () => {
    const { member, channelId } = await community(server);
    const socket = await server.connect(member.token);
    expect(await socket.emitWithAck("bot:send_message", { channel_id: channelId, content: "x" })).toEqual(NEEDS_BOT);
    expect(await socket.emitWithAck("bot:edit_message", { message_id: UNKNOWN, content: "x" })).toEqual(NEEDS_BOT);
    expect(await socket.emitWithAck("bot:delete_message", { message_id: UNKNOWN })).toEqual(NEEDS_BOT);
    expect(await socket.emitWithAck("interaction:response", { interaction_id: UNKNOWN, channel_id: channelId, content: "x" })).toEqual(NEEDS_BOT);
    socket.close();
  });
});

describe("bot:edit_message / bot:delete_message", () => {
  test("a bot edits and deletes its own messages only", async () => {
    const { owner, member, serverId, channelId } = await community(server);
    const bot = await addBot(server, owner, serverId);
    const other = await addBot(server, owner, serverId);
    const botSocket = await server.connect(bot.token);
    const otherSocket = await server.connect(other.token);
    const memberSocket = await joinChannel(server, member, channelId);

    const sent = await botSocket.emitWithAck("bot:send_message", { channel_id: channelId, content: "draft" });
    const id = sent.message_id;
    const userMessage = await say(server, member, channelId, "mine");

    const updated = waitForEvent(memberSocket, "message:update");
    const edited = await botSocket.emitWithAck("bot:edit_message", { message_id: id, channel_id: channelId, content: "final", embeds: [{ description: "done" }] });
    expect(edited).toEqual({ ok: true, message_id: id, message: expect.any(Object) });
    expect(edited.message).toMatchObject({ id, content: "final", embeds: [{ description: "done" }], updated_at: expect.any(Number) });
    expect(await updated).toEqual(edited.message);
    // Content alone keeps the embeds.
    const contentOnly = await botSocket.emitWithAck("bot:edit_message", { message_id: id, content: "final!" });
    expect(contentOnly.message).toMatchObject({ content: "final!", embeds: [{ description: "done" }] });

    expect(await botSocket.emitWithAck("bot:edit_message", { message_id: id })).toEqual({ ok: false, error: "A message edit needs content or embeds" });
    expect(await botSocket.emitWithAck("bot:edit_message", { message_id: userMessage.body.id, content: "hijack" })).toEqual({
      ok: false,
      error: "You can only edit your own messages",
    });
    expect(await otherSocket.emitWithAck("bot:edit_message", { message_id: id, content: "hijack" })).toEqual({
      ok: false,
      error: "You can only edit your own messages",
    });
    expect(await botSocket.emitWithAck("bot:edit_message", { message_id: UNKNOWN, content: "x" })).toEqual({ ok: false, error: "Message not found" });
    // channel_id, when given, must be the message's channel.
    const elsewhere = await createVoiceChannel(server, owner, serverId, { name: "voice-chat", chat_enabled: true });
    expect(await botSocket.emitWithAck("bot:edit_message", { message_id: id, channel_id: elsewhere, content: "x" })).toEqual({
      ok: false,
      error: "Message not found",
    });

    expect(await otherSocket.emitWithAck("bot:delete_message", { message_id: id })).toEqual({ ok: false, error: "You can only delete your own messages" });
    expect(await botSocket.emitWithAck("bot:delete_message", { message_id: userMessage.body.id })).toEqual({
      ok: false,
      error: "You can only delete your own messages",
    });
    const deleted = waitForEvent(memberSocket, "message:deleted");
    expect(await botSocket.emitWithAck("bot:delete_message", { message_id: id, channel_id: channelId })).toEqual({ ok: true });
    expect(await deleted).toEqual({ channelId, messageId: id });
    expect(await server.app.store.messages.findById(id)).toBeNull();
    expect(await botSocket.emitWithAck("bot:delete_message", { message_id: id })).toEqual({ ok: false, error: "Message not found" });
    expect(await server.app.store.messages.findById(userMessage.body.id)).not.toBeNull();
    for (const s of [botSocket, otherSocket, memberSocket]) s.close();
  });
});

describe("interaction:response refusals", () => {
  test("unknown interaction, another bot's, wrong channel, chat disabled since", async () => {
    const { owner, member, serverId, channelId } = await community(server);
    const bot = await addBot(server, owner, serverId);
    const other = await addBot(server, owner, serverId);
    await registerCommands(server, bot, [{ name: "ping", description: "Ping" }]);
    const botSocket = await server.connect(bot.token);
    const otherSocket = await server.connect(other.token);

    expect(await botSocket.emitWithAck("interaction:response", { interaction_id: UNKNOWN, channel_id: channelId, content: "x" })).toEqual({
      ok: false,
      error: "Interaction not found",
    });
    expect(await botSocket.emitWithAck("interaction:response", { interaction_id: "nope", channel_id: channelId, content: "x" })).toEqual({
      ok: false,
      error: "interaction_id: must be an interaction id",
    });

    const voice = await createVoiceChannel(server, owner, serverId, { name: "voice-chat", chat_enabled: true });
    const delivered = waitForEvent(botSocket, "interaction:create");
    expect((await say(server, member, voice, "/ping")).status).toBe(201);
    const interaction = await delivered;
    expect(interaction.channel_id).toBe(voice);

    expect(await otherSocket.emitWithAck("interaction:response", { interaction_id: interaction.id, channel_id: voice, content: "x" })).toEqual({
      ok: false,
      error: "This interaction was delivered to another bot",
    });
    expect(await botSocket.emitWithAck("interaction:response", { interaction_id: interaction.id, channel_id: channelId, content: "x" })).toEqual({
      ok: false,
      error: "channel_id: must be the interaction's channel",
    });
    expect(await botSocket.emitWithAck("interaction:response", { interaction_id: interaction.id, channel_id: voice })).toEqual({
      ok: false,
      error: "A message needs content, embeds or attachments",
    });

    // Text chat switched off after the command: the response is refused like any send.
    const off = await server.api("PUT", `/api/v1/channels/${voice}`, { token: owner.token, body: { chat_enabled: false } });
    expect(off.status).toBe(200);
    expect(await botSocket.emitWithAck("interaction:response", { interaction_id: interaction.id, channel_id: voice, content: "pong" })).toEqual(CHAT_DISABLED);
    expect((await server.app.store.interactions.findById(interaction.id))!.responded_at).toBeNull();
    botSocket.close();
    otherSocket.close();
  });

  test("a response without an ack callback still posts", async () => {
    const { owner, member, serverId, channelId } = await community(server);
    const bot = await addBot(server, owner, serverId);
    await registerCommands(server, bot, [{ name: "ping", description: "Ping" }]);
    const botSocket = await server.connect(bot.token);
    const memberSocket = await joinChannel(server, member, channelId);
    const delivered = waitForEvent(botSocket, "interaction:create");
    await say(server, member, channelId, "/ping");
    const interaction = await delivered;
    const arrived = waitForEvent(memberSocket, "message:new", { filter: (m) => m.user_id === bot.botUserId });
    botSocket.emit("interaction:response", { interaction_id: interaction.id, channel_id: channelId, content: "pong" });
    expect((await arrived).content).toBe("pong");
    botSocket.close();
    memberSocket.close();
  });
});

describe("the message content limit on the gateway's bot events", () => {
  test(`bot:send_message, bot:edit_message and interaction:response take ${LIMITS.message.contentLength} characters, not one more; a refusal stores nothing`, async () => {
    const { owner, member, serverId, channelId } = await community(server);
    const bot = await addBot(server, owner, serverId);
    await registerCommands(server, bot, [{ name: "ping", description: "Ping" }]);
    const botSocket = await server.connect(bot.token);
    const max = LIMITS.message.contentLength;
    const tooLong = { ok: false, error: `content: must be at most ${max} characters` };
    const longest = "x".repeat(max);

    expect(await botSocket.emitWithAck("bot:send_message", { channel_id: channelId, content: longest + "y" })).toEqual(tooLong);
    const sent = await botSocket.emitWithAck("bot:send_message", { channel_id: channelId, content: longest });
    expect(sent.ok).toBe(true);
    expect(sent.message.content).toBe(longest);

    expect(await botSocket.emitWithAck("bot:edit_message", { message_id: sent.message_id, content: longest + "y" })).toEqual(tooLong);
    expect((await botSocket.emitWithAck("bot:edit_message", { message_id: sent.message_id, content: "x".repeat(max - 1) })).ok).toBe(true);

    const delivered = waitForEvent(botSocket, "interaction:create");
    expect((await say(server, member, channelId, "/ping")).status).toBe(201);
    const interaction = await delivered;
    const respond = (content: string) => botSocket.emitWithAck("interaction:response", { interaction_id: interaction.id, channel_id: channelId, content });
    expect(await respond(longest + "y")).toEqual(tooLong);
    expect((await server.app.store.interactions.findById(interaction.id))!.responded_at).toBeNull();
    expect((await respond(longest)).ok).toBe(true);

    // The same schema answers REST the same way.
    const rest = await server.api("POST", `/api/v1/oauth2/bot/channels/${channelId}/messages`, { token: bot.token, body: { content: longest + "y" } });
    expect(rest.status).toBe(400);
    expect(rest.body).toEqual({ error: tooLong.error });
    // Stored: the first send, the command line and the response; nothing refused.
    const history = await server.api("GET", `/api/v1/messages/${channelId}`, { token: owner.token });
    expect(history.body.map((m: { content: string }) => m.content.length)).toEqual([max, "/ping".length, max - 1]);
    botSocket.close();
  });
});
