import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addMember, auditEntries, community, joinChannel } from "../helpers/community.ts";
import { recordEvents, startServer, waitForEvent, type TestServer, type TestUser } from "../helpers/server.ts";
import { quietWindow } from "../helpers/wait.ts";
import { PERMISSIONS as P } from "../../src/domain/access/permission-bits.ts";
import { raisedRestRateLimits } from "../helpers/rate-limits.ts";

let server: TestServer;
beforeAll(async () => {
  // "1000 messages page back" sends 1000 messages to one channel as fast as it can: the REST
  // sends limit (100 per 10 s) is raised; the limits are tested in test/http/rate-limits.test.ts.
  server = await startServer(raisedRestRateLimits("sends"));
});
afterAll(() => server.stop());

const MESSAGE_KEYS = ["attachments", "avatar", "channel_id", "content", "created_at", "embeds", "id", "is_bot", "reply_to", "updated_at", "user_id", "username"];
const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";

const api = (method: string, path: string, user: TestUser | null, body?: unknown) =>
  server.api(method, `/api/v1/messages${path}`, { token: user?.token, body });
const send = (channelId: string, user: TestUser, body: Record<string, unknown>) => api("POST", `/${channelId}`, user, body);

const override = (owner: TestUser, channelId: string, roleId: string, allow: number, deny: number) =>
  server.api("PUT", `/api/v1/channels/${channelId}/permissions/${roleId}`, { token: owner.token, body: { allow, deny } });

describe("POST /api/v1/messages/:channelId", () => {
  test("answers 201 with the spec's message and emits message:new to the channel room", async () => {
    const { owner, member, channelId } = await community(server);
    const socket = await joinChannel(server, owner, channelId);
    const received = waitForEvent(socket, "message:new");
    const res = await send(channelId, member, { content: "hello hearth" });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(MESSAGE_KEYS);
    expect(res.body).toMatchObject({
      channel_id: channelId, user_id: member.id, content: "hello hearth", updated_at: null, username: member.username,
      avatar: null, is_bot: 0, embeds: [], attachments: [], reply_to: null,
    });
    expect(await received).toEqual(res.body);
    socket.close();
  });

  test("replies, embeds (with EMBED_LINKS) and their validation", async () => {
    const { member, channelId } = await community(server);
    const first = await send(channelId, member, { content: "first" });
    const reply = await send(channelId, member, { content: "second", reply_to: first.body.id });
    expect(reply.body.reply_to).toBe(first.body.id);
    expect((await send(channelId, member, { content: "x", reply_to: UNKNOWN })).body).toEqual({ error: "reply_to: no such message in this channel" });
    const embed = await send(channelId, member, { embeds: [{ title: "Status", color: "#00ff00", fields: [{ name: "a", value: "b" }] }] });
    expect(embed.status).toBe(201);
    expect(embed.body.embeds[0]).toMatchObject({ title: "Status", fields: [{ name: "a", value: "b" }] });
    expect((await send(channelId, member, { embeds: "nope" })).status).toBe(400);
    expect((await send(channelId, member, { embeds: [{ color: 5 }] })).status).toBe(400);
  });

  test("refusals: empty, too long, 401, non-member 403, hidden or unknown channel 404", async () => {
    const { member, outsider, channelId } = await community(server);
    expect((await send(channelId, member, {})).body).toEqual({ error: "A message needs content, embeds or attachments" });
    expect((await send(channelId, member, { content: "   " })).status).toBe(400);
    expect((await send(channelId, member, { content: "x".repeat(4001) })).status).toBe(400);
    expect((await send(channelId, member, { content: 5 })).body).toEqual({ error: "content: must be a string" });
    expect((await server.api("POST", `/api/v1/messages/${channelId}`, { body: { content: "x" } })).status).toBe(401);
    expect((await send(channelId, outsider, { content: "x" })).body).toEqual({ error: "You are not a member of this server" });
    expect((await send(UNKNOWN, member, { content: "x" })).status).toBe(404);
    expect((await send("nope", member, { content: "x" })).status).toBe(404);
  });

  test("permission bits: SEND_MESSAGES, EMBED_LINKS, MENTION_EVERYONE, VIEW_CHANNEL", async () => {
    const { owner, member, channelId, everyone } = await community(server);
    await override(owner, channelId, everyone, 0, P.EMBED_LINKS);
    expect((await send(channelId, member, { embeds: [{ title: "x" }] })).body).toEqual({ error: "Missing permission: EMBED_LINKS" });
    expect((await send(channelId, member, { content: "hey @everyone" })).body).toEqual({ error: "Missing permission: MENTION_EVERYONE" });
    expect((await send(channelId, owner, { content: "hey @everyone" })).status).toBe(201);
    await override(owner, channelId, everyone, 0, P.SEND_MESSAGES);
    expect((await send(channelId, member, { content: "x" })).body).toEqual({ error: "Missing permission: SEND_MESSAGES" });
    await override(owner, channelId, everyone, 0, P.VIEW_CHANNEL);
    const hidden = await send(channelId, member, { content: "x" });
    expect(hidden.status).toBe(403);
    expect(hidden.body).toEqual({ error: "Missing permission: VIEW_CHANNEL" });
  });

  test("a timed-out member cannot send until the timeout is removed", async () => {
    const { owner, member, serverId, channelId } = await community(server);
    const timeout = await server.api("POST", `/api/v1/servers/${serverId}/timeouts`, { token: owner.token, body: { targetUserId: member.id, duration: 60 } });
    expect(timeout.status).toBe(200);
    expect((await send(channelId, member, { content: "x" })).body).toEqual({ error: "You are timed out in this server" });
    await server.api("DELETE", `/api/v1/servers/${serverId}/timeouts/${member.id}`, { token: owner.token });
    expect((await send(channelId, member, { content: "x" })).status).toBe(201);
  });

  test("voice channels take text only with chat_enabled", async () => {
    const { owner, member, serverId } = await community(server);
    const quiet = await server.api("POST", `/api/v1/channels/${serverId}`, { token: owner.token, body: { name: "Lounge", type: "voice" } });
    const chatty = await server.api("POST", `/api/v1/channels/${serverId}`, { token: owner.token, body: { name: "Stage", type: "voice", chat_enabled: true } });
    const refused = await send(quiet.body.id, member, { content: "x" });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: "Text chat is disabled for this voice channel" });
    expect((await send(chatty.body.id, member, { content: "x" })).status).toBe(201);
  });

  test("slowmode: 429 with the seconds left; MANAGE_MESSAGES is exempt", async () => {
    const { owner, member, channelId } = await community(server);
    await server.api("PUT", `/api/v1/channels/${channelId}`, { token: owner.token, body: { slowmode: 30 } });
    expect((await send(channelId, member, { content: "one" })).status).toBe(201);
    const second = await send(channelId, member, { content: "two" });
    expect(second.status).toBe(429);
    expect(second.body.error).toMatch(/^Slowmode is on: wait \d+ seconds$/);
    expect(Number(second.headers.get("retry-after"))).toBeGreaterThan(25);
    expect((await send(channelId, owner, { content: "a" })).status).toBe(201);
    expect((await send(channelId, owner, { content: "b" })).status).toBe(201);
  });

  test("an unknown custom emoji is refused", async () => {
    const { member, channelId } = await community(server);
    expect((await send(channelId, member, { content: `hi <:blob:${UNKNOWN}>` })).body).toEqual({ error: `content: unknown custom emoji <:blob:${UNKNOWN}>` });
  });
});

