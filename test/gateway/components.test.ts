import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { say } from "../helpers/bot-platform.ts";
import { addBot } from "../helpers/bots.ts";
import { community, createServer, createVoiceChannel, joinChannel } from "../helpers/community.ts";
import { recordEvents, startServer, waitForEvent, type ClientSocket, type TestServer } from "../helpers/server.ts";
import { quietWindow } from "../helpers/wait.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";

const PANEL = [
  {
    title: "Control panel",
    components: [
      { type: "button", label: "Again", custom_id: "again" },
      { type: "button", label: "Off", custom_id: "off", style: "danger", disabled: true },
      { type: "button", label: "Docs", style: "link", url: "https://example.com/docs" },
      {
        type: "string_select",
        custom_id: "flavour",
        max_values: 2,
        options: [
          { label: "Vanilla", value: "vanilla" },
          { label: "Chocolate", value: "chocolate" },
          { label: "Mint", value: "mint" },
        ],
      },
      { type: "channel_select", custom_id: "where", channel_types: ["text"] },
    ],
  },
];

/** A server with the authoring bot, a second bot in the same channel, and the bot's panel message. */
async function panel() {
  const setup = await community(server);
  const { owner, serverId, channelId } = setup;
  const author = await addBot(server, owner, serverId, "Author");
  const neighbour = await addBot(server, owner, serverId, "Neighbour");
  const authorSocket = await joinChannel(server, author, channelId);
  const neighbourSocket = await joinChannel(server, neighbour, channelId);
  const sent = await authorSocket.emitWithAck("bot:send_message", { channel_id: channelId, content: "Pick", embeds: PANEL });
  if (!sent.ok) throw new Error(sent.error);
  return { ...setup, author, neighbour, authorSocket, neighbourSocket, messageId: sent.message_id as string };
}

const closeAll = (...sockets: ClientSocket[]) => sockets.forEach((s) => s.close());

