/**
 * A channel that exists but that the caller may not view (VIEW_CHANNEL removed by an override)
 * is answered 403 `Missing permission: VIEW_CHANNEL` on every route and gateway ack that names
 * it, or names a message in it; an id that does not exist stays 404 (SPEC.md "Errors": 403 is
 * "authenticated but forbidden"). Issue 14, point 1. The rule lives in Access.requireChannel.
 *
 * The caller here is a member holding every moderation bit but ADMINISTRATOR (and a bot given
 * MANAGE_MESSAGES), so nothing but the hidden channel can be what refuses them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PERMISSIONS as P } from "../../src/domain/access/permission-bits.ts";
import { registerCommands, say } from "../helpers/bot-platform.ts";
import { addBot } from "../helpers/bots.ts";
import { community } from "../helpers/community.ts";
import { PNG_1X1, fileForm } from "../helpers/images.ts";
import { startServer, waitForEvent, type ClientSocket, type TestServer, type TestUser } from "../helpers/server.ts";

const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";
const HIDDEN = { error: "Missing permission: VIEW_CHANNEL" };
const BOT = "/api/v1/oauth2/bot";
const MODERATION = P.MANAGE_CHANNELS | P.MANAGE_ROLES | P.MANAGE_MESSAGES | P.MUTE_MEMBERS | P.DEAFEN_MEMBERS | P.MOVE_MEMBERS | P.MANAGE_REACTIONS;

let server: TestServer;
let member: TestUser;
let outsider: TestUser;
let botToken: string;
let memberSocket: ClientSocket;
let botSocket: ClientSocket;
/** The ids a request names: the hidden ones, or ones that do not exist. */
interface Ids {
  channel: string;
  voice: string;
  message: string;
  botMessage: string;
  webhook: string;
  interaction: string;
  role: string;
  user: string;
}
let hidden: Ids;
let missing: Ids;

beforeAll(async () => {
  server = await startServer();
  const c = await community(server);
  ({ member, outsider } = c);
  const { owner, serverId, everyone } = c;
  const api = (method: string, path: string, body?: unknown, token = owner.token) => server.api(method, path, { token, body });

  const { role } = (await server.app.store.roles.create({ serverId, name: "mods", color: "#000000", permissions: MODERATION, hoist: false }, 250))!;
  await server.app.store.roles.assign(serverId, member.id, role.id);
  const bot = await addBot(server, owner, serverId);
  botToken = bot.token;
  await api("POST", `/api/v1/oauth2/applications/${bot.appId}/servers/${serverId}`, { permissions: 8895488 | P.MANAGE_MESSAGES });
  await registerCommands(server, bot, [{ name: "ping", description: "Ping" }]);

  const secret = (await api("POST", `/api/v1/channels/${serverId}`, { name: "secret", type: "text" })).body.id as string;
  const voice = (await api("POST", `/api/v1/channels/${serverId}`, { name: "stage", type: "voice", is_meeting: true })).body.id as string;
  const message = (await say(server, owner, secret, "plans")).body.id as string;
  botSocket = await server.connect(bot.token);
  const sent = await botSocket.emitWithAck("bot:send_message", {
    channel_id: secret,
    content: "panel",
    embeds: [{ title: "Panel", components: [{ type: "button", label: "Go", custom_id: "go" }] }],
  });
  if (!sent.ok) throw new Error(sent.error);
  const delivered = waitForEvent(botSocket, "interaction:create");
  expect((await say(server, owner, secret, "/ping")).status).toBe(201);
  const interaction = (await delivered).id as string;
  const webhook = (await api("POST", `/api/v1/channels/${secret}/webhooks`, { name: "hook" })).body.id as string;
  for (const id of [secret, voice]) {
    expect((await api("PUT", `/api/v1/channels/${id}/permissions/${everyone}`, { allow: 0, deny: P.VIEW_CHANNEL })).status).toBe(200);
  }
  memberSocket = await server.connect(member.token);
  hidden = { channel: secret, voice, message, botMessage: sent.message_id, webhook, interaction, role: everyone, user: owner.id };
  missing = { channel: UNKNOWN, voice: UNKNOWN, message: UNKNOWN, botMessage: UNKNOWN, webhook: UNKNOWN, interaction: UNKNOWN, role: everyone, user: owner.id };
});
afterAll(async () => {
  memberSocket.close();
  botSocket.close();
  await server.stop();
});

interface RestCase {
  method: string;
  path: (ids: Ids) => string;
  body?: (ids: Ids) => unknown;
  multipart?: () => FormData;
  as?: "member" | "bot";
  /** What a missing id answers: `<what> not found`. */
  missing: string;
}

