import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { history, registerCommands } from "../helpers/bot-platform.ts";
import { addBot } from "../helpers/bots.ts";
import { community, joinChannel } from "../helpers/community.ts";
import { recordEvents, startServer, waitForEvent, type TestServer, type TestUser } from "../helpers/server.ts";
import { quietWindow } from "../helpers/wait.ts";
import { PERMISSIONS as P } from "../../src/domain/access/permission-bits.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";
const WEBHOOK_KEYS = ["avatar", "channel_id", "created_at", "created_by", "id", "name", "server_id", "token", "url"];
const INVALID = { error: "Invalid webhook" };

const manage = (method: string, path: string, user: TestUser | null, body?: unknown) => server.api(method, path, { token: user?.token, body });
const create = (channelId: string, user: TestUser | null, body: unknown) => manage("POST", `/api/v1/channels/${channelId}/webhooks`, user, body);
/** Executes with no Authorization header; `query` like "?wait=true". */
const execute = (hook: { id: string; token: string }, body: unknown, query = "", headers: Record<string, string> = {}) =>
  server.api("POST", `/api/webhooks/${hook.id}/${hook.token}${query}`, { body, headers });


async function withWebhook(body: Record<string, unknown> = { name: "Deploys" }) {
  const c = await community(server);
  const res = await create(c.channelId, c.owner, body);
  expect(res.status).toBe(201);
  return { ...c, hook: res.body as { id: string; token: string; name: string; avatar: string | null; url: string } };
}

