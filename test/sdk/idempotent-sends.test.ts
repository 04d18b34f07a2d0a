/**
 * The SDK's idempotent sends (docs/messages.md, "Idempotent sends"): every send carries a nonce
 * with enforce_nonce, and a send whose answer was lost (the connection reset after the server
 * got the request) or answered 5xx is tried again with the same nonce, storing one message.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createBot, defineCommand, HearthApiError, RestClient, type FetchLike } from "../../sdk/src/index.ts";
import { community, joinChannel, type Community } from "../helpers/community.ts";
import { recordEvents, startServer, waitForEvent, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let place: Community & { bot: { token: string; botUserId: string } };
beforeAll(async () => {
  server = await startServer();
  place = await community(server, { bot: true });
});
afterAll(() => server.stop());

const history = async () => (await server.api("GET", `/api/v1/messages/${place.channelId}?limit=100`, { token: place.owner.token })).body as any[];

/**
 * A transport that loses the first `lost` answers: the request reaches the server, which stores
 * the message, and the client sees a reset connection instead of the answer.
 */
function losingAnswers(lost: number): { fetch: FetchLike; bodies: string[] } {
  const bodies: string[] = [];
  return {
    bodies,
    fetch: async (url, init) => {
      bodies.push(String(init.body));
      const response = await fetch(url, init);
      if (bodies.length > lost) return response;
      await response.body?.cancel();
      throw new TypeError("fetch failed: socket hang up (ECONNRESET)");
    },
  };
}

test("sendMessage carries a fresh nonce with enforce_nonce, echoed in the message", async () => {
  const rest = new RestClient({ baseUrl: server.url, token: place.bot.token });
  const a = await rest.sendMessage(place.channelId, { content: "one" });
  const b = await rest.sendMessage(place.channelId, { content: "two" });
  expect(a.nonce).toMatch(/^[0-9a-f]{25}$/);
  expect(b.nonce).not.toBe(a.nonce);
  // A nonce of the caller's own is kept.
  expect((await rest.sendMessage(place.channelId, { content: "three", nonce: "mine-1" })).nonce).toBe("mine-1");
});

test("a send whose answers were lost twice is retried with the same nonce: one message, one message:new", async () => {
  const listener = await joinChannel(server, place.owner, place.channelId);
  const heard = recordEvents(listener, "message:new");
  const transport = losingAnswers(2);
  const rest = new RestClient({ baseUrl: server.url, token: place.bot.token, fetch: transport.fetch });
  const before = (await history()).length;
  const sent = await rest.sendMessage(place.channelId, { content: "lost answers" });
  expect(transport.bodies).toHaveLength(3);
  const nonces = transport.bodies.map((body) => JSON.parse(body).nonce);
  expect(new Set(nonces)).toEqual(new Set([sent.nonce]));
  expect(transport.bodies.every((body) => JSON.parse(body).enforce_nonce === true)).toBe(true);
  const after = await history();
  expect(after).toHaveLength(before + 1);
  expect(after[0].id).toBe(sent.id);
  const marker = waitForEvent(listener, "message:new", { filter: (m: any) => m.content === "marker" });
  await server.api("POST", `/api/v1/messages/${place.channelId}`, { token: place.owner.token, body: { content: "marker" } });
  await marker;
  expect(heard.filter((m) => m.content === "lost answers")).toHaveLength(1);
});

test("a 5xx is retried with the same nonce; the retries are bounded", async () => {
  let calls = 0;
  const failing: FetchLike = async () => {
    calls++;
    return new Response(JSON.stringify({ error: "Database unavailable" }), { status: 503, headers: { "content-type": "application/json" } });
  };
  const rest = new RestClient({ baseUrl: server.url, token: place.bot.token, fetch: failing, sendRetries: 2 });
  const error = await rest.sendMessage(place.channelId, { content: "never" }).catch((e) => e);
  expect(error).toBeInstanceOf(HearthApiError);
  expect(error.status).toBe(503);
  expect(calls).toBe(3);

  // A call that is not a deduplicated send is not retried.
  calls = 0;
  await rest.request("getMe").catch(() => {});
  expect(calls).toBe(1);
});

test("sendDm carries a nonce too", async () => {
  const rest = new RestClient({ baseUrl: server.url, token: place.bot.token });
  const dm = await rest.sendDm(place.member.id, { content: "hi" });
  expect(dm.nonce).toMatch(/^[0-9a-f]{25}$/);
});

test("Bot.send over the gateway carries a nonce; the same nonce sent again answers the first message", async () => {
  const bot = await createBot({ url: server.url, token: place.bot.token }).start();
  try {
    const first = await bot.send(place.channelId, { content: "gw", nonce: "gw-nonce-1" });
    const again = await bot.send(place.channelId, { content: "gw", nonce: "gw-nonce-1" });
    expect(first.nonce).toBe("gw-nonce-1");
    expect(again.id).toBe(first.id);
    expect((await bot.send(place.channelId, "fresh")).nonce).toMatch(/^[0-9a-f]{25}$/);
  } finally {
    bot.stop();
  }
});

test("a command's reply() carries a nonce (interaction:response)", async () => {
  const bot = createBot({ url: server.url, token: place.bot.token });
  bot.command(defineCommand({ name: "echo", description: "Echo" }), (command) => command.reply("echoed"));
  await bot.start();
  try {
    const listener = await joinChannel(server, place.owner, place.channelId);
    const answer = waitForEvent(listener, "message:new", { filter: (m: any) => m.user_id === place.bot.botUserId && m.content === "echoed" });
    expect((await server.api("POST", `/api/v1/messages/${place.channelId}`, { token: place.member.token, body: { content: "/echo" } })).status).toBe(201);
    expect((await answer).nonce).toMatch(/^[0-9a-f]{25}$/);
  } finally {
    bot.stop();
  }
});