const REST: Record<string, RestCase> = {
  "channel get": { method: "GET", path: (i) => `/api/v1/channels/id/${i.channel}`, missing: "Channel" },
  "channel update": { method: "PUT", path: (i) => `/api/v1/channels/${i.channel}`, body: () => ({ topic: "x" }), missing: "Channel" },
  "channel duplicate": { method: "POST", path: (i) => `/api/v1/channels/${i.channel}/duplicate`, missing: "Channel" },
  "own permissions": { method: "GET", path: (i) => `/api/v1/channels/${i.channel}/permissions/me`, missing: "Channel" },
  "overrides list": { method: "GET", path: (i) => `/api/v1/channels/${i.channel}/permissions`, missing: "Channel" },
  "override set": { method: "PUT", path: (i) => `/api/v1/channels/${i.channel}/permissions/${i.role}`, body: () => ({ allow: 0, deny: 0 }), missing: "Channel" },
  "override reset": { method: "DELETE", path: (i) => `/api/v1/channels/${i.channel}/permissions/${i.role}`, missing: "Channel" },
  "webhooks list": { method: "GET", path: (i) => `/api/v1/channels/${i.channel}/webhooks`, missing: "Channel" },
  "webhook create": { method: "POST", path: (i) => `/api/v1/channels/${i.channel}/webhooks`, body: () => ({ name: "mine" }), missing: "Channel" },
  "webhooks list (alias)": { method: "GET", path: (i) => `/api/webhooks/channel/${i.channel}`, missing: "Channel" },
  "webhook create (alias)": { method: "POST", path: (i) => `/api/webhooks/channel/${i.channel}`, body: () => ({ name: "mine" }), missing: "Channel" },
  "webhook update": { method: "PATCH", path: (i) => `/api/webhooks/${i.webhook}`, body: () => ({ name: "renamed" }), missing: "Webhook" },
  "webhook token": { method: "POST", path: (i) => `/api/webhooks/${i.webhook}/token`, missing: "Webhook" },
  "messages list": { method: "GET", path: (i) => `/api/v1/messages/${i.channel}`, missing: "Channel" },
  "message send": { method: "POST", path: (i) => `/api/v1/messages/${i.channel}`, body: () => ({ content: "hi" }), missing: "Channel" },
  "message get": { method: "GET", path: (i) => `/api/v1/messages/id/${i.message}`, missing: "Message" },
  "message edit": { method: "PUT", path: (i) => `/api/v1/messages/${i.message}`, body: () => ({ content: "edited" }), missing: "Message" },
  "read marker": { method: "POST", path: (i) => `/api/v1/messages/${i.channel}/read`, body: () => ({}), missing: "Channel" },
  search: { method: "GET", path: (i) => `/api/v1/messages/${i.channel}/search?q=plans`, missing: "Channel" },
  upload: { method: "POST", path: (i) => `/api/v1/messages/${i.channel}/upload`, multipart: () => fileForm("files", PNG_1X1, "a.png"), missing: "Channel" },
  gif: { method: "POST", path: (i) => `/api/v1/messages/${i.channel}/gif`, body: () => ({ url: "https://example.test/a.gif" }), missing: "Channel" },
  "reaction add": { method: "PUT", path: (i) => `/api/v1/messages/${i.channel}/reactions/${i.message}`, body: () => ({ emoji: "👍" }), missing: "Channel" },
  "reactions list": { method: "GET", path: (i) => `/api/v1/messages/${i.channel}/reactions/${i.message}`, missing: "Channel" },
  "reaction remove": { method: "DELETE", path: (i) => `/api/v1/messages/${i.channel}/reactions/${i.message}/${encodeURIComponent("👍")}`, missing: "Channel" },
  "pins list": { method: "GET", path: (i) => `/api/v1/messages/${i.channel}/pins`, missing: "Channel" },
  pin: { method: "POST", path: (i) => `/api/v1/messages/${i.channel}/pins/${i.message}`, missing: "Channel" },
  unpin: { method: "DELETE", path: (i) => `/api/v1/messages/${i.channel}/pins/${i.message}`, missing: "Channel" },
  "bot: message send": { as: "bot", method: "POST", path: (i) => `${BOT}/channels/${i.channel}/messages`, body: () => ({ content: "hi" }), missing: "Channel" },
  "bot: messages list": { as: "bot", method: "GET", path: (i) => `${BOT}/channels/${i.channel}/messages`, missing: "Channel" },
  "bot: bulk delete": { as: "bot", method: "POST", path: (i) => `${BOT}/channels/${i.channel}/messages/bulk-delete`, body: (i) => ({ message_ids: [i.message] }), missing: "Channel" },
  "bot: message edit": { as: "bot", method: "PUT", path: (i) => `${BOT}/channels/${i.channel}/messages/${i.botMessage}`, body: () => ({ content: "x" }), missing: "Message" },
  // Last: were they not refused, they would change what the cases above rely on.
  "bot: message delete": { as: "bot", method: "DELETE", path: (i) => `${BOT}/channels/${i.channel}/messages/${i.botMessage}`, missing: "Message" },
  "message delete": { method: "DELETE", path: (i) => `/api/v1/messages/${i.message}`, missing: "Message" },
  "webhook delete": { method: "DELETE", path: (i) => `/api/webhooks/${i.webhook}`, missing: "Webhook" },
  "channel delete": { method: "DELETE", path: (i) => `/api/v1/channels/${i.channel}`, missing: "Channel" },
};