describe("reading messages", () => {
  test("1000 messages page back in order without gaps or duplicates", async () => {
    const { member, channelId } = await community(server);
    const sent: string[] = [];
    for (let i = 0; i < 1000; i++) sent.push((await send(channelId, member, { content: `m${i}` })).body.id);
    const seen: string[] = [];
    let before: string | undefined;
    for (;;) {
      const page = await api("GET", `/${channelId}${before ? `?before=${before}` : ""}`, member);
      expect(page.status).toBe(200);
      if (page.body.length === 0) break;
      expect(page.body.length).toBeLessThanOrEqual(50);
      seen.push(...page.body.map((m: { id: string }) => m.id));
      before = page.body.at(-1).id;
    }
    expect(seen).toEqual([...sent].reverse());
    const small = await api("GET", `/${channelId}?limit=3`, member);
    expect(small.body.map((m: { content: string }) => m.content)).toEqual(["m999", "m998", "m997"]);
  });

  test("limit and before are validated; READ_MESSAGE_HISTORY is needed", async () => {
    const { owner, member, channelId, everyone } = await community(server);
    for (const query of ["limit=0", "limit=101", "limit=x", "before=nope"]) {
      expect((await api("GET", `/${channelId}?${query}`, member)).status).toBe(400);
    }
    const sent = await send(channelId, member, { content: "hello" });
    expect((await api("GET", `/id/${sent.body.id}`, member)).body).toEqual(sent.body);
    await override(owner, channelId, everyone, 0, P.READ_MESSAGE_HISTORY);
    expect((await api("GET", `/${channelId}`, member)).body).toEqual({ error: "Missing permission: READ_MESSAGE_HISTORY" });
    expect((await api("GET", `/id/${sent.body.id}`, member)).status).toBe(403);
    expect((await api("GET", `/id/${UNKNOWN}`, member)).status).toBe(404);
    expect((await api("GET", `/${channelId}`, null)).status).toBe(401);
  });

  test("a page's query errors name the field and carry the reads bucket; unknown channels are 404", async () => {
    const { owner, outsider, channelId } = await community(server);
    for (let i = 0; i < 3; i++) await send(channelId, owner, { content: `hello ${i}` });
    const get = (path: string, user: TestUser | null, method = "GET") => fetch(`${server.url}/api/v1/messages${path}`, { method, headers: user ? { authorization: `Bearer ${user.token}` } : {} });
    const page = await get(`/${channelId}?limit=2`, owner);
    expect(((await page.json()) as unknown[]).length).toBe(2);
    expect((await get(`/${channelId}?limit=2`, owner, "HEAD")).status).toBe(200);
    const bad = await get(`/${channelId}?limit=abc`, owner);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: "limit: must be a whole number between 1 and 100" });
    // Counted before the query is validated, as every authenticated route.
    expect(bad.headers.get("x-ratelimit-bucket")).toBe("reads");
    expect((await get(`/${channelId}?limit=2&limit=3`, owner)).status).toBe(400);
    // The bearer check comes before the query's.
    expect((await get(`/${channelId}?limit=abc`, null)).status).toBe(401);
    expect((await get(`/${channelId}`, outsider)).status).toBe(403);
    for (const id of [UNKNOWN, "not-an-id"]) expect((await get(`/${id}`, owner)).status).toBe(404);
  });

  test("POST /:channelId/read marks the channel read", async () => {
    const { member, outsider, channelId } = await community(server);
    const sent = await send(channelId, member, { content: "hello" });
    expect((await api("POST", `/${channelId}/read`, member)).body).toEqual({ channel_id: channelId, last_read_message_id: sent.body.id });
    expect((await api("POST", `/${channelId}/read`, member, { message_id: sent.body.id })).status).toBe(200);
    expect((await api("POST", `/${channelId}/read`, member, { message_id: UNKNOWN })).status).toBe(400);
    expect((await api("POST", `/${channelId}/read`, outsider)).status).toBe(403);
  });
});

