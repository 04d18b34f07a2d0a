import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig, ConfigError } from "../../src/config.ts";
import { DEFAULT_BOT_PERMISSIONS, PERMISSIONS } from "../../src/domain/access/permission-bits.ts";
import { createBot } from "../helpers/bots.ts";
import { community, createServer } from "../helpers/community.ts";
import { expectError, startServer, type ApiResponse, type TestServer } from "../helpers/server.ts";

/**
 * REST rate limits per caller and route family (docs/operations.md, "Rate limits"; issue 39,
 * point 4): every answer of a limited route carries the X-RateLimit headers, past the family's
 * window the answer is 429 `{error}` with Retry-After, and one family's flood never spends
 * another family's budget or another caller's.
 */

const RATE_HEADERS = ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "x-ratelimit-reset-after", "x-ratelimit-bucket"];

function expectRateHeaders(res: ApiResponse, bucket: string, limit: number, remaining?: number) {
  for (const name of RATE_HEADERS) expect(res.headers.get(name)).not.toBeNull();
  expect(res.headers.get("x-ratelimit-bucket")).toBe(bucket);
  expect(res.headers.get("x-ratelimit-limit")).toBe(String(limit));
  if (remaining !== undefined) expect(res.headers.get("x-ratelimit-remaining")).toBe(String(remaining));
  const reset = Number(res.headers.get("x-ratelimit-reset"));
  const after = Number(res.headers.get("x-ratelimit-reset-after"));
  // Epoch seconds to the millisecond, as Discord; Reset-After is what is left of the window.
  expect(reset * 1000).toBeGreaterThan(Date.now() - 1000);
  expect(after).toBeGreaterThan(0);
  expect(Math.abs(reset - (Date.now() / 1000 + after))).toBeLessThan(2);
}

function expect429(res: ApiResponse, bucket: string, message: RegExp) {
  expectError(res, 429, message);
  expectRateHeaders(res, bucket, Number(res.headers.get("x-ratelimit-limit")), 0);
  const retryAfter = Number(res.headers.get("retry-after"));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
}