function request(route: RestCase, ids: Ids, token = route.as === "bot" ? botToken : member.token) {
  if (route.multipart) return server.api(route.method, route.path(ids), { token, raw: route.multipart() });
  return server.api(route.method, route.path(ids), { token, body: route.body?.(ids) });
}

describe("REST: a hidden channel is 403, a missing one 404", () => {
  test.each(Object.keys(REST))("%s", async (name) => {
    const route = REST[name]!;
    const refused = await request(route, hidden);
    expect({ status: refused.status, body: refused.body }).toEqual({ status: 403, body: HIDDEN });
    const unknown = await request(route, missing);
    expect({ status: unknown.status, body: unknown.body }).toEqual({ status: 404, body: { error: `${route.missing} not found` } });
  });

  test("a non-member gets the 403 of a non-member, as before: nothing more is learnt of a hidden channel", async () => {
    for (const name of ["channel get", "messages list", "message send", "message get"]) {
      const answer = await request(REST[name]!, hidden, outsider.token);
      expect({ name, status: answer.status, body: answer.body }).toEqual({ name, status: 403, body: { error: "You are not a member of this server" } });
    }
  });
});

interface GatewayCase {
  as?: "member" | "bot";
  event: string;
  payload: (ids: Ids) => unknown;
  missing: string;
}

const GATEWAY: Record<string, GatewayCase> = {
  "channel:join": { event: "channel:join", payload: (i) => i.channel, missing: "Channel" },
  "typing:start": { event: "typing:start", payload: (i) => i.channel, missing: "Channel" },
  "typing:stop": { event: "typing:stop", payload: (i) => i.channel, missing: "Channel" },
  "message:component": { event: "message:component", payload: (i) => ({ message_id: i.botMessage, custom_id: "go" }), missing: "Message" },
  "voice:join": { event: "voice:join", payload: (i) => ({ channelId: i.voice }), missing: "Channel" },
  "voice:lower-hand": { event: "voice:lower-hand", payload: (i) => ({ channelId: i.voice }), missing: "Channel" },
  "voice:set-meeting-role": { event: "voice:set-meeting-role", payload: (i) => ({ channelId: i.voice, userId: i.user, role: "speaker" }), missing: "Channel" },
  "bot:voice-participants": { as: "bot", event: "bot:voice-participants", payload: (i) => ({ channelId: i.voice }), missing: "Channel" },
  "bot:send_message": { as: "bot", event: "bot:send_message", payload: (i) => ({ channel_id: i.channel, content: "hi" }), missing: "Channel" },
  "interaction:response": { as: "bot", event: "interaction:response", payload: (i) => ({ interaction_id: i.interaction, channel_id: i.channel, content: "pong" }), missing: "Interaction" },
  "bot:edit_message": { as: "bot", event: "bot:edit_message", payload: (i) => ({ message_id: i.botMessage, channel_id: i.channel, content: "x" }), missing: "Message" },
  "bot:delete_message": { as: "bot", event: "bot:delete_message", payload: (i) => ({ message_id: i.botMessage, channel_id: i.channel }), missing: "Message" },
};

describe("gateway: a hidden channel's ack is the 403's message, a missing one's the 404's", () => {
  test.each(Object.keys(GATEWAY))("%s", async (name) => {
    const entry = GATEWAY[name]!;
    const socket = entry.as === "bot" ? botSocket : memberSocket;
    expect(await socket.emitWithAck(entry.event, entry.payload(hidden))).toEqual({ ok: false, ...HIDDEN });
    expect(await socket.emitWithAck(entry.event, entry.payload(missing))).toEqual({ ok: false, error: `${entry.missing} not found` });
  });
});