describe("editing and deleting", () => {
  test("the author edits: updated_at set, message:update emitted", async () => {
    const { owner, member, channelId } = await community(server);
    const socket = await joinChannel(server, owner, channelId);
    const sent = await send(channelId, member, { content: "draft" });
    const updated = waitForEvent(socket, "message:update");
    const res = await api("PUT", `/${sent.body.id}`, member, { content: "final" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: sent.body.id, content: "final" });
    expect(typeof res.body.updated_at).toBe("number");
    expect(await updated).toEqual(res.body);
    expect((await api("PUT", `/${sent.body.id}`, member, {})).body).toEqual({ error: "content: is required" });
    expect((await api("PUT", `/${UNKNOWN}`, member, { content: "x" })).status).toBe(404);
    socket.close();
  });

  test("others need MANAGE_MESSAGES; a moderator's edit and delete are audited", async () => {
    const { owner, member, serverId, channelId } = await community(server);
    const bystander = await server.register();
    await addMember(server, serverId, bystander);
    const sent = await send(channelId, member, { content: "mine" });
    expect((await api("PUT", `/${sent.body.id}`, bystander, { content: "hijack" })).status).toBe(403);
    expect((await api("DELETE", `/${sent.body.id}`, bystander)).status).toBe(403);
    expect((await api("PUT", `/${sent.body.id}`, owner, { content: "moderated" })).status).toBe(200);
    const socket = await joinChannel(server, bystander, channelId);
    const deleted = waitForEvent(socket, "message:deleted");
    expect((await api("DELETE", `/${sent.body.id}`, owner)).body).toEqual({ success: true });
    expect(await deleted).toEqual({ channelId, messageId: sent.body.id });
    const actions = (await auditEntries(server, serverId)).slice(0, 2).map((e) => [e.action, e.target_id, e.target_username]);
    expect(actions).toEqual([["MESSAGE_DELETE", member.id, member.username], ["MESSAGE_EDIT", member.id, member.username]]);
    expect((await api("GET", `/id/${sent.body.id}`, owner)).status).toBe(404);
    expect((await api("DELETE", `/${sent.body.id}`, owner)).status).toBe(404);
    socket.close();
  });

  test("the author's own edits and deletes are not audited", async () => {
    const { member, serverId, channelId } = await community(server);
    const before = (await auditEntries(server, serverId)).length;
    const sent = await send(channelId, member, { content: "mine" });
    await api("PUT", `/${sent.body.id}`, member, { content: "still mine" });
    await api("DELETE", `/${sent.body.id}`, member);
    expect((await auditEntries(server, serverId)).length).toBe(before);
  });
});

describe("typing", () => {
  test("typing:start and typing:stop reach the others in the channel room", async () => {
    const { owner, member, outsider, channelId } = await community(server);
    const watcher = await joinChannel(server, owner, channelId);
    const typist = await joinChannel(server, member, channelId);
    const selfSaw = recordEvents(typist, "typing:start");
    const started = waitForEvent(watcher, "typing:start");
    expect(await typist.emitWithAck("typing:start", channelId)).toEqual({ ok: true, channelId });
    expect(await started).toEqual({ userId: member.id, username: member.username, channelId });
    const stopped = waitForEvent(watcher, "typing:stop");
    typist.emit("typing:stop", channelId);
    expect(await stopped).toEqual({ userId: member.id, username: member.username, channelId });
    await quietWindow(50); // the typist's own socket: nothing later on it to wait for
    expect(selfSaw).toEqual([]);
    const stranger = await server.connect(outsider.token);
    expect(await stranger.emitWithAck("typing:start", channelId)).toEqual({ ok: false, error: "You are not a member of this server" });
    expect(await stranger.emitWithAck("typing:start", "x")).toEqual({ ok: false, error: "channelId: must be a channel id" });
    for (const s of [watcher, typist, stranger]) s.close();
  });
});