describe("message:component", () => {
  test("a button press reaches only the authoring bot, with every field", async () => {
    const { member, serverId, channelId, author, authorSocket, neighbourSocket, messageId } = await panel();
    const neighbourSaw = recordEvents(neighbourSocket, "interaction:create");
    const presser = await server.connect(member.token);

    const delivered = waitForEvent(authorSocket, "interaction:create");
    const ack = await presser.emitWithAck("message:component", { message_id: messageId, custom_id: "again" });
    expect(ack).toEqual({ ok: true, interaction_id: expect.any(String) });
    const interaction = await delivered;
    expect(interaction).toEqual({
      id: ack.interaction_id,
      type: "message_component",
      component_type: "button",
      custom_id: "again",
      channel_id: channelId,
      server_id: serverId,
      user: { id: member.id, username: member.username },
      message_id: messageId,
    });
    expect(await server.app.store.interactions.findById(ack.interaction_id)).toMatchObject({
      type: "message_component",
      bot_user_id: author.botUserId,
      application_id: author.appId,
      user_id: member.id,
      message_id: messageId,
    });

    // The bot answers the press like a slash command: in the interaction's channel.
    const reply = await authorSocket.emitWithAck("interaction:response", { interaction_id: interaction.id, channel_id: channelId, content: "again!" });
    expect(reply).toMatchObject({ ok: true, message: { content: "again!" } });

    await quietWindow();
    expect(neighbourSaw).toEqual([]);
    closeAll(authorSocket, neighbourSocket, presser);
  });

  test("string_select values must be among its options and within max_values", async () => {
    const { member, authorSocket, neighbourSocket, messageId } = await panel();
    const presser = await server.connect(member.token);
    const delivered = waitForEvent(authorSocket, "interaction:create");
    const ack = await presser.emitWithAck("message:component", { message_id: messageId, custom_id: "flavour", values: ["mint", "vanilla"] });
    expect(ack.ok).toBe(true);
    const interaction = await delivered;
    expect(interaction).toMatchObject({ component_type: "string_select", custom_id: "flavour", values: ["mint", "vanilla"] });
    expect(interaction.selected_channels).toBeUndefined();

    const press = (values: unknown) => presser.emitWithAck("message:component", { message_id: messageId, custom_id: "flavour", values });
    expect(await press(["strawberry"])).toEqual({ ok: false, error: "values.0: must be one of the select's option values" });
    expect(await press(["mint", "vanilla", "chocolate"])).toEqual({ ok: false, error: "values: must contain 1-2 values" });
    expect(await press([])).toEqual({ ok: false, error: "values: must contain 1-2 values" });
    expect(await press("mint")).toEqual({ ok: false, error: "values: must be an array" });
    expect(await press(["mint", "mint"])).toEqual({ ok: false, error: "values: must not contain duplicates" });
    closeAll(authorSocket, neighbourSocket, presser);
  });

  test("channel_select values are resolved to visible channels of the same server", async () => {
    const { owner, member, serverId, channelId, authorSocket, neighbourSocket, messageId } = await panel();
    const presser = await server.connect(member.token);
    const delivered = waitForEvent(authorSocket, "interaction:create");
    const ack = await presser.emitWithAck("message:component", { message_id: messageId, custom_id: "where", values: [channelId] });
    expect(ack.ok).toBe(true);
    const interaction = await delivered;
    expect(interaction).toEqual({
      id: ack.interaction_id,
      type: "message_component",
      component_type: "channel_select",
      custom_id: "where",
      selected_channels: [{ id: channelId, name: "general", type: "text" }],
      channel_id: channelId,
      server_id: serverId,
      user: { id: member.id, username: member.username },
      message_id: messageId,
    });

    const press = (values: unknown) => presser.emitWithAck("message:component", { message_id: messageId, custom_id: "where", values });
    // Another server's channel, an unknown id, a channel hidden from the presser, a wrong type.
    const otherServer = await createServer(server, owner);
    const [foreign] = await server.app.store.channels.listByServer(otherServer);
    expect(await press([foreign!.id])).toEqual({ ok: false, error: "values.0: no such channel in this server" });
    expect(await press([UNKNOWN])).toEqual({ ok: false, error: "values.0: no such channel in this server" });
    expect(await press(["general"])).toEqual({ ok: false, error: "values.0: must be a channel id (UUID)" });

    const hidden = await server.api("POST", `/api/v1/channels/${serverId}`, { token: owner.token, body: { name: "staff", type: "text" } });
    const everyone = (await server.app.store.access.member(serverId, owner.id))!.everyone_id;
    await server.api("PUT", `/api/v1/channels/${hidden.body.id}/permissions/${everyone}`, { token: owner.token, body: { allow: 0, deny: 2048 } });
    expect(await press([hidden.body.id])).toEqual({ ok: false, error: "values.0: no such channel in this server" });
    const voice = await createVoiceChannel(server, owner, serverId, { name: "lounge" });
    expect(await press([voice])).toEqual({ ok: false, error: "values.0: must be a channel of type text" });
    closeAll(authorSocket, neighbourSocket, presser);
  });

  test("unknown custom_id, link and disabled buttons, a user's message, an outsider: refused", async () => {
    const { owner, member, channelId, authorSocket, neighbourSocket, messageId } = await panel();
    const seen = recordEvents(authorSocket, "interaction:create");
    const presser = await server.connect(member.token);
    const press = (payload: unknown) => presser.emitWithAck("message:component", payload);

    expect(await press({ message_id: messageId, custom_id: "nope" })).toEqual({ ok: false, error: "custom_id: no such component on this message" });
    expect(await press({ message_id: messageId, custom_id: "https://example.com/docs" })).toEqual({
      ok: false,
      error: "custom_id: no such component on this message",
    });
    expect(await press({ message_id: messageId, custom_id: "off" })).toEqual({ ok: false, error: "custom_id: this button is disabled" });
    expect(await press({ message_id: messageId, custom_id: "again", values: ["x"] })).toEqual({ ok: false, error: "values: a button takes no values" });
    expect(await press({ message_id: UNKNOWN, custom_id: "again" })).toEqual({ ok: false, error: "Message not found" });
    expect(await press({ message_id: messageId })).toEqual({ ok: false, error: "custom_id: is required" });
    expect(await press("again")).toEqual({ ok: false, error: "payload: must be an object {message_id, custom_id, values?}" });

    // Components on a user's own message go nowhere.
    const mine = await say(server, owner, channelId, "", { embeds: [{ title: "t", components: [{ type: "button", label: "B", custom_id: "b" }] }] });
    expect(mine.status).toBe(201);
    expect(await press({ message_id: mine.body.id, custom_id: "b" })).toEqual({ ok: false, error: "Only components on a bot's messages can be pressed" });

    const outsider = await server.register();
    const outsiderSocket = await server.connect(outsider.token);
    expect(await outsiderSocket.emitWithAck("message:component", { message_id: messageId, custom_id: "again" })).toEqual({
      ok: false,
      error: "You are not a member of this server",
    });

    await quietWindow();
    expect(seen).toEqual([]);
    closeAll(authorSocket, neighbourSocket, presser, outsiderSocket);
  });

  test("a press on a message of a bot that left the server is refused", async () => {
    const { owner, member, serverId, author, authorSocket, neighbourSocket, messageId } = await panel();
    const removed = await server.api("DELETE", `/api/v1/oauth2/applications/${author.appId}/servers/${serverId}`, { token: owner.token });
    expect(removed.status).toBe(200);
    const presser = await server.connect(member.token);
    expect(await presser.emitWithAck("message:component", { message_id: messageId, custom_id: "again" })).toEqual({
      ok: false,
      error: "The bot that sent this message is no longer in this server",
    });
    closeAll(authorSocket, neighbourSocket, presser);
  });
});
