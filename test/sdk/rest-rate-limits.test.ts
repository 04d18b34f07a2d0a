/**
 * The SDK's REST client keeps to the server's rate-limit buckets by itself (sdk/src/rest-buckets.ts,
 * docs/operations.md "Rate limits"): it learns each route's bucket from the `X-RateLimit-*`
 * headers, queues calls per bucket and sends none a bucket has no room for, so loops and bursts
 * of sends see no 429 at all. Every answer is counted on the wire by a fetch wrapper.
 *
 * The tests of sends start the server with a sends window of one second (`REST_RATE_SENDS`, the
 * smallest the setting takes) instead of the default ten, so that 1,000 sends take ten windows
 * of a second rather than a hundred seconds. The queues work the same at the defaults: 120
 * awaited sends got 0 answers 429 in 10.3 to 10.5 s (one wait for the 10 s window) over three
 * runs of a test left out of the suite for its time.
 */
import { afterAll, expect, test } from "bun:test";
import { createBot, HearthApiError, RestClient, type FetchLike } from "../../sdk/src/index.ts";
import type { Config } from "../../src/config.ts";
import { DEFAULT_REST_RATE_LIMITS, type RestRateLimits } from "../../src/http/rate-limit-families.ts";
import { community } from "../helpers/community.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const servers: TestServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.stop();
});

async function setUp(limits: Partial<RestRateLimits> = {}, more: Partial<Config> = {}) {
  const config: Partial<Config> = { restRateLimits: { ...DEFAULT_REST_RATE_LIMITS, ...limits }, ...more };
  const server = await startServer(config);
  servers.push(server);
  const place = await community(server, { bot: true });
  return { server, place };
}

/** fetch, counting every answer by status. */
function wire() {
  const statuses = new Map<number, number>();
  const fetchCounted: FetchLike = async (url, init) => {
    const response = await fetch(url, init);
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    return response;
  };
  return { fetch: fetchCounted, count: (status: number) => statuses.get(status) ?? 0 };
}

async function storedWithPrefix(server: TestServer, token: string, channelId: string, prefix: string): Promise<number> {
  let stored = 0;
  let before: string | undefined;
  for (;;) {
    const page = await server.api("GET", `/api/v1/messages/${channelId}?limit=100${before ? `&before=${before}` : ""}`, { token });
    expect(page.status).toBe(200);
    stored += page.body.filter((m: { content: string }) => m.content.startsWith(prefix)).length;
    if (page.body.length < 100) return stored;
    before = page.body.at(-1).id;
  }
}

const ONE_SECOND_SENDS = { sends: { requests: 100, windowSeconds: 1 }, "user-sends": { requests: 500, windowSeconds: 1 } };

test("1,000 awaited sends from one bot: 0 answered 429, all 1,000 stored", async () => {
  const { server, place } = await setUp(ONE_SECOND_SENDS);
  const counted = wire();
  // A started bot, as a real one: it has read the instance's published limits.
  const bot = await createBot({ url: server.url, token: place.bot.token, fetch: counted.fetch, reconnect: false }).start();
  const began = performance.now();
  for (let i = 0; i < 1000; i++) await bot.rest.sendMessage(place.channelId, { content: `loop ${i}` });
  const seconds = (performance.now() - began) / 1000;
  bot.stop();
  console.log(`1,000 awaited REST sends at 100 per 1 s: ${seconds.toFixed(1)} s, ${counted.count(201)} sent, ${counted.count(429)} answered 429`);
  expect(counted.count(429)).toBe(0);
  expect(counted.count(201)).toBe(1000);
  // Ten windows of 100: at least nine resets waited for.
  expect(seconds).toBeGreaterThan(9);
  expect(await storedWithPrefix(server, place.owner.token, place.channelId, "loop ")).toBe(1000);
}, 60_000);

test("a burst of 250 concurrent sends, 2.5 windows' worth: all sent, 0 answered 429", async () => {
  const { server, place } = await setUp(ONE_SECOND_SENDS);
  const counted = wire();
  const rest = new RestClient({ baseUrl: server.url, token: place.bot.token, fetch: counted.fetch });
  const sent = await Promise.all(Array.from({ length: 250 }, (_, i) => rest.sendMessage(place.channelId, { content: `burst ${i}` })));
  console.log(`250 concurrent sends at 100 per 1 s: ${counted.count(201)} sent, ${counted.count(429)} answered 429`);
  expect(sent.length).toBe(250);
  expect(counted.count(429)).toBe(0);
  expect(await storedWithPrefix(server, place.owner.token, place.channelId, "burst ")).toBe(250);
}, 30_000);

