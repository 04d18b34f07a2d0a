import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PERMISSIONS as P } from "../../src/domain/access/permission-bits.ts";
import { createBot, type TestBot } from "../helpers/bots.ts";
import { auditLog, community, createServer } from "../helpers/community.ts";
import { recordEvents, startServer, waitForEvent, type ClientSocket, type TestServer, type TestUser, expectError } from "../helpers/server.ts";
import { quietWindow, until } from "../helpers/wait.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const BOT = "/api/v1/oauth2/bot";
const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";
const MESSAGE_KEYS = ["attachments", "avatar", "channel_id", "content", "created_at", "embeds", "id", "is_bot", "reply_to", "updated_at", "user_id", "username"];
const DM_KEYS = [...MESSAGE_KEYS, "conversation_id"].sort();
const NOT_A_MEMBER = { error: "You are not a member of this server" };
const NEEDS_BOT = { error: "This route needs a bot token" };

/** A Bot REST call with the bot's token (or a user's, or none). */
const call = (method: string, path: string, token: string | null, body?: unknown) => server.api(method, `${BOT}${path}`, { token, body });
const shared = (method: string, path: string, user: TestUser, body?: unknown) => server.api(method, `/api/v1${path}`, { token: user.token, body });


/**
 * The owner adds the bot through the authorize route, its managed role holding `permissions`;
 * authorizing again sets the role's bits. Answers the managed role's id.
 */
