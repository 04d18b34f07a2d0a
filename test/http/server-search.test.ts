/**
 * `GET /api/v1/servers/:id/search` (docs/servers.md, "Search"): the channel search
 * (test/http/message-search.test.ts) over every channel of the server the caller may read, in one
 * query. Which channels those are is the channel search's own rule (Access.channelsOpenTo beside
 * requireChannel), so a channel is searched here exactly when its channel search answers 200.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PERMISSIONS as P } from "../../src/domain/access/permission-bits.ts";
import { community, type Community } from "../helpers/community.ts";
import { onPostgres } from "../helpers/database.ts";
import { PNG_1X1, fileForm } from "../helpers/images.ts";
import { expectError, startServer, type TestServer, type TestUser } from "../helpers/server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const MESSAGE_KEYS = ["attachments", "avatar", "channel_id", "content", "created_at", "embeds", "id", "is_bot", "reply_to", "updated_at", "user_id", "username"];
const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";

const searchServer = (serverId: string, user: { token: string } | null, query: string) =>
  server.api("GET", `/api/v1/servers/${serverId}/search${query}`, { token: user?.token ?? null });
const searchChannel = (channelId: string, user: TestUser, query: string) =>
  server.api("GET", `/api/v1/messages/${channelId}/search${query}`, { token: user.token });
const q = (text: string, limit?: number) => `?q=${encodeURIComponent(text)}${limit === undefined ? "" : `&limit=${limit}`}`;
const send = async (channelId: string, user: TestUser, content: string) => {
  const res = await server.api("POST", `/api/v1/messages/${channelId}`, { token: user.token, body: { content } });
  expect(res.status).toBe(201);
  return res.body as { id: string; content: string };
};
const contents = (res: { body: { content: string }[] }) => res.body.map((m) => m.content);
const createChannel = async (c: Community, name: string, fields: Record<string, unknown> = {}) => {
  const res = await server.api("POST", `/api/v1/channels/${c.serverId}`, { token: c.owner.token, body: { name, type: "text", ...fields } });
  expect(res.status).toBe(201);
  return res.body.id as string;
};
const override = async (c: Community, channelId: string, deny: number, allow = 0) => {
  const res = await server.api("PUT", `/api/v1/channels/${channelId}/permissions/${c.everyone}`, { token: c.owner.token, body: { allow, deny } });
  expect(res.status).toBe(200);
};

describe("GET /api/v1/servers/:id/search", () => {
  test("every readable channel of the server in one answer: full messages, newest first, this server only", async () => {
    const c = await community(server);
    const { owner, member, serverId, channelId } = c;
    const otherId = await createChannel(c, "other");
    const elsewhere = await community(server, { owner, member });
    await send(channelId, member, "The quick brown fox");
    await send(otherId, owner, "quick in another channel");
    await send(channelId, owner, "lazy dog sleeps");
    const upload = await server.api("POST", `/api/v1/messages/${otherId}/upload`, {
      token: member.token,
      raw: (() => {
        const form = fileForm("files", PNG_1X1, "dot.png");
        form.append("content", "Quick picture");
        return form;
      })(),
    });
    expect(upload.status).toBe(201);
    await send(elsewhere.channelId, member, "quick but in another server");

    const res = await searchServer(serverId, member, q("quick"));
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ratelimit-bucket")).toBe("reads");
    expect(contents(res)).toEqual(["Quick picture", "quick in another channel", "The quick brown fox"]);
    expect(res.body.map((m: { channel_id: string }) => m.channel_id)).toEqual([otherId, otherId, channelId]);
    const ids = res.body.map((m: { id: string }) => m.id);
    expect([...ids].sort().reverse()).toEqual(ids);
    // Each one exactly as the message routes answer it (attachments included).
    for (const message of res.body) {
      expect(Object.keys(message).sort()).toEqual(MESSAGE_KEYS);
      expect(message).toEqual((await server.api("GET", `/api/v1/messages/id/${message.id}`, { token: member.token })).body);
    }
    expect(res.body[0].attachments).toHaveLength(1);
    expect(res.body[0]).toMatchObject({ user_id: member.id, username: member.username, attachments: [{ original_name: "dot.png", mime_type: "image/png" }] });

    // The channel search's rules: every word required, case and accents ignored, no prefixes.
    expect(contents(await searchServer(serverId, member, q("QUICK fox")))).toEqual(["The quick brown fox"]);
    expect(contents(await searchServer(serverId, member, q("fox dog")))).toEqual([]);
    expect(contents(await searchServer(serverId, member, q("  dog  ")))).toEqual(["lazy dog sleeps"]);
    expect(contents(await searchServer(serverId, member, q("qui")))).toEqual([]);
    expect(contents(await searchServer(elsewhere.serverId, member, q("quick")))).toEqual(["quick but in another server"]);
  });

  test("FTS5 syntax is plain text; a query with nothing searchable finds nothing", async () => {
    const c = await community(server);
    await send(c.channelId, c.member, "use OR and NEAR(x y) with a * star");
    await send(await createChannel(c, "cafe"), c.member, "Meet at the Café, 5pm");
    for (const text of ['"', "*", "hel*", "OR", "NEAR(", "-", ":", "content:hello", "(", "';--", "\u0000", "🔥", "x".repeat(200)]) {
      const res = await searchServer(c.serverId, c.member, q(text));
      expect([text, res.status]).toEqual([text, 200]);
      expect(Array.isArray(res.body)).toBe(true);
    }
    expect(contents(await searchServer(c.serverId, c.member, q("NEAR(x")))).toEqual(["use OR and NEAR(x y) with a * star"]);
    expect(contents(await searchServer(c.serverId, c.member, q("cafe 5PM")))).toEqual(["Meet at the Café, 5pm"]);
    expect(contents(await searchServer(c.serverId, c.member, q("\u0000")))).toEqual([]);
  });

  test("limit: default 25, 1-100 over all the channels together, otherwise 400", async () => {
    const c = await community(server);
    const otherId = await createChannel(c, "other");
    for (let i = 0; i < 30; i++) await send(i % 2 ? otherId : c.channelId, c.member, `match number ${i}`);
    const all = await searchServer(c.serverId, c.member, q("match"));
    expect(all.body).toHaveLength(25);
    expect(contents(all)).toEqual(Array.from({ length: 25 }, (_, i) => `match number ${29 - i}`));
    expect(contents(await searchServer(c.serverId, c.member, q("match", 3)))).toEqual(["match number 29", "match number 28", "match number 27"]);
    expect((await searchServer(c.serverId, c.member, q("match", 100))).body).toHaveLength(30);
    expect((await searchServer(c.serverId, c.member, q("match", 1))).body).toHaveLength(1);
    for (const bad of ["0", "101", "abc", "1.5", "", "1e2"]) {
      expectError(await searchServer(c.serverId, c.member, `?q=match&limit=${bad}`), 400, "limit: must be a whole number between 1 and 100");
    }
    expectError(await searchServer(c.serverId, c.member, "?q=match&limit=-1"), 400, /^limit: /);
  });

  test("q: required, 1-200 characters after trimming; the same 400s as the channel search", async () => {
    const c = await community(server);
    const cases = ["", "?q=", `?q=${encodeURIComponent("   ")}`, q("x".repeat(201)), "?limit=5"];
    for (const query of cases) {
      const res = await searchServer(c.serverId, c.member, query);
      expectError(res, 400, /^q: /);
      expect(res.body).toEqual((await searchChannel(c.channelId, c.member, query)).body);
    }
    expectError(await searchServer(c.serverId, c.member, ""), 400, "q: is required");
    expectError(await searchServer(c.serverId, c.member, "?q="), 400, "q: must be 1-200 characters");
    expectError(await searchServer(c.serverId, c.member, q("x".repeat(201))), 400, "q: must be 1-200 characters");
    expect((await searchServer(c.serverId, c.member, q("x".repeat(200)))).status).toBe(200);
  });

  test("a channel hidden from the caller, or without READ_MESSAGE_HISTORY, is never searched", async () => {
    const c = await community(server);
    const { owner, member, serverId, channelId } = c;
    const hiddenId = await createChannel(c, "hidden");
    const noHistoryId = await createChannel(c, "no-history");
    const category = await server.api("POST", `/api/v1/channels/${serverId}/categories`, { token: owner.token, body: { name: "staff" } });
    expect(category.status).toBe(201);
    const inHiddenCategoryId = await createChannel(c, "staff-room", { category_id: category.body.id });
    for (const [id, where] of [[channelId, "open"], [hiddenId, "hidden"], [noHistoryId, "no-history"], [inHiddenCategoryId, "category"]] as const) {
      await send(id, owner, `secret plans ${where}`);
    }
    await override(c, hiddenId, P.VIEW_CHANNEL);
    await override(c, noHistoryId, P.READ_MESSAGE_HISTORY);
    const categoryDeny = await server.api("PUT", `/api/v1/channels/categories/${category.body.id}/permissions/${c.everyone}`, {
      token: owner.token,
      body: { allow: 0, deny: P.VIEW_CHANNEL },
    });
    expect(categoryDeny.status).toBe(200);

    expect(contents(await searchServer(serverId, member, q("secret plans")))).toEqual(["secret plans open"]);
    expect(contents(await searchServer(serverId, member, q("hidden")))).toEqual([]);
    expect(contents(await searchServer(serverId, member, q("history")))).toEqual([]);
    // The owner reads every channel.
    expect(contents(await searchServer(serverId, owner, q("secret plans")))).toEqual([
      "secret plans category",
      "secret plans no-history",
      "secret plans hidden",
      "secret plans open",
    ]);
    // Exactly the channels whose own search lets the member in.
    for (const id of [channelId, hiddenId, noHistoryId, inHiddenCategoryId]) {
      const own = await searchChannel(id, member, q("secret plans"));
      const found = (await searchServer(serverId, member, q("secret plans"))).body.some((m: { channel_id: string }) => m.channel_id === id);
      expect([id, own.status === 200]).toEqual([id, found]);
    }
    expectError(await searchChannel(noHistoryId, member, q("secret")), 403, "Missing permission: READ_MESSAGE_HISTORY");

    // A role that gives the history back: searched again at once.
    const role = await server.api("POST", `/api/v1/roles/${serverId}`, { token: owner.token, body: { name: "readers" } });
    expect(role.status).toBe(201);
    await server.api("PUT", `/api/v1/channels/${noHistoryId}/permissions/${role.body.id}`, { token: owner.token, body: { allow: P.READ_MESSAGE_HISTORY, deny: 0 } });
    await server.app.store.roles.assign(serverId, member.id, role.body.id);
    expect(contents(await searchServer(serverId, member, q("secret plans")))).toEqual(["secret plans no-history", "secret plans open"]);
  });

  test("a member who may read most channels: every channel but the few closed ones, newest first, as their own searches say", async () => {
    const c = await community(server);
    const { owner, member, serverId, channelId } = c;
    const openIds = [channelId, await createChannel(c, "open-1"), await createChannel(c, "open-2"), await createChannel(c, "open-3")];
    const hiddenId = await createChannel(c, "hidden");
    for (const [i, id] of [...openIds, hiddenId].entries()) await send(id, owner, `roundup ${i}`);
    await override(c, hiddenId, P.VIEW_CHANNEL);
    // Four open, one closed: the search is scoped by the server, but the closed channel.
    expect(contents(await searchServer(serverId, member, q("roundup")))).toEqual(["roundup 3", "roundup 2", "roundup 1", "roundup 0"]);
    expect(contents(await searchServer(serverId, member, q("roundup", 2)))).toEqual(["roundup 3", "roundup 2"]);
    for (const id of [...openIds, hiddenId]) {
      const own = await searchChannel(id, member, q("roundup"));
      const found = (await searchServer(serverId, member, q("roundup"))).body.some((m: { channel_id: string }) => m.channel_id === id);
      expect([id, own.status === 200]).toEqual([id, found]);
    }
    // An override that changes nothing for the member (an allow of what @everyone holds) closes nothing.
    await override(c, hiddenId, 0, P.VIEW_CHANNEL);
    expect(contents(await searchServer(serverId, member, q("roundup")))).toEqual(["roundup 4", "roundup 3", "roundup 2", "roundup 1", "roundup 0"]);
    // A category that hides its channels, one of which shows itself again.
    const category = await server.api("POST", `/api/v1/channels/${serverId}/categories`, { token: owner.token, body: { name: "back-room" } });
    expect(category.status).toBe(201);
    const [shutId, reopenedId] = [await createChannel(c, "shut", { category_id: category.body.id }), await createChannel(c, "reopened", { category_id: category.body.id })];
    await send(shutId, owner, "roundup shut");
    await send(reopenedId, owner, "roundup reopened");
    const categoryDeny = await server.api("PUT", `/api/v1/channels/categories/${category.body.id}/permissions/${c.everyone}`, { token: owner.token, body: { allow: 0, deny: P.VIEW_CHANNEL } });
    expect(categoryDeny.status).toBe(200);
    await override(c, reopenedId, 0, P.VIEW_CHANNEL);
    expect(contents(await searchServer(serverId, member, q("roundup reopened")))).toEqual(["roundup reopened"]);
    expect(contents(await searchServer(serverId, member, q("roundup shut")))).toEqual([]);
    expect(contents(await searchServer(serverId, owner, q("roundup shut")))).toEqual(["roundup shut"]);
    // @everyone without the history in the server: only the channels that give it back.
    const everyone = await server.api("PUT", `/api/v1/roles/${serverId}/${c.everyone}`, { token: owner.token, body: { permissions: P.VIEW_CHANNEL | P.SEND_MESSAGES } });
    expect(everyone.status).toBe(200);
    expect(contents(await searchServer(serverId, member, q("roundup")))).toEqual([]);
    await override(c, openIds[2]!, 0, P.READ_MESSAGE_HISTORY);
    expect(contents(await searchServer(serverId, member, q("roundup")))).toEqual(["roundup 2"]);
    expect(contents(await searchServer(serverId, owner, q("roundup")))).toEqual(["roundup reopened", "roundup shut", "roundup 4", "roundup 3", "roundup 2", "roundup 1", "roundup 0"]);
  });

  test("a channel being deleted (marked, its messages not yet removed by its job) is never searched, by the owner either", async () => {
    const c = await community(server);
    const { owner, member, serverId, channelId } = c;
    const goingId = await createChannel(c, "going");
    await send(channelId, member, "leftover kept");
    await send(goingId, member, "leftover going");
    expect(contents(await searchServer(serverId, owner, q("leftover")))).toEqual(["leftover going", "leftover kept"]);
    // As DELETE /channels/:id leaves it until its background job has run: marked, messages in place.
    const db = server.app.store.db;
    await db.run(db.prepare<unknown, [number, string]>("UPDATE channels SET deleted_at = ? WHERE id = ?"), Math.floor(Date.now() / 1000), goingId);
    for (const user of [owner, member]) expect(contents(await searchServer(serverId, user, q("leftover")))).toEqual(["leftover kept"]);
    expect(contents(await searchServer(serverId, owner, q("going")))).toEqual([]);
  });

  test("a timed-out member still searches (a timeout keeps the read bits)", async () => {
    const c = await community(server);
    await send(c.channelId, c.owner, "still readable");
    const timeout = await server.api("POST", `/api/v1/servers/${c.serverId}/timeouts`, { token: c.owner.token, body: { targetUserId: c.member.id, duration: 600 } });
    expect(timeout.status).toBe(200);
    expect(contents(await searchServer(c.serverId, c.member, q("readable")))).toEqual(["still readable"]);
  });

  test("a server with no channel the caller may read answers []", async () => {
    const c = await community(server);
    await send(c.channelId, c.owner, "nobody else sees this");
    await override(c, c.channelId, P.VIEW_CHANNEL);
    const res = await searchServer(c.serverId, c.member, q("sees"));
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expect(contents(await searchServer(c.serverId, c.owner, q("sees")))).toEqual(["nobody else sees this"]);
    // No channel at all.
    await server.api("DELETE", `/api/v1/channels/${c.channelId}`, { token: c.owner.token });
    expect((await searchServer(c.serverId, c.owner, q("sees"))).body).toEqual([]);
  });

  test("401 without a token; 403 for a non-member and 404 for an unknown or malformed id, as GET /servers/:id answers", async () => {
    const c = await community(server);
    await send(c.channelId, c.owner, "secret plans");
    expectError(await searchServer(c.serverId, null, q("secret")), 401, "Unauthorized");
    expectError(await searchServer(c.serverId, { token: "not-a-token" }, q("secret")), 401, "Unauthorized");
    for (const id of [c.serverId, UNKNOWN, "nope", "0"]) {
      const own = await server.api("GET", `/api/v1/servers/${id}`, { token: c.outsider.token });
      const res = await searchServer(id, c.outsider, q("secret"));
      expect([id, res.status, res.body]).toEqual([id, own.status, own.body]);
    }
    expectError(await searchServer(c.serverId, c.outsider, q("secret")), 403, "You are not a member of this server");
    expectError(await searchServer(UNKNOWN, c.member, q("secret")), 404, "Server not found");
    expectError(await searchServer("nope", c.member, q("secret")), 404, "Server not found");
  });

  // SQLite indexes sends in batches (messages_fts_pending): the server search catches the backlog
  // up first, as the channel search does, so it finds every message sent before it.
  test.skipIf(onPostgres)("messages still waiting for the search index are found (the backlog is indexed first)", async () => {
    const c = await community(server);
    const otherId = await createChannel(c, "other");
    const db = server.app.store.db;
    const pending = async () => (await db.get(db.prepare<{ n: number }, []>("SELECT count(*) AS n FROM messages_fts_pending")))!.n;
    await server.app.store.messages.searchBacklog.index();
    await send(c.channelId, c.member, "fresh words one");
    await send(otherId, c.member, "fresh words two");
    expect(await pending()).toBeGreaterThanOrEqual(2);
    expect(contents(await searchServer(c.serverId, c.member, q("fresh")))).toEqual(["fresh words two", "fresh words one"]);
    expect(await pending()).toBe(0);
  });
});