test("the attack it prevents: the same burst without the queue is answered 429", async () => {
  const { server, place } = await setUp(ONE_SECOND_SENDS);
  const counted = wire();
  const rest = new RestClient({ baseUrl: server.url, token: place.bot.token, fetch: counted.fetch, rateLimitQueue: false, retriesOn429: 0 });
  const results = await Promise.allSettled(Array.from({ length: 250 }, (_, i) => rest.sendMessage(place.channelId, { content: `raw ${i}` })));
  const refused = results.filter((r) => r.status === "rejected");
  expect(counted.count(429)).toBeGreaterThan(0);
  expect(refused.length).toBe(counted.count(429));
  expect((refused[0] as PromiseRejectedResult).reason).toMatchObject({ status: 429 });
}, 30_000);

test("buckets do not wait for each other: with one channel's sends spent, another channel's sends and the reads go at once; a queued call aborts", async () => {
  const { server, place } = await setUp({ sends: { requests: 5, windowSeconds: 3 } });
  const other = await server.api("POST", `/api/v1/channels/${place.serverId}`, { token: place.owner.token, body: { name: "other", type: "text" } });
  expect(other.status).toBe(201);
  const counted = wire();
  const rest = new RestClient({ baseUrl: server.url, token: place.bot.token, fetch: counted.fetch });
  // A read first, so the client knows the reads' bucket: a queue of its own, not the route's first call.
  await rest.listMessages(place.channelId, { limit: 1 });
  const began = performance.now();
  const held = Array.from({ length: 8 }, (_, i) => rest.sendMessage(place.channelId, { content: `held ${i}` }));
  // The first five go; three wait for the window's end.
  let done = 0;
  for (const send of held) void send.then(() => done++);
  await Bun.sleep(300);
  expect(done).toBe(5);

  const elsewhere = performance.now();
  const inOther = await rest.sendMessage(other.body.id, { content: "not held" });
  expect(inOther.channel_id).toBe(other.body.id);
  expect((await rest.listMessages(place.channelId, { limit: 5 })).length).toBe(5);
  expect(performance.now() - elsewhere).toBeLessThan(1000);
  expect(done).toBe(5);

  // A call waiting in the spent queue gives up when its signal aborts, and is never sent.
  const controller = new AbortController();
  const behind = rest.sendMessage(place.channelId, { content: "behind the aborted" });
  const abortable = rest.request("botSendMessage", { params: { channelId: place.channelId }, body: { content: "aborted", nonce: "n-aborted", enforce_nonce: true }, signal: controller.signal });
  setTimeout(() => controller.abort(), 50);
  const error = await abortable.then(
    () => null,
    (e: unknown) => e as Error,
  );
  expect(error?.name).toBe("AbortError");
  expect(performance.now() - began).toBeLessThan(2000);

  await Promise.all([...held, behind]);
  expect(counted.count(429)).toBe(0);
  expect(await storedWithPrefix(server, place.owner.token, place.channelId, "held ")).toBe(8);
  expect(await storedWithPrefix(server, place.owner.token, place.channelId, "aborted")).toBe(0);
  expect(await storedWithPrefix(server, place.owner.token, place.channelId, "behind the aborted")).toBe(1);
}, 30_000);

test("a 429 the client could not foresee (another process spent the bucket) is waited out and retried, within maxRateLimitWait", async () => {
  const { server, place } = await setUp({ sends: { requests: 5, windowSeconds: 2 } });
  // Another process with the same token spends the channel's window.
  const otherProcess = new RestClient({ baseUrl: server.url, token: place.bot.token });
  for (let i = 0; i < 5; i++) await otherProcess.sendMessage(place.channelId, { content: `other ${i}` });

  const impatient = wire();
  const capped = new RestClient({ baseUrl: server.url, token: place.bot.token, fetch: impatient.fetch, maxRateLimitWait: 500 });
  const error = await capped.sendMessage(place.channelId, { content: "capped" }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HearthApiError);
  expect(error).toMatchObject({ status: 429 });
  expect((error as HearthApiError).retryAfter).toBeGreaterThanOrEqual(1);

  const counted = wire();
  const rest = new RestClient({ baseUrl: server.url, token: place.bot.token, fetch: counted.fetch });
  const began = performance.now();
  const sent = await Promise.all(Array.from({ length: 3 }, (_, i) => rest.sendMessage(place.channelId, { content: `after ${i}` })));
  expect(sent.length).toBe(3);
  // One probe refused, then the queue waited the window out for every call behind it.
  expect(counted.count(429)).toBe(1);
  expect(performance.now() - began).toBeGreaterThan(500);
}, 30_000);

