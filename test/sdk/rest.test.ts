/**
 * The SDK's REST client against a real server. Every answer it gets passes through
 * checkAgainstReference (the same check as api()), so the SDK's calls are documented ones and
 * the bodies match the documented schemas its types come from.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { HearthApiError, RestClient, type FetchLike } from "../../sdk/src/index.ts";
import { community, type Community } from "../helpers/community.ts";
import { checkAgainstReference } from "../helpers/reference.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let place: Community & { bot: { token: string; botUserId: string } };
let checked = 0;

/** fetch, with every answer held to the API reference. */
const checkedFetch: FetchLike = async (url, init) => {
  const response = await fetch(url, init);
  const text = await response.clone().text();
  const type = response.headers.get("content-type") ?? "";
  await checkAgainstReference(server.url, { method: init.method ?? "GET", path: url.pathname + url.search, status: response.status, contentType: type, body: type.includes("json") && text ? JSON.parse(text) : text });
  checked++;
  return response;
};

const client = (token: string | null) => new RestClient({ baseUrl: server.url, token, fetch: checkedFetch });

beforeAll(async () => {
  server = await startServer();
  place = await community(server, { bot: true });
});
afterAll(() => server.stop());

test("request() fills path parameters, query and body, and answers the documented type", async () => {
  const rest = client(place.bot.token);
  const sent = await rest.request("botSendMessage", { params: { channelId: place.channelId }, body: { content: "hello" } });
  expect(sent).toMatchObject({ channel_id: place.channelId, content: "hello", user_id: place.bot.botUserId });
  const page = await rest.request("botListMessages", { params: { channelId: place.channelId }, query: { limit: 1 } });
  expect(page.map((m) => m.id)).toEqual([sent.id]);
  const me = await rest.request("getMe");
  expect(me.id).toBe(place.bot.botUserId);
  // Short names for what bots do all the time.
  const edited = await rest.editMessage(place.channelId, sent.id, { content: "edited" });
  expect(edited.content).toBe("edited");
  expect(await rest.deleteMessage(place.channelId, sent.id)).toEqual({ success: true });
  expect(checked).toBeGreaterThanOrEqual(5);
});

test("an error status throws HearthApiError with the server's message and status", async () => {
  const rest = client(place.bot.token);
  const expectError = async (call: Promise<unknown>, status: number, message: string | RegExp) => {
    const error = await call.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(HearthApiError);
    expect((error as HearthApiError).status).toBe(status);
    expect((error as HearthApiError).error).toMatch(message);
  };
  await expectError(client(null).request("getMe"), 401, /./);
  await expectError(client("not-a-token").request("getMe"), 401, /./);
  await expectError(client(place.owner.token).request("botSendMessage", { params: { channelId: place.channelId }, body: { content: "x" } }), 403, "This route needs a bot token");
  await expectError(rest.sendMessage("00000000-0000-4000-8000-000000000000", { content: "x" }), 404, "Channel not found");
  await expectError(rest.listMessages(place.channelId, { limit: 101 }), 400, /limit/);
});

test("messagesSince pages forward through everything after an id, oldest first", async () => {
  const rest = client(place.bot.token);
  const first = await rest.sendMessage(place.channelId, { content: "before" });
  const sent: string[] = [];
  for (let i = 0; i < 7; i++) sent.push((await rest.sendMessage(place.channelId, { content: `m${i}` })).id);
  const seen: string[] = [];
  for await (const message of rest.messagesSince(place.channelId, first.id, 3)) seen.push(message.id);
  expect(seen).toEqual(sent);
  // From the start of the channel.
  const all: string[] = [];
  for await (const message of rest.messagesSince(place.channelId, null, 4)) all.push(message.content);
  expect(all.slice(-8)).toEqual(["before", "m0", "m1", "m2", "m3", "m4", "m5", "m6"]);
});

test("multipart bodies are sent as forms", async () => {
  const png = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="), (c) => c.charCodeAt(0));
  const rest = client(place.owner.token);
  const serverView = await rest.request("setServerIcon", { params: { id: place.serverId }, body: { icon: new Blob([png], { type: "image/png" }) } });
  expect(serverView.icon).toMatch(/^\/uploads\//);
});

test("a 429 is retried after its Retry-After, then reported", async () => {
  let calls = 0;
  const limited: FetchLike = async () => {
    calls++;
    return new Response(JSON.stringify({ error: "Too many requests" }), { status: 429, headers: { "content-type": "application/json", "retry-after": "0.01" } });
  };
  const rest = new RestClient({ baseUrl: server.url, token: place.bot.token, fetch: limited, retriesOn429: 2 });
  const error = await rest.request("getMe").catch((e: unknown) => e);
  expect(calls).toBe(3);
  expect(error).toMatchObject({ status: 429, error: "Too many requests", retryAfter: 0.01 });
});

test("a token given as a function is asked on every call; a 401 to a call that carried one calls onUnauthorized", async () => {
  let token: string | null = place.owner.token;
  let refusals = 0;
  const rest = new RestClient({ baseUrl: server.url, token: () => token, fetch: checkedFetch, onUnauthorized: () => refusals++ });
  expect((await rest.request("getMe")).id).toBe(place.owner.id);
  token = "not-a-token";
  expect(await rest.request("getMe").catch((e: unknown) => e)).toMatchObject({ status: 401 });
  expect(refusals).toBe(1);
  // Without a token a 401 is an ordinary refusal (a wrong password at login), not a session that ended.
  token = null;
  expect(await rest.request("login", { body: { login: "nobody", password: "wrong-password" } }).catch((e: unknown) => e)).toMatchObject({ status: 401 });
  expect(refusals).toBe(1);
});

test("a call that gets no answer is a HearthApiError with status 0; an aborted one throws the AbortError", async () => {
  const rest = new RestClient({ baseUrl: "http://127.0.0.1:9", token: null });
  const unreachable = await rest.request("getPlatformConfig").catch((e: unknown) => e);
  expect(unreachable).toBeInstanceOf(HearthApiError);
  expect(unreachable).toMatchObject({ status: 0, error: "Cannot reach the server. Check your connection and try again." });
  const aborted = await client(place.owner.token)
    .request("getMe", { signal: AbortSignal.abort() })
    .catch((e: unknown) => e);
  expect((aborted as Error).name).toBe("AbortError");
});
