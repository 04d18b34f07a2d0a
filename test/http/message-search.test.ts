import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { community } from "../helpers/community.ts";
import { startServer, type TestServer, type TestUser, expectError } from "../helpers/server.ts";
import { eventually } from "../helpers/wait.ts";
import { PERMISSIONS as P } from "../../src/domain/access/permission-bits.ts";
import { searchWords } from "../../src/domain/messaging/search-query.ts";
import { toFtsMatch } from "../../src/store/sqlite/dialect.ts";
import { onPostgres } from "../helpers/database.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const MESSAGE_KEYS = ["attachments", "avatar", "channel_id", "content", "created_at", "embeds", "id", "is_bot", "reply_to", "updated_at", "user_id", "username"];
const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";

const search = (channelId: string, user: TestUser | null, query: string) =>
  server.api("GET", `/api/v1/messages/${channelId}/search${query}`, { token: user?.token ?? null });
const q = (text: string, limit?: number) => `?q=${encodeURIComponent(text)}${limit === undefined ? "" : `&limit=${limit}`}`;
const send = async (channelId: string, user: TestUser, content: string) => {
  const res = await server.api("POST", `/api/v1/messages/${channelId}`, { token: user.token, body: { content } });
  expect(res.status).toBe(201);
  return res.body as { id: string; content: string };
};
const contents = (res: { body: { content: string }[] }) => res.body.map((m) => m.content);

/** The shared community, with a second text channel (`otherChannelId`). */
async function withOtherChannel() {
  const c = await community(server);
  const other = await server.api("POST", `/api/v1/channels/${c.serverId}`, { token: c.owner.token, body: { name: "other", type: "text" } });
  return { ...c, otherChannelId: other.body.id as string };
}