async function authorizeBot(owner: TestUser, serverId: string, bot: TestBot, permissions: number): Promise<string> {
  const res = await server.api("POST", `/api/v1/oauth2/applications/${bot.appId}/servers/${serverId}`, { token: owner.token, body: { permissions } });
  if (res.status >= 300) throw new Error(`add bot failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.role.id;
}

/**
 * The shared community, with the bot added through the authorize route (its managed role
 * holding `bits`), a custom role "helper" below the bot's role, and another server of the
 * owner's that the bot is not in.
 */
async function botCommunity(bits = 0) {
  const c = await community(server);
  const { owner, serverId } = c;
  const helper = await shared("POST", `/roles/${serverId}`, owner, { name: "helper" });
  const bot = await createBot(server, owner);
  const botRoleId = await authorizeBot(owner, serverId, bot, bits);
  const setBotBits = (permissions: number) => authorizeBot(owner, serverId, bot, permissions);
  const otherServerId = await createServer(server, owner, "Elsewhere");
  const [otherChannel] = await server.app.store.channels.listByServer(otherServerId);
  return { ...c, bot, botRoleId, setBotBits, helperRoleId: helper.body.id as string, otherServerId, otherChannelId: otherChannel!.id };
}

/** A socket of `user` in the channel's room and its server's room. */
async function watch(user: TestUser, serverId: string, channelId?: string): Promise<ClientSocket> {
  const socket = await server.connect(user.token);
  expect(await socket.emitWithAck("server:join", serverId)).toMatchObject({ ok: true });
  if (channelId) expect(await socket.emitWithAck("channel:join", channelId)).toMatchObject({ ok: true });
  return socket;
}

async function botSend(bot: TestBot, channelId: string, content: string) {
  const res = await call("POST", `/channels/${channelId}/messages`, bot.token, { content });
  if (res.status !== 201) throw new Error(`bot send failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

async function userSend(user: TestUser, channelId: string, content: string) {
  const res = await shared("POST", `/messages/${channelId}`, user, { content });
  if (res.status !== 201) throw new Error(`user send failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}


describe("every Bot REST route: 401 without a token, 403 with a user token", () => {
  test("the whole table", async () => {
    const c = await botCommunity();
    const m = await botSend(c.bot, c.channelId, "mine");
    const routes: [string, string, unknown?][] = [
      ["POST", `/channels/${c.channelId}/messages`, { content: "x" }],
      ["PUT", `/channels/${c.channelId}/messages/${m.id}`, { content: "y" }],
      ["DELETE", `/channels/${c.channelId}/messages/${m.id}`],
      ["POST", `/channels/${c.channelId}/messages/bulk-delete`, { message_ids: [m.id] }],
      ["GET", `/channels/${c.channelId}/messages`],
      ["POST", `/dm/${c.member.id}`, { content: "x" }],
      ["GET", `/servers/${c.serverId}`],
      ["GET", `/servers/${c.serverId}/channels`],
      ["GET", `/servers/${c.serverId}/members`],
      ["GET", `/servers/${c.serverId}/members/${c.member.id}`],
      ["DELETE", `/servers/${c.serverId}/members/${c.member.id}`],
      ["POST", `/servers/${c.serverId}/bans`, { user_id: c.member.id }],
      ["DELETE", `/servers/${c.serverId}/bans/${c.member.id}`],
      ["GET", `/servers/${c.serverId}/roles`],
      ["POST", `/servers/${c.serverId}/members/${c.member.id}/roles/${c.helperRoleId}`],
      ["DELETE", `/servers/${c.serverId}/members/${c.member.id}/roles/${c.helperRoleId}`],
      ["POST", `/servers/${c.serverId}/invites`, {}],
      ["GET", `/servers/${c.serverId}/invites`],
      ["DELETE", `/servers/${c.serverId}/invites/${UNKNOWN}`],
      ["PUT", `/presence`, { status: "online", activity: null }],
      ["GET", `/users/${c.member.id}`],
    ];
    for (const [method, path, body] of routes) {
      const anonymous = await call(method, path, null, body);
      expect([method, path, anonymous.status]).toEqual([method, path, 401]);
      expect(Object.keys(anonymous.body)).toEqual(["error"]);
      const bad = await call(method, path, "not-a-token", body);
      expect([method, path, bad.status]).toEqual([method, path, 401]);
      const asUser = await call(method, path, c.owner.token, body);
      expect([method, path, asUser.status, asUser.body]).toEqual([method, path, 403, NEEDS_BOT]);
    }
    // Nothing happened on the way: the bot's message is still there, the member still in.
    expect(await server.app.store.messages.findById(m.id)).not.toBeNull();
    expect(await server.app.store.members.find(c.serverId, c.member.id)).not.toBeNull();
  });

  test("a server (or its channels) the bot is not in: 403", async () => {
    const c = await botCommunity(P.ADMINISTRATOR);
    const theirs = await userSend(c.owner, c.otherChannelId, "not for bots");
    const routes: [string, string, unknown?][] = [
      ["POST", `/channels/${c.otherChannelId}/messages`, { content: "x" }],
      ["PUT", `/channels/${c.otherChannelId}/messages/${theirs.id}`, { content: "y" }],
      ["DELETE", `/channels/${c.otherChannelId}/messages/${theirs.id}`],
      ["POST", `/channels/${c.otherChannelId}/messages/bulk-delete`, { message_ids: [theirs.id] }],
      ["GET", `/channels/${c.otherChannelId}/messages`],
      ["GET", `/servers/${c.otherServerId}`],
      ["GET", `/servers/${c.otherServerId}/channels`],
      ["GET", `/servers/${c.otherServerId}/members`],
      ["GET", `/servers/${c.otherServerId}/members/${c.owner.id}`],
      ["DELETE", `/servers/${c.otherServerId}/members/${c.owner.id}`],
      ["POST", `/servers/${c.otherServerId}/bans`, { user_id: c.member.id }],
      ["DELETE", `/servers/${c.otherServerId}/bans/${c.member.id}`],
      ["GET", `/servers/${c.otherServerId}/roles`],
      ["POST", `/servers/${c.otherServerId}/members/${c.owner.id}/roles/${c.helperRoleId}`],
      ["DELETE", `/servers/${c.otherServerId}/members/${c.owner.id}/roles/${c.helperRoleId}`],
      ["POST", `/servers/${c.otherServerId}/invites`, {}],
      ["GET", `/servers/${c.otherServerId}/invites`],
      ["DELETE", `/servers/${c.otherServerId}/invites/${UNKNOWN}`],
    ];
    for (const [method, path, body] of routes) {
      const res = await call(method, path, c.bot.token, body);
      expect([method, path, res.status, res.body]).toEqual([method, path, 403, NOT_A_MEMBER]);
    }
    expect(await server.app.store.messages.findById(theirs.id)).not.toBeNull();
  });

  test("unknown and malformed ids: 404", async () => {
    const c = await botCommunity(P.ADMINISTRATOR);
    for (const id of [UNKNOWN, "nope"]) {
      const routes: [string, string, unknown?][] = [
        ["POST", `/channels/${id}/messages`, { content: "x" }],
        ["GET", `/channels/${id}/messages`],
        ["POST", `/channels/${id}/messages/bulk-delete`, { message_ids: [UNKNOWN] }],
        ["PUT", `/channels/${c.channelId}/messages/${id}`, { content: "y" }],
        ["DELETE", `/channels/${c.channelId}/messages/${id}`],
        ["POST", `/dm/${id}`, { content: "x" }],
        ["GET", `/servers/${id}`],
        ["GET", `/servers/${id}/channels`],
        ["GET", `/servers/${id}/members`],
        ["GET", `/servers/${c.serverId}/members/${id}`],
        ["DELETE", `/servers/${c.serverId}/members/${id}`],
        ["DELETE", `/servers/${c.serverId}/bans/${id}`],
        ["POST", `/servers/${c.serverId}/members/${id}/roles/${c.helperRoleId}`],
        ["POST", `/servers/${c.serverId}/members/${c.member.id}/roles/${id}`],
        ["DELETE", `/servers/${c.serverId}/members/${c.member.id}/roles/${id}`],
        ["DELETE", `/servers/${c.serverId}/invites/${id}`],
        ["GET", `/users/${id}`],
      ];
      for (const [method, path, body] of routes) {
        const res = await call(method, path, c.bot.token, body);
        expect([method, path, res.status]).toEqual([method, path, 404]);
        expect(Object.keys(res.body)).toEqual(["error"]);
      }
    }
    // Banning an unknown user is 404 too; a malformed id is a 400 naming the field.
    expectError(await call("POST", `/servers/${c.serverId}/bans`, c.bot.token, { user_id: UNKNOWN }), 404);
    expectError(await call("POST", `/servers/${c.serverId}/bans`, c.bot.token, { user_id: "nope" }), 400, "user_id: must be a user id");
  });
});

describe("POST /channels/:channelId/messages", () => {
  test("201 with the spec's message; message:new reaches the channel room with the same message", async () => {
    const c = await botCommunity();
    const socket = await watch(c.owner, c.serverId, c.channelId);
    const heard = waitForEvent(socket, "message:new");
    const res = await call("POST", `/channels/${c.channelId}/messages`, c.bot.token, { content: "beep" });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(MESSAGE_KEYS);
    expect(res.body).toMatchObject({
      channel_id: c.channelId, user_id: c.bot.botUserId, content: "beep", updated_at: null, username: c.bot.name,
      is_bot: 1, embeds: [], attachments: [], reply_to: null,
    });
    expect(await heard).toEqual(res.body);
    socket.close();
  });

  test("embeds only, embeds with content, and replies", async () => {
    const c = await botCommunity();
    const embedOnly = await call("POST", `/channels/${c.channelId}/messages`, c.bot.token, { embeds: [{ title: "Status", color: "#00ff00" }] });
    expect(embedOnly.status).toBe(201);
    expect(embedOnly.body).toMatchObject({ content: "", embeds: [{ title: "Status" }] });
    const reply = await call("POST", `/channels/${c.channelId}/messages`, c.bot.token, { content: "re", reply_to: embedOnly.body.id, embeds: [{ description: "d" }] });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ content: "re", reply_to: embedOnly.body.id, embeds: [{ description: "d" }] });
  });

  test("bad bodies: neither content nor embeds, wrong types, too long, unknown reply", async () => {
    const c = await botCommunity();
    const path = `/channels/${c.channelId}/messages`;
    expectError(await call("POST", path, c.bot.token, {}), 400, "A message needs content, embeds or attachments");
    expectError(await call("POST", path, c.bot.token, { content: "  ", embeds: [] }), 400, "A message needs content, embeds or attachments");
    expectError(await call("POST", path, c.bot.token, { embeds: null }), 400);
    expectError(await call("POST", path, c.bot.token, { content: 5 }), 400, "content: must be a string");
    expectError(await call("POST", path, c.bot.token, { content: "x".repeat(4001) }), 400);
    expectError(await call("POST", path, c.bot.token, { embeds: "nope" }), 400);
    expectError(await call("POST", path, c.bot.token, { embeds: [{ color: 5 }] }), 400);
    expectError(await call("POST", path, c.bot.token, { content: "x", reply_to: "nope" }), 400);
    expectError(await call("POST", path, c.bot.token, { content: "x", reply_to: UNKNOWN }), 400, "reply_to: no such message in this channel");
    expectError(await server.api("POST", `${BOT}${path}`, { token: c.bot.token, raw: "{", headers: { "content-type": "application/json" } }), 400);
  });

  test("VIEW_CHANNEL and SEND_MESSAGES, through the channel's overrides on the bot's role", async () => {
    const c = await botCommunity();
    const path = `/channels/${c.channelId}/messages`;
    const override = (allow: number, deny: number) =>
      shared("PUT", `/channels/${c.channelId}/permissions/${c.botRoleId}`, c.owner, { allow, deny });
    expect((await override(0, P.SEND_MESSAGES)).status).toBe(200);
    expectError(await call("POST", path, c.bot.token, { content: "x" }), 403, "Missing permission: SEND_MESSAGES");
    expect((await override(0, P.VIEW_CHANNEL)).status).toBe(200);
    expectError(await call("POST", path, c.bot.token, { content: "x" }), 403, "Missing permission: VIEW_CHANNEL");
    expect((await override(0, P.EMBED_LINKS)).status).toBe(200);
    expectError(await call("POST", path, c.bot.token, { embeds: [{ title: "x" }] }), 403, "Missing permission: EMBED_LINKS");
    expect((await call("POST", path, c.bot.token, { content: "plain" })).status).toBe(201);
  });

  test("a voice channel takes bot text only with chat_enabled", async () => {
    const c = await botCommunity();
    const quiet = await shared("POST", `/channels/${c.serverId}`, c.owner, { name: "Lounge", type: "voice" });
    const chatty = await shared("POST", `/channels/${c.serverId}`, c.owner, { name: "Stage", type: "voice", chat_enabled: true });
    expectError(await call("POST", `/channels/${quiet.body.id}/messages`, c.bot.token, { content: "x" }), 403, "Text chat is disabled for this voice channel");
    expect((await call("POST", `/channels/${chatty.body.id}/messages`, c.bot.token, { content: "x" })).status).toBe(201);
  });
});

describe("PUT and DELETE /channels/:channelId/messages/:messageId (own messages only)", () => {
  test("edit: 200 with updated_at set, message:update to the room, no audit entry", async () => {
    const c = await botCommunity();
    const m = await botSend(c.bot, c.channelId, "draft");
    const socket = await watch(c.owner, c.serverId, c.channelId);
    const heard = waitForEvent(socket, "message:update");
    const res = await call("PUT", `/channels/${c.channelId}/messages/${m.id}`, c.bot.token, { content: "final" });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(MESSAGE_KEYS);
    expect(res.body).toMatchObject({ id: m.id, content: "final", created_at: m.created_at, updated_at: expect.any(Number) });
    expect(await heard).toEqual(res.body);
    const embeds = await call("PUT", `/channels/${c.channelId}/messages/${m.id}`, c.bot.token, { embeds: [{ title: "T" }] });
    expect(embeds.body).toMatchObject({ content: "final", embeds: [{ title: "T" }] });
    expect(await auditLog(server, c.serverId, c.owner, "MESSAGE_EDIT")).toEqual([]);
    socket.close();
  });

  test("edit refusals: another's message even with MANAGE_MESSAGES, another channel, empty or bad bodies", async () => {
    const c = await botCommunity(P.MANAGE_MESSAGES);
    const theirs = await userSend(c.member, c.channelId, "human words");
    const mine = await botSend(c.bot, c.channelId, "bot words");
    expectError(await call("PUT", `/channels/${c.channelId}/messages/${theirs.id}`, c.bot.token, { content: "x" }), 403, "You can only edit your own messages");
    const second = await shared("POST", `/channels/${c.serverId}`, c.owner, { name: "second", type: "text" });
    expectError(await call("PUT", `/channels/${second.body.id}/messages/${mine.id}`, c.bot.token, { content: "x" }), 404, "Message not found");
    expectError(await call("PUT", `/channels/${c.channelId}/messages/${mine.id}`, c.bot.token, {}), 400, "An edit needs content or embeds");
    expectError(await call("PUT", `/channels/${c.channelId}/messages/${mine.id}`, c.bot.token, { content: "" }), 400, "A message needs content, embeds or attachments");
    expectError(await call("PUT", `/channels/${c.channelId}/messages/${mine.id}`, c.bot.token, { content: 7 }), 400, "content: must be a string");
    expect((await server.app.store.messages.findById(theirs.id))!.content).toBe("human words");
  });

  test("delete: 200 {success}, message:deleted to the room; another's message is 403", async () => {
    const c = await botCommunity(P.MANAGE_MESSAGES);
    const mine = await botSend(c.bot, c.channelId, "bye");
    const theirs = await userSend(c.member, c.channelId, "stay");
    const socket = await watch(c.owner, c.serverId, c.channelId);
    const heard = waitForEvent(socket, "message:deleted");
    const res = await call("DELETE", `/channels/${c.channelId}/messages/${mine.id}`, c.bot.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect(await heard).toEqual({ channelId: c.channelId, messageId: mine.id });
    expect(await server.app.store.messages.findById(mine.id)).toBeNull();
    expectError(await call("DELETE", `/channels/${c.channelId}/messages/${mine.id}`, c.bot.token), 404, "Message not found");
    expectError(await call("DELETE", `/channels/${c.channelId}/messages/${theirs.id}`, c.bot.token), 403, "You can only delete your own messages");
    expect(await server.app.store.messages.findById(theirs.id)).not.toBeNull();
    expect(await auditLog(server, c.serverId, c.owner, "MESSAGE_DELETE")).toEqual([]);
    socket.close();
  });
});

describe("POST /channels/:channelId/messages/bulk-delete", () => {
  test("needs MANAGE_MESSAGES on the bot's role", async () => {
    const c = await botCommunity();
    const m = await botSend(c.bot, c.channelId, "x");
    const res = await call("POST", `/channels/${c.channelId}/messages/bulk-delete`, c.bot.token, { message_ids: [m.id] });
    expectError(res, 403, "Missing permission: MANAGE_MESSAGES");
    expect(await server.app.store.messages.findById(m.id)).not.toBeNull();
  });

  test("deletes the listed messages of that channel: {deleted}, message:deleted each, MESSAGE_DELETE for others' messages", async () => {
    const c = await botCommunity(P.MANAGE_MESSAGES);
    const mine = await botSend(c.bot, c.channelId, "mine");
    const a = await userSend(c.member, c.channelId, "a");
    const b = await userSend(c.member, c.channelId, "b");
    const keep = await userSend(c.member, c.channelId, "keep");
    const second = await shared("POST", `/channels/${c.serverId}`, c.owner, { name: "second", type: "text" });
    const elsewhere = await userSend(c.member, second.body.id, "elsewhere");
    const socket = await watch(c.owner, c.serverId, c.channelId);
    const deletedEvents = recordEvents(socket, "message:deleted");
    const res = await call("POST", `/channels/${c.channelId}/messages/bulk-delete`, c.bot.token, {
      message_ids: [mine.id, a.id, b.id, b.id.toUpperCase(), elsewhere.id, UNKNOWN],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: 3 });
    await until(() => deletedEvents.length >= 3, "message:deleted of the three");
    await quietWindow(50); // and none for the others
    expect(deletedEvents.map((e) => e.messageId).sort()).toEqual([mine.id, a.id, b.id].sort());
    expect(deletedEvents.every((e) => e.channelId === c.channelId)).toBe(true);
    for (const id of [mine.id, a.id, b.id]) expect(await server.app.store.messages.findById(id)).toBeNull();
    for (const id of [keep.id, elsewhere.id]) expect(await server.app.store.messages.findById(id)).not.toBeNull();
    const audited = await auditLog(server, c.serverId, c.owner, "MESSAGE_DELETE");
    expect(audited.map((e) => e.changes.messageId).sort()).toEqual([a.id, b.id].sort());
    expect(audited.every((e) => e.actor_id === c.bot.botUserId && e.target_id === c.member.id)).toBe(true);
    // Nothing left to delete: still 200.
    expect((await call("POST", `/channels/${c.channelId}/messages/bulk-delete`, c.bot.token, { message_ids: [a.id] })).body).toEqual({ deleted: 0 });
    socket.close();
  });

  test("1 to 100 message ids", async () => {
    const c = await botCommunity(P.MANAGE_MESSAGES);
    const path = `/channels/${c.channelId}/messages/bulk-delete`;
    const ids = (n: number) => Array.from({ length: n }, () => Bun.randomUUIDv7());
    expectError(await call("POST", path, c.bot.token, { message_ids: ids(101) }), 400, "message_ids: must hold 1-100 message ids");
    expectError(await call("POST", path, c.bot.token, { message_ids: [] }), 400, "message_ids: must hold 1-100 message ids");
    expectError(await call("POST", path, c.bot.token, {}), 400);
    expectError(await call("POST", path, c.bot.token, { message_ids: ["nope"] }), 400);
    expectError(await call("POST", path, c.bot.token, { message_ids: "x" }), 400);
    expect((await call("POST", path, c.bot.token, { message_ids: ids(100) })).body).toEqual({ deleted: 0 });
  });
});

describe("GET /channels/:channelId/messages", () => {
  test("newest first; before, after, both, limit", async () => {
    const c = await botCommunity();
    const sent: string[] = [];
    for (let i = 0; i < 6; i++) sent.push((await userSend(c.member, c.channelId, `m${i}`)).id);
    const page = async (query: string) => {
      const res = await call("GET", `/channels/${c.channelId}/messages${query}`, c.bot.token);
      expect(res.status).toBe(200);
      return (res.body as any[]).map((m) => m.id);
    };
    const all = await call("GET", `/channels/${c.channelId}/messages`, c.bot.token);
    expect(Object.keys(all.body[0]).sort()).toEqual(MESSAGE_KEYS);
    expect(all.body.map((m: any) => m.id)).toEqual([...sent].reverse());
    expect(await page("?limit=2")).toEqual([sent[5], sent[4]]);
    expect(await page(`?before=${sent[2]}`)).toEqual([sent[1], sent[0]]);
    expect(await page(`?after=${sent[1]}&limit=2`)).toEqual([sent[3], sent[2]]);
    expect(await page(`?after=${sent[0]}&before=${sent[4]}`)).toEqual([sent[3], sent[2], sent[1]]);
    expect(await page(`?after=${sent[5]}`)).toEqual([]);
    // around: floor(limit / 2) older, the message, the rest newer (a short side filled from the other), as the user route.
    expect(await page(`?around=${sent[3]}&limit=3`)).toEqual([sent[4], sent[3], sent[2]]);
    expect(await page(`?around=${sent[0]}&limit=4`)).toEqual([sent[3], sent[2], sent[1], sent[0]]);
    expectError(await call("GET", `/channels/${c.channelId}/messages?around=${sent[3]}&before=${sent[4]}`, c.bot.token), 400, "query: around cannot be combined with before or after");
  });

  test("default 50, at most 100; limits and ids outside the range are 400", async () => {
    const c = await botCommunity();
    for (let i = 0; i < 51; i++) await server.app.domain.messages.send(c.channelId, (await server.app.store.users.findById(c.member.id))!, { content: `n${i}` });
    expect((await call("GET", `/channels/${c.channelId}/messages`, c.bot.token)).body).toHaveLength(50);
    expect((await call("GET", `/channels/${c.channelId}/messages?limit=100`, c.bot.token)).body).toHaveLength(51);
    for (const query of ["limit=0", "limit=101", "limit=abc", "limit=-1", "before=nope", "after=nope", "around=nope"]) {
      const res = await call("GET", `/channels/${c.channelId}/messages?${query}`, c.bot.token);
      expect([query, res.status]).toEqual([query, 400]);
    }
    expectError(await call("GET", `/channels/${c.channelId}/messages?limit=0`, c.bot.token), 400, "limit: must be a whole number between 1 and 100");
  });

  test("needs READ_MESSAGE_HISTORY", async () => {
    const c = await botCommunity();
    await shared("PUT", `/channels/${c.channelId}/permissions/${c.everyone}`, c.owner, { allow: 0, deny: P.READ_MESSAGE_HISTORY });
    expectError(await call("GET", `/channels/${c.channelId}/messages`, c.bot.token), 403, "Missing permission: READ_MESSAGE_HISTORY");
  });
});

describe("POST /dm/:targetUserId", () => {
  test("201 with the DM message; dm:new reaches the target", async () => {
    const c = await botCommunity();
    const socket = await server.connect(c.member.token);
    const heard = waitForEvent(socket, "dm:new");
    const res = await call("POST", `/dm/${c.member.id}`, c.bot.token, { content: "hello human" });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(DM_KEYS);
    expect(res.body).toMatchObject({ user_id: c.bot.botUserId, content: "hello human", is_bot: 1, username: c.bot.name, embeds: [] });
    expect(await heard).toEqual(res.body);
    const withEmbeds = await call("POST", `/dm/${c.member.id}`, c.bot.token, { embeds: [{ title: "Card" }] });
    expect(withEmbeds.status).toBe(201);
    expect(withEmbeds.body).toMatchObject({ content: "", embeds: [{ title: "Card" }], conversation_id: res.body.conversation_id });
    // The member reads both in the same conversation, through the shared DM route.
    const history = await shared("GET", `/dm/${c.bot.botUserId}/messages`, c.member);
    expect(history.body.map((m: any) => m.id)).toEqual([withEmbeds.body.id, res.body.id]);
    socket.close();
  });

  test("the target must share a server with the bot: 403; bad bodies 400", async () => {
    const c = await botCommunity();
    expectError(await call("POST", `/dm/${c.outsider.id}`, c.bot.token, { content: "hi" }), 403, "You can only message users who share a server with you or are your friends");
    expectError(await call("POST", `/dm/${c.bot.botUserId}`, c.bot.token, { content: "me" }), 400, "You cannot message yourself");
    expectError(await call("POST", `/dm/${c.member.id}`, c.bot.token, {}), 400, "A message needs content or embeds");
    expectError(await call("POST", `/dm/${c.member.id}`, c.bot.token, { content: " ", embeds: [] }), 400, "A message needs content or embeds");
    expectError(await call("POST", `/dm/${c.member.id}`, c.bot.token, { content: 1 }), 400, "content: must be a string");
    expectError(await call("POST", `/dm/${c.member.id}`, c.bot.token, { embeds: [{ color: 5 }] }), 400);
    // Kicked out of the shared server: the existing DM stops too.
    await call("POST", `/dm/${c.member.id}`, c.bot.token, { content: "first" });
    await server.app.store.members.remove(c.serverId, c.member.id);
    expectError(await call("POST", `/dm/${c.member.id}`, c.bot.token, { content: "again" }), 403);
  });
});

describe("servers: details, channels, members, roles", () => {
  test("GET /servers/:serverId is the shared server object, with member_count", async () => {
    const c = await botCommunity();
    const res = await call("GET", `/servers/${c.serverId}`, c.bot.token);
    expect(res.status).toBe(200);
    expect(res.body.member_count).toBe(3);
    expect(res.body).toEqual((await shared("GET", `/servers/${c.serverId}`, c.owner)).body);
  });

  test("GET /servers/:serverId/channels: a bare array of the channels the bot can see", async () => {
    const c = await botCommunity();
    const hidden = await shared("POST", `/channels/${c.serverId}`, c.owner, { name: "staff", type: "text" });
    await shared("PUT", `/channels/${hidden.body.id}/permissions/${c.botRoleId}`, c.owner, { allow: 0, deny: P.VIEW_CHANNEL });
    const res = await call("GET", `/servers/${c.serverId}/channels`, c.bot.token);
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body.map((ch: any) => ch.id)).toEqual([c.channelId]);
    expect(res.body[0]).toEqual((await shared("GET", `/channels/id/${c.channelId}`, c.owner)).body);
  });

  test("GET /servers/:serverId/members and /members/:userId (with roles)", async () => {
    const c = await botCommunity();
    expect((await shared("POST", `/roles/${c.serverId}/assign`, c.owner, { targetUserId: c.member.id, roleId: c.helperRoleId })).status).toBe(200);
    const list = await call("GET", `/servers/${c.serverId}/members`, c.bot.token);
    expect(list.status).toBe(200);
    expect(list.body).toEqual((await shared("GET", `/servers/${c.serverId}/members`, c.owner)).body);
    expect(list.body.map((m: any) => m.user_id).sort()).toEqual([c.owner.id, c.member.id, c.bot.botUserId].sort());
    const one = await call("GET", `/servers/${c.serverId}/members/${c.member.id}`, c.bot.token);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(list.body.find((m: any) => m.user_id === c.member.id));
    expect(one.body).toMatchObject({ user_id: c.member.id, username: c.member.username, role: "member", roles: [c.helperRoleId], is_bot: 0 });
    const self = await call("GET", `/servers/${c.serverId}/members/${c.bot.botUserId}`, c.bot.token);
    expect(self.body).toMatchObject({ is_bot: 1, roles: [c.botRoleId] });
    expectError(await call("GET", `/servers/${c.serverId}/members/${c.outsider.id}`, c.bot.token), 404, "Member not found");
  });

  test("GET /servers/:serverId/roles is the shared role list", async () => {
    const c = await botCommunity();
    const res = await call("GET", `/servers/${c.serverId}/roles`, c.bot.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual((await shared("GET", `/roles/${c.serverId}`, c.owner)).body);
    expect(res.body.map((r: any) => r.id)).toContain(c.botRoleId);
  });
});

describe("moderation through the bot's role", () => {
  test("kick needs KICK_MEMBERS; then member:left and MEMBER_KICK like the shared route", async () => {
    const c = await botCommunity();
    const path = `/servers/${c.serverId}/members/${c.member.id}`;
    expectError(await call("DELETE", path, c.bot.token), 403, "Missing permission: KICK_MEMBERS");
    await c.setBotBits(P.KICK_MEMBERS);
    const socket = await watch(c.owner, c.serverId);
    const left = waitForEvent(socket, "member:left");
    const res = await call("DELETE", path, c.bot.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect(await left).toEqual({ serverId: c.serverId, userId: c.member.id });
    expect(await server.app.store.members.find(c.serverId, c.member.id)).toBeNull();
    const [entry] = await auditLog(server, c.serverId, c.owner, "MEMBER_KICK");
    expect(entry).toMatchObject({
      actor_id: c.bot.botUserId, actor_username: c.bot.name, target_type: "member", target_id: c.member.id,
      changes: { username: c.member.username, userId: c.member.id, moderator: c.bot.name },
    });
    expectError(await call("DELETE", path, c.bot.token), 404, "Member not found");
    // Rank: never the owner, never itself.
    expectError(await call("DELETE", `/servers/${c.serverId}/members/${c.owner.id}`, c.bot.token), 403);
    expectError(await call("DELETE", `/servers/${c.serverId}/members/${c.bot.botUserId}`, c.bot.token), 403);
    socket.close();
  });

  test("ban needs BAN_MEMBERS; member:left + member:banned, MEMBER_BAN; unban needs BAN_MEMBERS, MEMBER_UNBAN", async () => {
    const c = await botCommunity(P.KICK_MEMBERS);
    const bans = `/servers/${c.serverId}/bans`;
    expectError(await call("POST", bans, c.bot.token, { user_id: c.member.id }), 403, "Missing permission: BAN_MEMBERS");
    await c.setBotBits(P.BAN_MEMBERS);
    const socket = await watch(c.owner, c.serverId);
    const left = waitForEvent(socket, "member:left");
    const banned = waitForEvent(socket, "member:banned");
    const res = await call("POST", bans, c.bot.token, { user_id: c.member.id, reason: "spam" });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ user_id: c.member.id, reason: "spam", banned_by: c.bot.botUserId });
    expect(await left).toEqual({ serverId: c.serverId, userId: c.member.id });
    expect(await banned).toEqual({ serverId: c.serverId, userId: c.member.id });
    const [ban] = await auditLog(server, c.serverId, c.owner, "MEMBER_BAN");
    expect(ban).toMatchObject({ actor_id: c.bot.botUserId, target_id: c.member.id, changes: { reason: "spam", moderator: c.bot.name } });
    expectError(await call("POST", bans, c.bot.token, { user_id: c.member.id }), 409);
    expectError(await call("POST", bans, c.bot.token, {}), 400);
    expectError(await call("POST", bans, c.bot.token, { user_id: c.outsider.id, reason: 5 }), 400, "reason: must be a string");
    // Banning someone who never joined works by id.
    expect((await call("POST", bans, c.bot.token, { user_id: c.outsider.id })).status).toBe(201);

    await c.setBotBits(P.KICK_MEMBERS);
    expectError(await call("DELETE", `${bans}/${c.member.id}`, c.bot.token), 403, "Missing permission: BAN_MEMBERS");
    await c.setBotBits(P.BAN_MEMBERS);
    const unban = await call("DELETE", `${bans}/${c.member.id}`, c.bot.token);
    expect(unban.status).toBe(200);
    expect(unban.body).toEqual({ success: true });
    const [entry] = await auditLog(server, c.serverId, c.owner, "MEMBER_UNBAN");
    expect(entry).toMatchObject({ actor_id: c.bot.botUserId, target_id: c.member.id });
    expectError(await call("DELETE", `${bans}/${c.member.id}`, c.bot.token), 404, "Ban not found");
    socket.close();
  });

  test("role assign/remove need MANAGE_ROLES and a role below the bot's; member:roles-updated, ROLE_ASSIGN/UNASSIGN", async () => {
    const c = await botCommunity();
    const path = `/servers/${c.serverId}/members/${c.member.id}/roles/${c.helperRoleId}`;
    expectError(await call("POST", path, c.bot.token), 403, "Missing permission: MANAGE_ROLES");
    await c.setBotBits(P.MANAGE_ROLES);
    const socket = await watch(c.owner, c.serverId);
    const updated = recordEvents(socket, "member:roles-updated");
    const assigned = await call("POST", path, c.bot.token);
    expect(assigned.status).toBe(200);
    expect(assigned.body).toEqual({ success: true });
    expect(await server.app.store.members.roleIds(c.serverId, c.member.id)).toEqual([c.helperRoleId]);
    const [assign] = await auditLog(server, c.serverId, c.owner, "ROLE_ASSIGN");
    expect(assign).toMatchObject({ actor_id: c.bot.botUserId, target_id: c.member.id, changes: { roleId: c.helperRoleId, role: "helper" } });
    const removed = await call("DELETE", path, c.bot.token);
    expect(removed.status).toBe(200);
    expect(await server.app.store.members.roleIds(c.serverId, c.member.id)).toEqual([]);
    const [unassign] = await auditLog(server, c.serverId, c.owner, "ROLE_UNASSIGN");
    expect(unassign).toMatchObject({ actor_id: c.bot.botUserId, target_id: c.member.id, changes: { roleId: c.helperRoleId } });
    await until(() => updated.length >= 2, "member:roles-updated of the assign and the unassign");
    expect(updated).toEqual([
      { serverId: c.serverId, userId: c.member.id },
      { serverId: c.serverId, userId: c.member.id },
    ]);
    // A role above the bot's own, the default role, and the bot's own managed role are refused.
    const top = await shared("POST", `/roles/${c.serverId}`, c.owner, { name: "top" });
    const count = (await shared("GET", `/roles/${c.serverId}`, c.owner)).body.length - 1;
    expect((await shared("PUT", `/roles/${c.serverId}/reorder`, c.owner, [{ id: top.body.id, position: count }])).status).toBe(200);
    expectError(await call("POST", `/servers/${c.serverId}/members/${c.member.id}/roles/${top.body.id}`, c.bot.token), 403, "You can only manage roles below your highest role");
    expectError(await call("POST", `/servers/${c.serverId}/members/${c.member.id}/roles/${c.everyone}`, c.bot.token), 400);
    expectError(await call("POST", `/servers/${c.serverId}/members/${c.member.id}/roles/${c.botRoleId}`, c.bot.token), 400);
    socket.close();
  });
});

describe("a role created after the bot joined", () => {
  test("starts below the bot's role, so a bot given MANAGE_ROLES assigns it at once (role:created, role:updated, ROLE_CREATE)", async () => {
    const c = await botCommunity(P.MANAGE_ROLES);
    const socket = await watch(c.owner, c.serverId);
    const created = waitForEvent(socket, "role:created");
    const botRoleMoved = waitForEvent(socket, "role:updated", { filter: (r: any) => r.id === c.botRoleId });
    const fresh = await shared("POST", `/roles/${c.serverId}`, c.owner, { name: "verified" });
    expect(fresh.status).toBe(201);
    expect(fresh.body.position).toBe(1);
    expect(await created).toEqual(fresh.body);
    expect(await botRoleMoved).toMatchObject({ id: c.botRoleId, position: 3 });
    const [entry] = await auditLog(server, c.serverId, c.owner, "ROLE_CREATE");
    expect(entry).toMatchObject({ actor_id: c.owner.id, target_id: fresh.body.id, changes: { role: "verified", position: 1 } });
    // Highest first: the bot's role (added after "helper") on top, the new role at the bottom.
    const roles = (await call("GET", `/servers/${c.serverId}/roles`, c.bot.token)).body;
    expect(roles.map((r: any) => [r.id, r.position])).toEqual([
      [c.botRoleId, 3],
      [c.helperRoleId, 2],
      [fresh.body.id, 1],
      [c.everyone, 0],
    ]);
    const assigned = await call("POST", `/servers/${c.serverId}/members/${c.member.id}/roles/${fresh.body.id}`, c.bot.token);
    expect(assigned.status).toBe(200);
    expect(assigned.body).toEqual({ success: true });
    expect(await server.app.store.members.roleIds(c.serverId, c.member.id)).toEqual([fresh.body.id]);
    const [assign] = await auditLog(server, c.serverId, c.owner, "ROLE_ASSIGN");
    expect(assign).toMatchObject({ actor_id: c.bot.botUserId, target_id: c.member.id, changes: { roleId: fresh.body.id, role: "verified" } });
    socket.close();
  });
});

describe("invites", () => {
  test("create (expires_in seconds), list (MANAGE_SERVER), delete; INVITE_CREATE / INVITE_DELETE", async () => {
    const c = await botCommunity();
    const invites = `/servers/${c.serverId}/invites`;
    const before = Math.floor(Date.now() / 1000);
    const created = await call("POST", invites, c.bot.token, { max_uses: 5, expires_in: 3600 });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ server_id: c.serverId, max_uses: 5, uses: 0, created_by: c.bot.botUserId, is_primary: false, code: expect.any(String) });
    expect(created.body.expires_at).toBeGreaterThanOrEqual(before + 3600);
    expect(created.body.expires_at).toBeLessThanOrEqual(before + 3602);
    const forever = await call("POST", invites, c.bot.token);
    expect(forever.status).toBe(201);
    expect(forever.body).toMatchObject({ max_uses: null, expires_at: null });
    const [entry] = await auditLog(server, c.serverId, c.owner, "INVITE_CREATE");
    expect(entry).toMatchObject({ actor_id: c.bot.botUserId });
    expectError(await call("POST", invites, c.bot.token, { expires_in: -1 }), 400);
    expectError(await call("POST", invites, c.bot.token, { max_uses: "5" }), 400);

    expectError(await call("GET", invites, c.bot.token), 403, "Missing permission: MANAGE_SERVER");
    await c.setBotBits(P.MANAGE_SERVER);
    const list = await call("GET", invites, c.bot.token);
    expect(list.status).toBe(200);
    expect(list.body).toEqual((await shared("GET", `/servers/${c.serverId}/invites`, c.owner)).body);
    expect(list.body.map((i: any) => i.id)).toContain(created.body.id);

    const removed = await call("DELETE", `${invites}/${created.body.id}`, c.bot.token);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ success: true });
    expect((await call("GET", invites, c.bot.token)).body.map((i: any) => i.id)).not.toContain(created.body.id);
    const [deleted] = await auditLog(server, c.serverId, c.owner, "INVITE_DELETE");
    expect(deleted).toMatchObject({ actor_id: c.bot.botUserId, target_id: created.body.id });
    expectError(await call("DELETE", `${invites}/${created.body.id}`, c.bot.token), 404, "Invite not found");
  });

  test("deleting another member's invite needs MANAGE_SERVER", async () => {
    const c = await botCommunity();
    const theirs = await shared("POST", `/servers/${c.serverId}/invites`, c.member, {});
    expectError(await call("DELETE", `/servers/${c.serverId}/invites/${theirs.body.id}`, c.bot.token), 403, "Missing permission: MANAGE_SERVER");
  });
});