describe("with small windows (set for the test)", () => {
  let server: TestServer;
  beforeAll(async () => {
    // Small on purpose: each family is flooded below.
    server = await startServer({
      restRateLimits: {
        sends: { requests: 5, windowSeconds: 60 },
        "user-sends": { requests: 10, windowSeconds: 60 },
        "message-writes": { requests: 3, windowSeconds: 60 },
        reactions: { requests: 3, windowSeconds: 60 },
        reads: { requests: 20, windowSeconds: 60 },
        writes: { requests: 10, windowSeconds: 60 },
      },
    });
  });
  afterAll(() => server.stop());

  test("sends are counted per user and per channel: the sixth send to one channel is 429, another channel and another user still send", async () => {
    const c = await community(server);
    const other = await server.api("POST", `/api/v1/channels/${c.serverId}`, { token: c.owner.token, body: { name: "other", type: "text" } });
    expect(other.status).toBe(201);
    for (let i = 0; i < 5; i++) {
      const sent = await server.api("POST", `/api/v1/messages/${c.channelId}`, { token: c.member.token, body: { content: `m${i}` } });
      expect(sent.status).toBe(201);
      expectRateHeaders(sent, "messages.send", 5, 4 - i);
    }
    const refused = await server.api("POST", `/api/v1/messages/${c.channelId}`, { token: c.member.token, body: { content: "one too many" } });
    expect429(refused, "messages.send", /rate limited: too many messages sent to this channel; retry in \d+ s/);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(50);
    expect((await server.api("POST", `/api/v1/messages/${other.body.id}`, { token: c.member.token, body: { content: "elsewhere" } })).status).toBe(201);
    expect((await server.api("POST", `/api/v1/messages/${c.channelId}`, { token: c.owner.token, body: { content: "the owner" } })).status).toBe(201);
    // The refused send was not stored, and reads are another family.
    const page = await server.api("GET", `/api/v1/messages/${c.channelId}`, { token: c.member.token });
    expect(page.status).toBe(200);
    expect(page.body.map((m: { content: string }) => m.content)).not.toContain("one too many");
  });

  test("sends over all channels have a ceiling of their own: varying the channel (here ids of no channel) does not multiply the budget", async () => {
    const user = await server.register();
    for (let i = 0; i < 10; i++) {
      const missing = await server.api("POST", `/api/v1/messages/0198c0de-0000-7000-8000-${String(i).padStart(12, "0")}`, { token: user.token, body: { content: "anyone?" } });
      expect(missing.status).toBe(404);
      expectRateHeaders(missing, "messages.send", 5, 4);
    }
    const refused = await server.api("POST", "/api/v1/messages/0198c0de-0000-7000-8000-999999999999", { token: user.token, body: { content: "anyone?" } });
    expect429(refused, "messages.send.all", /rate limited: too many messages sent; retry in \d+ s/);
    expect(refused.headers.get("x-ratelimit-limit")).toBe("10");
  });

  test("reads: one user's concurrent readers meet 429 quickly (the page and me reads alike) while another user still reads", async () => {
    const c = await community(server);
    const flood = await Promise.all(Array.from({ length: 40 }, (_, i) => server.api("GET", i % 2 ? `/api/v1/messages/${c.channelId}` : "/api/v1/users/me/info", { token: c.member.token })));
    const statuses = flood.map((res) => res.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(20);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20);
    expect429(flood.find((res) => res.status === 429)!, "reads", /too many reads/);
    // Every read route shares the bucket.
    expect429(await server.api("GET", `/api/v1/servers/${c.serverId}`, { token: c.member.token }), "reads", /too many reads/);
    const mine = await server.api("GET", "/api/v1/users/me/info", { token: c.owner.token });
    expect(mine.status).toBe(200);
    expectRateHeaders(mine, "reads", 20);
    // Writes are a family of their own.
    expect((await server.api("POST", `/api/v1/messages/${c.channelId}`, { token: c.member.token, body: { content: "still sending" } })).status).toBe(201);
  });

  test("message writes and reactions have buckets of their own", async () => {
    const c = await community(server);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await server.api("POST", `/api/v1/messages/${c.channelId}`, { token: c.member.token, body: { content: `w${i}` } })).body.id);
    for (let i = 0; i < 3; i++) {
      const edited = await server.api("PUT", `/api/v1/messages/${ids[i]}`, { token: c.member.token, body: { content: `edited ${i}` } });
      expect(edited.status).toBe(200);
      expectRateHeaders(edited, "messages.write", 3, 2 - i);
    }
    expect429(await server.api("DELETE", `/api/v1/messages/${ids[3]}`, { token: c.member.token }), "messages.write", /too many message edits and deletes/);
    for (const emoji of ["👍", "🎉", "🔥"]) {
      const reacted = await server.api("PUT", `/api/v1/messages/${c.channelId}/reactions/${ids[0]}`, { token: c.member.token, body: { emoji } });
      expect(reacted.status).toBe(200);
      expectRateHeaders(reacted, "reactions", 3);
    }
    expect429(await server.api("PUT", `/api/v1/messages/${c.channelId}/reactions/${ids[0]}`, { token: c.member.token, body: { emoji: "😀" } }), "reactions", /too many reactions/);
  });

  test("an error after the count carries the headers too; a request refused before it (no token) does not count", async () => {
    const user = await server.register();
    const missing = await server.api("GET", "/api/v1/servers/0198c0de-0000-7000-8000-000000000000", { token: user.token });
    expect(missing.status).toBe(404);
    expectRateHeaders(missing, "reads", 20, 19);
    expect((await server.api("GET", "/api/v1/users/me/info", { token: null })).status).toBe(401);
    expect((await server.api("GET", "/api/v1/users/me/info", { token: user.token })).headers.get("x-ratelimit-remaining")).toBe("18");
  });

  test("a bot's buckets are per route family, never one bucket for the bot: its sends are refused, its reads are not", async () => {
    const owner = await server.register();
    const serverId = await createServer(server, owner);
    const channelId = (await server.app.store.channels.listByServer(serverId))[0]!.id;
    const bot = await createBot(server, owner);
    await server.api("POST", `/api/v1/oauth2/applications/${bot.appId}/servers/${serverId}`, { token: owner.token, body: {} });
    for (let i = 0; i < 5; i++) expect((await server.api("POST", `/api/v1/oauth2/bot/channels/${channelId}/messages`, { token: bot.token, body: { content: `b${i}` } })).status).toBe(201);
    expect429(await server.api("POST", `/api/v1/oauth2/bot/channels/${channelId}/messages`, { token: bot.token, body: { content: "b5" } }), "messages.send", /too many messages/);
    const read = await server.api("GET", `/api/v1/oauth2/bot/servers/${serverId}/channels`, { token: bot.token });
    expect(read.status).toBe(200);
    expectRateHeaders(read, "reads", 20);
  });

  test("login and registration keep their own limits: they carry no REST bucket", async () => {
    const user = await server.register();
    const login = await server.api("POST", "/api/v1/auth/login", { body: { login: user.username, password: user.password } });
    expect(login.status).toBe(200);
    expect(login.headers.get("x-ratelimit-bucket")).toBeNull();
  });

  test("every 429 is in the API reference of the routes that can answer it", async () => {
    const document = (await (await fetch(`${server.url}/api/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    expect(document.paths["/api/v1/messages/{id}"]!.get!.responses["429"]).toBeDefined();
    expect(document.paths["/api/v1/users/me/info"]!.get!.responses["429"]).toBeDefined();
    expect(document.paths["/api/v1/oauth2/bot/channels/{channelId}/messages"]!.post!.responses["429"]).toBeDefined();
    expect(Object.keys((document.paths["/api/v1/users/me/info"]!.get!.responses["200"] as { headers: object }).headers)).toContain("X-RateLimit-Bucket");
    expect(document.paths["/api/v1/platform/config"]!.get!.responses["429"]).toBeUndefined();
  });
});

describe("with the defaults", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.stop());

  test("a bot fills a channel with 100 messages as fast as it can, then bulk deletes them", async () => {
    const owner = await server.register();
    const serverId = await createServer(server, owner);
    const channelId = (await server.app.store.channels.listByServer(serverId))[0]!.id;
    const bot = await createBot(server, owner);
    await server.api("POST", `/api/v1/oauth2/applications/${bot.appId}/servers/${serverId}`, { token: owner.token, body: { permissions: DEFAULT_BOT_PERMISSIONS | PERMISSIONS.MANAGE_MESSAGES } });
    const sent = await Promise.all(Array.from({ length: 100 }, (_, i) => server.api("POST", `/api/v1/oauth2/bot/channels/${channelId}/messages`, { token: bot.token, body: { content: `fill ${i}` } })));
    expect(sent.map((res) => res.status)).toEqual(Array(100).fill(201));
    expect(sent.map((res) => Number(res.headers.get("x-ratelimit-remaining"))).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    const deleted = await server.api("POST", `/api/v1/oauth2/bot/channels/${channelId}/messages/bulk-delete`, { token: bot.token, body: { message_ids: sent.map((res) => res.body.id) } });
    expect(deleted.status).toBe(200);
    expectRateHeaders(deleted, "messages.write", 100, 99);
    // The 101st send in the window is refused.
    expect429(await server.api("POST", `/api/v1/oauth2/bot/channels/${channelId}/messages`, { token: bot.token, body: { content: "101" } }), "messages.send", /too many messages/);
  });

  test("a person's ordinary session never meets a limit", async () => {
    const c = await community(server);
    for (let i = 0; i < 20; i++) {
      const page = await server.api("GET", `/api/v1/messages/${c.channelId}`, { token: c.member.token });
      expect(page.status).toBe(200);
      const sent = await server.api("POST", `/api/v1/messages/${c.channelId}`, { token: c.member.token, body: { content: `chat ${i}` } });
      expect(sent.status).toBe(201);
      expect((await server.api("PUT", `/api/v1/messages/${c.channelId}/reactions/${sent.body.id}`, { token: c.member.token, body: { emoji: "👍" } })).status).toBe(200);
    }
    expectRateHeaders(await server.api("GET", "/api/v1/users/me/info", { token: c.member.token }), "reads", 500, 479);
  });
});

describe("configuration", () => {
  test("REST_RATE_<FAMILY> takes <requests>/<seconds>s; anything else stops the start naming it", () => {
    const config = loadConfig({ REST_RATE_SENDS: "30/5s", REST_RATE_READS: "1000/60s" });
    expect(config.restRateLimits).toMatchObject({ sends: { requests: 30, windowSeconds: 5 }, reads: { requests: 1000, windowSeconds: 60 }, reactions: { requests: 50, windowSeconds: 10 } });
    expect(loadConfig({}).restRateLimits).toEqual({
      sends: { requests: 100, windowSeconds: 10 },
      "user-sends": { requests: 500, windowSeconds: 10 },
      "message-writes": { requests: 100, windowSeconds: 10 },
      reactions: { requests: 50, windowSeconds: 10 },
      reads: { requests: 500, windowSeconds: 10 },
      writes: { requests: 200, windowSeconds: 10 },
    });
    for (const [name, value] of [
      ["REST_RATE_SENDS", "100"],
      ["REST_RATE_WRITES", "0/10s"],
      ["REST_RATE_REACTIONS", "10/0s"],
      ["REST_RATE_MESSAGE_WRITES", "10 per second"],
    ] as const) {
      expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
      expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`${name} must look like 100/10s`));
    }
  });
});