describe("GET /api/v1/messages/:channelId/search", () => {
  test("whole-word matches in this channel only, every word required, newest first, as messages", async () => {
    const { owner, member, channelId, otherChannelId } = await withOtherChannel();
    await send(channelId, member, "The quick brown fox");
    await send(channelId, owner, "lazy dog sleeps");
    await send(channelId, member, "Quick thinking saves the day");
    await send(channelId, member, "quickly now");
    await send(otherChannelId, member, "quick in another channel");

    const res = await search(channelId, member, q("quick"));
    expect(res.status).toBe(200);
    expect(contents(res)).toEqual(["Quick thinking saves the day", "The quick brown fox"]);
    for (const m of res.body) expect(Object.keys(m).sort()).toEqual(MESSAGE_KEYS);
    expect(res.body[0]).toMatchObject({ channel_id: channelId, user_id: member.id, username: member.username, attachments: [] });

    expect(contents(await search(channelId, member, q("QUICK fox")))).toEqual(["The quick brown fox"]);
    expect(contents(await search(channelId, member, q("fox dog")))).toEqual([]);
    expect(contents(await search(channelId, member, q("  dog  ")))).toEqual(["lazy dog sleeps"]);
    expect(contents(await search(otherChannelId, member, q("quick")))).toEqual(["quick in another channel"]);
    expect(contents(await search(channelId, member, q("nothing-like-this")))).toEqual([]);
  });

  test("case and accents do not matter; punctuation splits words", async () => {
    const { member, channelId } = await withOtherChannel();
    await send(channelId, member, "Meet at the Café, 5pm");
    await send(channelId, member, "e-mail me: bob@example.com");
    expect(contents(await search(channelId, member, q("cafe")))).toEqual(["Meet at the Café, 5pm"]);
    expect(contents(await search(channelId, member, q("CAFÉ 5pm")))).toEqual(["Meet at the Café, 5pm"]);
    expect(contents(await search(channelId, member, q("e-mail")))).toEqual(["e-mail me: bob@example.com"]);
    expect(contents(await search(channelId, member, q("bob@example.com")))).toEqual(["e-mail me: bob@example.com"]);
  });

  test("FTS5 syntax in the query is plain text: never an error", async () => {
    const { member, channelId } = await withOtherChannel();
    await send(channelId, member, "use OR and NEAR(x y) with a * star");
    await send(channelId, member, 'she said "hello" to content:everyone');
    const nasty = ['"', '""', '"hello', "*", "hel*", "OR", "AND", "NOT", "a OR b", "NEAR(", "NEAR(x y)", "-", "-hello", ":", "content:hello",
      "^", "(", ")", "{content}", "\\", "'", "';--", "\u0000", "a\tb", "hello\u0000world", "🔥", "%", "_", "OR AND NOT", "x".repeat(200)];
    for (const text of nasty) {
      const res = await search(channelId, member, q(text));
      expect([text, res.status]).toEqual([text, 200]);
      expect(Array.isArray(res.body)).toBe(true);
    }
    // Operators are matched as the words they are.
    expect(contents(await search(channelId, member, q("OR")))).toEqual(["use OR and NEAR(x y) with a * star"]);
    expect(contents(await search(channelId, member, q("NEAR(x")))).toEqual(["use OR and NEAR(x y) with a * star"]);
    expect(contents(await search(channelId, member, q('"hello"')))).toEqual(['she said "hello" to content:everyone']);
    expect(contents(await search(channelId, member, q("content:everyone")))).toEqual(['she said "hello" to content:everyone']);
    expect(contents(await search(channelId, member, q("hel*")))).toEqual([]);
  });

  test("edits and deletes are reflected", async () => {
    const { member, channelId } = await withOtherChannel();
    const m = await send(channelId, member, "original words");
    await server.api("PUT", `/api/v1/messages/${m.id}`, { token: member.token, body: { content: "replaced text" } });
    expect(contents(await search(channelId, member, q("original")))).toEqual([]);
    expect(contents(await search(channelId, member, q("replaced")))).toEqual(["replaced text"]);
    await server.api("DELETE", `/api/v1/messages/${m.id}`, { token: member.token });
    expect(contents(await search(channelId, member, q("replaced")))).toEqual([]);
  });

  // SQLite indexes sends in batches (messages_fts_pending, docs/messages.md "Search"): an edit or a
  // delete may come before or after its message reached the index; the index must end up right
  // either way (FTS5's integrity check compares it with the messages table).
  const sqlite = !onPostgres;
  const pending = async () => (await server.app.store.db.get(server.app.store.db.prepare<{ n: number }, []>("SELECT count(*) AS n FROM messages_fts_pending")))!.n;
  const integrityCheck = () => server.app.store.db.exec("INSERT INTO messages_fts (messages_fts, rank) VALUES ('integrity-check', 1)");

  test.skipIf(!sqlite)("edits and deletes before and after the search index caught up leave it right", async () => {
    const { member, channelId } = await withOtherChannel();
    await server.app.store.messages.searchBacklog.index();
    const early = await send(channelId, member, "early words");
    const gone = await send(channelId, member, "vanishing words");
    expect(await pending()).toBeGreaterThanOrEqual(2); // not indexed yet (they wait for a moment or a search)
    await server.api("PUT", `/api/v1/messages/${early.id}`, { token: member.token, body: { content: "edited while pending" } });
    await server.api("DELETE", `/api/v1/messages/${gone.id}`, { token: member.token });
    expect(contents(await search(channelId, member, q("words")))).toEqual([]);
    expect(contents(await search(channelId, member, q("pending")))).toEqual(["edited while pending"]);
    expect(await pending()).toBe(0);
    await server.api("PUT", `/api/v1/messages/${early.id}`, { token: member.token, body: { content: "edited once indexed" } });
    expect(contents(await search(channelId, member, q("pending")))).toEqual([]);
    expect(contents(await search(channelId, member, q("indexed")))).toEqual(["edited once indexed"]);
    await integrityCheck();
    await server.api("DELETE", `/api/v1/messages/${early.id}`, { token: member.token });
    expect(contents(await search(channelId, member, q("indexed")))).toEqual([]);
    await integrityCheck();
  });

  test.skipIf(!sqlite)("without a search, sent messages reach the index a moment later, in one go", async () => {
    const { member, channelId } = await withOtherChannel();
    await Promise.all(Array.from({ length: 20 }, (_, i) => send(channelId, member, `batch word ${i}`)));
    // Counted, not timed: the backlog empties by itself (INDEX_DELAY_MS), well within 10 s.
    await eventually(async () => (await pending()) === 0, "the index backlog to empty", { timeoutMs: 10_000, intervalMs: 50 });
    await integrityCheck();
    expect(contents(await search(channelId, member, q("batch word", 100))).length).toBe(20);
  });

  test("limit: default 25, 1-100, otherwise 400", async () => {
    const { member, channelId } = await withOtherChannel();
    for (let i = 0; i < 30; i++) await send(channelId, member, `match number ${i}`);
    const all = await search(channelId, member, q("match"));
    expect(all.body).toHaveLength(25);
    expect(all.body[0].content).toBe("match number 29");
    expect(contents(await search(channelId, member, q("match", 2)))).toEqual(["match number 29", "match number 28"]);
    expect((await search(channelId, member, q("match", 100))).body).toHaveLength(30);
    expectError(await search(channelId, member, q("match", 0)), 400, "limit: must be a whole number between 1 and 100");
    expectError(await search(channelId, member, q("match", 101)), 400, "limit: must be a whole number between 1 and 100");
    expectError(await search(channelId, member, "?q=match&limit=abc"), 400, "limit: must be a whole number between 1 and 100");
    expectError(await search(channelId, member, "?q=match&limit=-1"), 400, /^limit: /);
  });

  test("q: required, 1-200 characters", async () => {
    const { member, channelId } = await withOtherChannel();
    expectError(await search(channelId, member, ""), 400, /^q: /);
    expectError(await search(channelId, member, "?q="), 400, "q: must be 1-200 characters");
    expectError(await search(channelId, member, q("   ")), 400, "q: must be 1-200 characters");
    expectError(await search(channelId, member, q("x".repeat(201))), 400, "q: must be 1-200 characters");
  });

  test("401, 403 non-member, hidden channel or without READ_MESSAGE_HISTORY, 404 unknown channel", async () => {
    const { owner, member, outsider, channelId, everyone } = await withOtherChannel();
    await send(channelId, owner, "secret plans");
    expectError(await search(channelId, null, q("secret")), 401);
    expectError(await search(channelId, outsider, q("secret")), 403, "You are not a member of this server");
    expectError(await search(UNKNOWN, member, q("secret")), 404, "Channel not found");
    expectError(await search("nope", member, q("secret")), 404);
    await server.api("PUT", `/api/v1/channels/${channelId}/permissions/${everyone}`, { token: owner.token, body: { allow: 0, deny: P.READ_MESSAGE_HISTORY } });
    expectError(await search(channelId, member, q("secret")), 403, "Missing permission: READ_MESSAGE_HISTORY");
    expect(contents(await search(channelId, owner, q("secret")))).toEqual(["secret plans"]);
    await server.api("PUT", `/api/v1/channels/${channelId}/permissions/${everyone}`, { token: owner.token, body: { allow: 0, deny: P.VIEW_CHANNEL } });
    expectError(await search(channelId, member, q("secret")), 403, "Missing permission: VIEW_CHANNEL");
  });
});

describe("searchWords", () => {
  test.each([
    ["hello", ["hello"]],
    ["hello world", ["hello", "world"]],
    ['say "hi"', ["say", '"hi"']],
    ["  spaced\tout \n", ["spaced", "out"]],
    ["nul\u0000byte", ["nul", "byte"]],
    ["", []],
    ["   ", []],
    ["\u0000", []],
  ])("%p -> %p", (input, expected) => {
    expect(searchWords(input)).toEqual(expected);
  });
});

describe("toFtsMatch (SQLite)", () => {
  test.each([
    [["hello"], '"hello"'],
    [["hello", "world"], '"hello" "world"'],
    [["say", '"hi"'], '"say" """hi"""'],
    [["a*"], '"a*"'],
    [["OR"], '"OR"'],
    [["NEAR(a"], '"NEAR(a"'],
  ])("%p -> %p", (input, expected) => {
    expect(toFtsMatch(input)).toBe(expected);
  });
});