describe("managing webhooks", () => {
  test("create answers 201 with the token and url; the list and the aliases show it", async () => {
    const { owner, serverId, channelId } = await community(server);
    const res = await create(channelId, owner, { name: "  Deploys  ", avatar: "https://example.test/a.png" });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(WEBHOOK_KEYS);
    expect(res.body).toMatchObject({ name: "Deploys", avatar: "https://example.test/a.png", channel_id: channelId, server_id: serverId, created_by: owner.id });
    expect(res.body.token).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    expect(res.body.url).toBe(`/api/webhooks/${res.body.id}/${res.body.token}`);
    expect(typeof res.body.created_at).toBe("number");

    const alias = await manage("POST", `/api/webhooks/channel/${channelId}`, owner, { name: "Alerts" });
    expect(alias.status).toBe(201);
    expect(alias.body).toMatchObject({ name: "Alerts", avatar: null, channel_id: channelId });
    expect(alias.body.token).not.toBe(res.body.token);

    const list = await manage("GET", `/api/v1/channels/${channelId}/webhooks`, owner);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([res.body, alias.body]);
    expect((await manage("GET", `/api/webhooks/channel/${channelId}`, owner)).body).toEqual(list.body);
  });

  test("MANAGE_CHANNELS in the channel is needed; 401 without a token; 403 for non-members and bots", async () => {
    const { owner, member, outsider, serverId, channelId, everyone } = await community(server);
    for (const user of [member, outsider]) {
      expect((await create(channelId, user, { name: "x" })).status).toBe(403);
      expect((await manage("GET", `/api/v1/channels/${channelId}/webhooks`, user)).status).toBe(403);
      expect((await manage("GET", `/api/webhooks/channel/${channelId}`, user)).status).toBe(403);
    }
    expect((await create(channelId, member, { name: "x" })).body).toEqual({ error: "Missing permission: MANAGE_CHANNELS" });
    expect((await create(channelId, outsider, { name: "x" })).body).toEqual({ error: "You are not a member of this server" });
    expect((await create(channelId, null, { name: "x" })).status).toBe(401);
    expect((await manage("GET", `/api/v1/channels/${channelId}/webhooks`, null)).status).toBe(401);
    expect((await manage("POST", `/api/webhooks/channel/${channelId}`, null, { name: "x" })).status).toBe(401);

    // A channel override granting MANAGE_CHANNELS is enough.
    const grant = await server.api("PUT", `/api/v1/channels/${channelId}/permissions/${everyone}`, { token: owner.token, body: { allow: P.MANAGE_CHANNELS, deny: 0 } });
    expect(grant.status).toBe(200);
    const made = await create(channelId, member, { name: "Member hook" });
    expect(made.status).toBe(201);
    expect(made.body.created_by).toBe(member.id);

    const bot = await addBot(server, owner, serverId);
    const asBot = await server.api("POST", `/api/v1/channels/${channelId}/webhooks`, { token: bot.token, body: { name: "x" } });
    expect(asBot.status).toBe(403);
    expect(asBot.body).toEqual({ error: "Webhook management needs a user token" });
  });

  test("404 for an unknown or non-UUID channel; 400 for bad bodies", async () => {
    const { owner, channelId } = await community(server);
    expect((await create(UNKNOWN, owner, { name: "x" })).status).toBe(404);
    expect((await create("nope", owner, { name: "x" })).body).toEqual({ error: "Channel not found" });
    expect((await manage("GET", "/api/webhooks/channel/nope", owner)).status).toBe(404);
    expect((await create(channelId, owner, {})).body).toEqual({ error: "name: is required" });
    expect((await create(channelId, owner, { name: "   " })).body).toEqual({ error: "name: must be 1-80 characters" });
    expect((await create(channelId, owner, { name: "x".repeat(81) })).status).toBe(400);
    expect((await create(channelId, owner, { name: 5 })).body).toEqual({ error: "name: must be a string" });
    expect((await create(channelId, owner, { name: "x", avatar: "ftp://example.test/a.png" })).body).toEqual({ error: "avatar: must be an http(s) URL" });
    expect((await create(channelId, owner, { name: "x", avatar: "not a url" })).status).toBe(400);
    expect((await create(channelId, owner, [1])).status).toBe(400);
    const malformed = await server.api("POST", `/api/v1/channels/${channelId}/webhooks`, { token: owner.token, raw: "{", headers: { "content-type": "application/json" } });
    expect(malformed.status).toBe(400);
  });

  test("PATCH renames and changes or clears the avatar; same rules", async () => {
    const { owner, member, outsider, hook } = await withWebhook({ name: "Deploys", avatar: "https://example.test/a.png" });
    const renamed = await manage("PATCH", `/api/webhooks/${hook.id}`, owner, { name: "Releases" });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: hook.id, name: "Releases", avatar: "https://example.test/a.png", token: hook.token, url: hook.url });
    expect((await manage("PATCH", `/api/webhooks/${hook.id}`, owner, { avatar: "http://example.test/b.png" })).body.avatar).toBe("http://example.test/b.png");
    expect((await manage("PATCH", `/api/webhooks/${hook.id}`, owner, { avatar: null })).body).toMatchObject({ name: "Releases", avatar: null });
    expect((await manage("PATCH", `/api/webhooks/${hook.id}`, owner, { name: "" })).status).toBe(400);
    expect((await manage("PATCH", `/api/webhooks/${hook.id}`, owner, { avatar: "javascript:alert(1)" })).status).toBe(400);
    expect((await manage("PATCH", `/api/webhooks/${hook.id}`, null, { name: "x" })).status).toBe(401);
    expect((await manage("PATCH", `/api/webhooks/${hook.id}`, member, { name: "x" })).body).toEqual({ error: "Missing permission: MANAGE_CHANNELS" });
    expect((await manage("PATCH", `/api/webhooks/${hook.id}`, outsider, { name: "x" })).status).toBe(403);
    expect((await manage("PATCH", `/api/webhooks/${UNKNOWN}`, owner, { name: "x" })).body).toEqual({ error: "Webhook not found" });
    expect((await manage("PATCH", "/api/webhooks/nope", owner, { name: "x" })).status).toBe(404);
  });

  test("a webhook in a channel the caller cannot see answers 403", async () => {
    const { owner, member, channelId, everyone, hook } = await withWebhook();
    await server.api("PUT", `/api/v1/channels/${channelId}/permissions/${everyone}`, { token: owner.token, body: { allow: 0, deny: P.VIEW_CHANNEL } });
    const hidden = { status: 403, body: { error: "Missing permission: VIEW_CHANNEL" } };
    expect(await manage("PATCH", `/api/webhooks/${hook.id}`, member, { name: "x" })).toMatchObject(hidden);
    expect(await manage("GET", `/api/v1/channels/${channelId}/webhooks`, member)).toMatchObject(hidden);
  });

  test("token regeneration: the old token stops working at once", async () => {
    const { owner, member, hook } = await withWebhook();
    const res = await manage("POST", `/api/webhooks/${hook.id}/token`, owner);
    expect(res.status).toBe(200);
    expect(res.body.token).not.toBe(hook.token);
    expect(res.body.url).toBe(`/api/webhooks/${hook.id}/${res.body.token}`);
    const old = await execute(hook, { content: "old" });
    expect(old.status).toBe(401);
    expect(old.body).toEqual(INVALID);
    expect((await server.api("GET", hook.url)).body).toEqual(INVALID);
    expect((await execute({ id: hook.id, token: res.body.token }, { content: "new" })).status).toBe(204);
    expect((await manage("POST", `/api/webhooks/${hook.id}/token`, null)).status).toBe(401);
    expect((await manage("POST", `/api/webhooks/${hook.id}/token`, member)).status).toBe(403);
    expect((await manage("POST", `/api/webhooks/${UNKNOWN}/token`, owner)).status).toBe(404);
  });

  test("DELETE removes it: its token then answers 401 and a second delete 404", async () => {
    const { owner, member, channelId, hook } = await withWebhook();
    expect((await manage("DELETE", `/api/webhooks/${hook.id}`, null)).status).toBe(401);
    expect((await manage("DELETE", `/api/webhooks/${hook.id}`, member)).status).toBe(403);
    const res = await manage("DELETE", `/api/webhooks/${hook.id}`, owner);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect((await execute(hook, { content: "x" })).body).toEqual(INVALID);
    expect((await manage("DELETE", `/api/webhooks/${hook.id}`, owner)).status).toBe(404);
    expect((await manage("GET", `/api/v1/channels/${channelId}/webhooks`, owner)).body).toEqual([]);
  });

  test("deleting the channel deletes its webhooks", async () => {
    const { owner, channelId, hook } = await withWebhook();
    expect((await execute(hook, { content: "before" })).status).toBe(204);
    expect((await manage("DELETE", `/api/v1/channels/${channelId}`, owner)).status).toBe(200);
    expect((await execute(hook, { content: "after" })).body).toEqual(INVALID);
    expect(await server.app.store.webhooks.find(hook.id)).toBeNull();
  });
});