/** 300 concurrent sends over 4 channels, with 100 per channel and 150 over all channels per second. */
async function sharedBurst(published: boolean) {
  const { server, place } = await setUp({ sends: { requests: 100, windowSeconds: 1 }, "user-sends": { requests: 150, windowSeconds: 1 } });
  const channels = [place.channelId];
  for (let i = 0; i < 3; i++) {
    const made = await server.api("POST", `/api/v1/channels/${place.serverId}`, { token: place.owner.token, body: { name: `c${i}`, type: "text" } });
    expect(made.status).toBe(201);
    channels.push(made.body.id);
  }
  const counted = wire();
  const rest = new RestClient({ baseUrl: server.url, token: place.bot.token, fetch: counted.fetch });
  if (published) rest.setRateLimits((await rest.request("getPlatformConfig")).rest_limits);
  const began = performance.now();
  const sent = await Promise.all(channels.flatMap((channelId, c) => Array.from({ length: 75 }, (_, i) => rest.sendMessage(channelId, { content: `shared ${c} ${i}` }))));
  const seconds = (performance.now() - began) / 1000;
  console.log(`300 concurrent sends over 4 channels, 150 per 1 s over all, ${published ? "with" : "without"} the published limits: ${counted.count(201)} sent, ${counted.count(429)} answered 429, ${seconds.toFixed(1)} s`);
  expect(sent.length).toBe(300);
  expect(counted.count(201)).toBe(300);
  let stored = 0;
  for (const channelId of channels) stored += await storedWithPrefix(server, place.owner.token, channelId, "shared ");
  expect(stored).toBe(300);
  return counted.count(429);
}

test("a limit over several buckets (the sends over all channels), published by the instance: counted by the client, 0 answered 429", async () => {
  expect(await sharedBurst(true)).toBe(0);
}, 30_000);

test("the same limit unpublished: its first 429 stops every channel's queue until it resets; all sends succeed", async () => {
  // Its headers come only with its 429s, so the calls over it already sent when the first 429
  // arrives are refused too; each is refused once, none twice.
  expect(await sharedBurst(false)).toBeLessThanOrEqual(150);
}, 30_000);

test("a 429 of a route's own limit (a credential budget, with room left in its bucket) stops only that call: the bucket's other calls go on", async () => {
  // The failure budget at its default (the test servers raise it).
  const { server, place } = await setUp({}, { loginFailuresPerAccountPerMinute: 10 });
  const counted = wire();
  const rest = new RestClient({ baseUrl: server.url, token: place.member.token, fetch: counted.fetch, maxRateLimitWait: 1000 });
  // A write first, so the client knows its bucket (`writes`, the same as a password change's).
  await rest.request("setCustomStatus", { body: { text: "here" } });
  // Wrong current passwords until the account's failure budget (10 a minute from one address) is spent.
  let refusal: HearthApiError | null = null;
  for (let i = 0; i < 12 && !refusal; i++) {
    const error = await rest.request("changePassword", { body: { currentPassword: "not-the-password", newPassword: "another-password-1" } }).then(
      () => null,
      (e: unknown) => e as HearthApiError,
    );
    expect(error).toBeInstanceOf(HearthApiError);
    if (error!.status === 429) refusal = error;
  }
  // Its wait (the budget's 60 s window) is past maxRateLimitWait: thrown at once, not waited out.
  expect(refusal).toMatchObject({ status: 429 });
  expect(refusal!.retryAfter).toBeGreaterThan(1);
  expect(counted.count(429)).toBe(1);
  // The writes bucket it counts in has room: another write goes at once.
  const began = performance.now();
  await rest.request("setCustomStatus", { body: { text: "still here" } });
  expect(performance.now() - began).toBeLessThan(500);
}, 30_000);