describe("GET /api/webhooks/:id/:token", () => {
  test("answers the metadata; a wrong id or token is 401 Invalid webhook", async () => {
    const { channelId, hook } = await withWebhook({ name: "Deploys", avatar: "https://example.test/a.png" });
    const res = await server.api("GET", `/api/webhooks/${hook.id}/${hook.token}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: hook.id, name: "Deploys", avatar: "https://example.test/a.png", channel_id: channelId, url: hook.url });
    for (const path of [`/api/webhooks/${hook.id}/${hook.token}x`, `/api/webhooks/${UNKNOWN}/${hook.token}`, `/api/webhooks/nope/${hook.token}`]) {
      const wrong = await server.api("GET", path);
      expect(wrong.status).toBe(401);
      expect(wrong.body).toEqual(INVALID);
    }
  });
});

describe("POST /api/webhooks/:id/:token", () => {
  test("without wait: 204 and no body; the message reaches the channel room and its history", async () => {
    const { owner, channelId, hook } = await withWebhook({ name: "Deploys", avatar: "https://example.test/a.png" });
    const socket = await joinChannel(server, owner, channelId);
    const received = waitForEvent(socket, "message:new");
    const res = await execute(hook, { content: "deployed v1.2" });
    expect(res.status).toBe(204);
    expect(res.body).toBe("");
    const message = await received;
    expect(message).toMatchObject({
      channel_id: channelId, user_id: owner.id, content: "deployed v1.2", username: "Deploys",
      avatar: "https://example.test/a.png", is_bot: 1, webhook_id: hook.id, embeds: [], attachments: [], reply_to: null,
    });
    expect((await history(server, owner.token, channelId))[0]).toEqual(message);
    socket.close();
  });

  test("?wait=true answers 200 with the message; username and avatar_url override the webhook's", async () => {
    const { owner, channelId, hook } = await withWebhook();
    const socket = await joinChannel(server, owner, channelId);
    const received = waitForEvent(socket, "message:new");
    const res = await execute(hook, { content: "hi", username: "CI", avatar_url: "https://example.test/ci.png" }, "?wait=true");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ content: "hi", username: "CI", avatar: "https://example.test/ci.png", is_bot: 1, webhook_id: hook.id });
    expect(await received).toEqual(res.body);
    const plain = await execute(hook, { content: "plain" }, "?wait=true");
    expect(plain.body).toMatchObject({ username: "Deploys", avatar: null });
    expect((await execute(hook, { content: "x" }, "?wait=false")).status).toBe(204);
    expect((await execute(hook, { content: "x" }, "?wait=maybe")).body).toEqual({ error: "wait: must be true or false" });
    socket.close();
  });

  test("Discord-style embeds are normalized", async () => {
    const { hook } = await withWebhook();
    const res = await execute(hook, {
      embeds: [{ title: "Build", color: 0x00ff00, image: { url: "https://example.test/i.png" }, thumbnail: { url: "https://example.test/t.png" } }],
    }, "?wait=true");
    expect(res.status).toBe(200);
    expect(res.body.content).toBe("");
    expect(res.body.embeds).toEqual([{ title: "Build", color: "#00FF00", image: "https://example.test/i.png", thumbnail: "https://example.test/t.png" }]);
    expect((await execute(hook, { embeds: [{ title: "x", color: "green" }] })).status).toBe(400);
    expect((await execute(hook, { embeds: "nope" })).body).toEqual({ error: "embeds: must be an array" });
  });

  test("refusals: any Authorization header, wrong id or token, no content, bad fields", async () => {
    const { owner, hook } = await withWebhook();
    const bearer = await execute(hook, { content: "x" }, "", { authorization: `Bearer ${owner.token}` });
    expect(bearer.status).toBe(401);
    expect(typeof bearer.body.error).toBe("string");
    expect((await execute(hook, { content: "x" }, "", { authorization: "Basic Zm9vOmJhcg==" })).status).toBe(401);
    expect((await server.api("GET", hook.url, { token: owner.token })).status).toBe(401);
    expect((await execute({ id: hook.id, token: "x".repeat(43) }, { content: "x" })).body).toEqual(INVALID);
    expect((await execute({ id: UNKNOWN, token: hook.token }, { content: "x" })).body).toEqual(INVALID);
    expect((await execute({ id: "nope", token: hook.token }, { content: "x" })).status).toBe(401);
    // A wrong token is 401 before a bad body is 400.
    expect((await execute({ id: hook.id, token: "wrong" }, { content: 5 })).status).toBe(401);

    const empty = await execute(hook, {});
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual({ error: "A message needs content, embeds or attachments" });
    expect((await execute(hook, { content: "   ", embeds: [] })).status).toBe(400);
    expect((await execute(hook, { content: 5 })).body).toEqual({ error: "content: must be a string" });
    expect((await execute(hook, { content: "x".repeat(4001) })).body).toEqual({ error: "content: must be at most 4000 characters" });
    expect((await execute(hook, { content: "x", username: "" })).status).toBe(400);
    expect((await execute(hook, { content: "x", avatar_url: "nope" })).body).toEqual({ error: "avatar_url: must be an http(s) URL" });
    expect((await execute(hook, { content: `hi <:blob:${UNKNOWN}>` })).body).toEqual({ error: `content: unknown custom emoji <:blob:${UNKNOWN}>` });
    const malformed = await server.api("POST", hook.url, { raw: "{", headers: { "content-type": "application/json" } });
    expect(malformed.status).toBe(400);
  });

  describe("the URL's id and token are checked before any Authorization header (SPEC Errors 1)", () => {
    const HEADER_REFUSED = { error: "Webhook execute routes take no Authorization header: the URL token is the credential" };
    const call = (method: "GET" | "POST", hook: { id: string; token: string }, authorization?: string) =>
      server.api(method, `/api/webhooks/${hook.id}/${hook.token}`, {
        body: method === "POST" ? { content: "x" } : undefined,
        headers: authorization === undefined ? {} : { authorization },
      });

    test.each(["GET", "POST"] as const)("%s: all four combinations, and wrong ids", async (method) => {
      const { owner, hook } = await withWebhook();
      const bearer = `Bearer ${owner.token}`;
      const wrongToken = { id: hook.id, token: "x".repeat(43) };
      const wrongId = { id: UNKNOWN, token: hook.token };
      const notAnId = { id: "nope", token: hook.token };
      const answers = async (target: { id: string; token: string }, authorization?: string) => {
        const res = await call(method, target, authorization);
        return { status: res.status, body: res.body };
      };
      // Right token, no header: the route works.
      expect((await answers(hook)).status).toBe(method === "GET" ? 200 : 204);
      // Right token with a header: its own 401.
      expect(await answers(hook, bearer)).toEqual({ status: 401, body: HEADER_REFUSED });
      expect(await answers(hook, "Basic Zm9vOmJhcg==")).toEqual({ status: 401, body: HEADER_REFUSED });
      // Wrong token or id: Invalid webhook, header or not.
      for (const target of [wrongToken, wrongId, notAnId]) {
        expect(await answers(target)).toEqual({ status: 401, body: INVALID });
        expect(await answers(target, bearer)).toEqual({ status: 401, body: INVALID });
        expect(await answers(target, "Bot whatever")).toEqual({ status: 401, body: INVALID });
      }
    });

    test("a refused header is not counted against the execute rate limit; nothing is posted", async () => {
      const { owner, channelId, hook } = await withWebhook();
      for (let i = 0; i < 35; i++) expect((await call("POST", hook, `Bearer ${owner.token}`)).status).toBe(401);
      expect((await call("POST", hook)).status).toBe(204);
      expect((await history(server, owner.token, channelId)).map((m: any) => m.content)).toEqual(["x"]);
    });

    test("the token routes have no /api/v1 alias: 404", async () => {
      const { hook } = await withWebhook();
      const res = await server.api("POST", `/api/v1/webhooks/${hook.id}/${hook.token}`, { body: { content: "x" } });
      expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: { error: "Not found" } });
    });
  });

  test("a voice channel without chat_enabled refuses it", async () => {
    const { owner, serverId } = await community(server);
    const quiet = await server.api("POST", `/api/v1/channels/${serverId}`, { token: owner.token, body: { name: "Lounge", type: "voice" } });
    const chatty = await server.api("POST", `/api/v1/channels/${serverId}`, { token: owner.token, body: { name: "Stage", type: "voice", chat_enabled: true } });
    const quietHook = (await create(quiet.body.id, owner, { name: "Q" })).body;
    const chattyHook = (await create(chatty.body.id, owner, { name: "C" })).body;
    const refused = await execute(quietHook, { content: "x" });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: "Text chat is disabled for this voice channel" });
    expect((await execute(chattyHook, { content: "x" })).status).toBe(204);
  });

  test("member rules do not apply: no slash command runs, slowmode and denied bits do not hold it back", async () => {
    const { owner, serverId, channelId, everyone, hook } = await withWebhook();
    const bot = await addBot(server, owner, serverId);
    await registerCommands(server, bot, [{ name: "ping", description: "Pong" }]);
    const botSocket = await server.connect(bot.token);
    const interactions = recordEvents(botSocket, "interaction:create");
    await server.api("PUT", `/api/v1/channels/${channelId}`, { token: owner.token, body: { slowmode: 60 } });
    await server.api("PUT", `/api/v1/channels/${channelId}/permissions/${everyone}`, { token: owner.token, body: { allow: 0, deny: P.SEND_MESSAGES | P.EMBED_LINKS } });
    const first = await execute(hook, { content: "/ping" }, "?wait=true");
    expect(first.status).toBe(200);
    expect(first.body.content).toBe("/ping");
    expect((await execute(hook, { content: "@everyone", embeds: [{ title: "x" }] })).status).toBe(204);
    await quietWindow();
    expect(interactions).toEqual([]);
    botSocket.close();
  });

  test("about 30 executes a minute per webhook: a burst of 40 gets 30 through, then 429 with Retry-After", async () => {
    const { hook } = await withWebhook();
    const other = await withWebhook();
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof execute>> | null = null;
    for (let i = 0; i < 40; i++) {
      last = await execute(hook, { content: `burst ${i}` });
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 30)).toEqual(Array(30).fill(204));
    expect(statuses.slice(30)).toEqual(Array(10).fill(429));
    expect(typeof last!.body.error).toBe("string");
    const retryAfter = Number(last!.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Per webhook: another one is unaffected.
    expect((await execute(other.hook, { content: "still fine" })).status).toBe(204);
  });
});
