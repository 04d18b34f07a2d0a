/**
 * The SDK's gateway connection against a real server: typed acks, refusals, and reconnecting
 * after the server drops it (rooms joined again, presence and activity sent again, `resumed`
 * with the window and what was missed, which messagesSince then fetches).
 */
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { CLOSED, createBot, Gateway, HearthAckError, type Bot, type ReconnectOptions, type ResumedInfo } from "../../sdk/src/index.ts";
import { community, type Community } from "../helpers/community.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { eventually, quietWindow, until } from "../helpers/wait.ts";

let server: TestServer;
let place: Community & { bot: { token: string; botUserId: string } };
const bots: Bot[] = [];

beforeAll(async () => {
  server = await startServer();
  place = await community(server, { bot: true });
});
// Each test's bots are stopped when it ends, passed or not, and the server has let go of them
// before the next test (they share the bot user): one failure does not fail the tests after it.
afterEach(async () => {
  for (const bot of bots.splice(0)) bot.stop();
  await eventually(async () => (await server.app.io.in(`user:${place.bot.botUserId}`).fetchSockets()).length === 0, "the bot's sockets to close");
});
afterAll(async () => {
  await server.stop();
});

async function started(token = place.bot.token, reconnect: ReconnectOptions = { initialDelayMs: 50, maxDelayMs: 200 }): Promise<Bot> {
  const bot = createBot({ url: server.url, token, reconnect });
  bots.push(bot);
  return bot.start();
}

const within = <T>(promise: Promise<T>, ms = 5000) =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`not within ${ms} ms`)), ms))]);

test("emit() resolves with the ack's fields and throws HearthAckError on a refusal", async () => {
  const bot = await started();
  expect(await bot.gateway.emit("server:join", place.serverId)).toEqual({ ok: true, serverId: place.serverId });
  const refused = await bot.gateway.emit("channel:join", "not-an-id").catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(HearthAckError);
  expect((refused as HearthAckError).error).toBe("channelId: must be a channel id");
  const sent = await bot.send(place.channelId, "over the gateway");
  expect(sent).toMatchObject({ content: "over the gateway", user_id: place.bot.botUserId });
  bot.stop();
});

test("a bad token fails start() with Unauthorized", async () => {
  const bot = createBot({ url: server.url, token: "bad" });
  await expect(bot.start()).rejects.toThrow();
  const gateway = new Gateway({ baseUrl: server.url, token: "bad" });
  await expect(gateway.connect()).rejects.toThrow("could not connect to the gateway: Unauthorized");
});

test("after the server drops it, the bot reconnects, joins its rooms again, re-sends its activity and says what it missed", async () => {
  const bot = await started();
  await bot.joinServer(place.serverId);
  await bot.joinChannel(place.channelId);
  await bot.setPresence("dnd", { type: "playing", name: "dice" });
  const seen: string[] = [];
  bot.on("message:new", (message) => void seen.push(message.content));

  const before = await server.api("POST", `/api/v1/messages/${place.channelId}`, { token: place.owner.token, body: { content: "before the drop" } });
  await until(() => seen.includes("before the drop"), "the message before the drop");

  const disconnected = new Promise<{ reason: string }>((resolve) => bot.on("disconnected", resolve));
  const resumed = new Promise<ResumedInfo>((resolve) => bot.on("resumed", resolve));
  server.app.io.in(`user:${place.bot.botUserId}`).disconnectSockets();
  expect((await within(disconnected)).reason).toBe("io server disconnect");
  // Said while the bot was away.
  const missed = await server.api("POST", `/api/v1/messages/${place.channelId}`, { token: place.owner.token, body: { content: "while away" } });
  const info = await within(resumed);

  expect(info.reason).toBe("io server disconnect");
  // A drop the server asked for is not resumed: nothing replayed, the bot fetches.
  expect(info.recovered).toBe(false);
  expect(info.downtimeMs).toBeGreaterThanOrEqual(0);
  expect(info.reconnectedAt).toBeGreaterThanOrEqual(info.disconnectedAt);
  expect(info.lastMessageIds).toEqual({ [place.channelId]: before.body.id });
  expect(info.lostRooms).toEqual([]);
  const fetched: string[] = [];
  for await (const message of bot.rest.messagesSince(place.channelId, info.lastMessageIds[place.channelId]!)) fetched.push(message.id);
  expect(fetched).toEqual([missed.body.id]);

  // The channel room is joined again: new messages arrive.
  await server.api("POST", `/api/v1/messages/${place.channelId}`, { token: place.owner.token, body: { content: "after" } });
  await until(() => seen.includes("after"), "the message after the resume");
  // Presence and activity were sent again (the server drops an activity when the bot's last socket closes).
  const user = await server.api("GET", `/api/v1/oauth2/bot/users/${place.bot.botUserId}`, { token: place.bot.token });
  expect(user.body.status).toBe("dnd");
  expect(user.body.activity).toMatchObject({ type: "playing", name: "dice" });
  bot.stop();
});

test("a transport drop reconnects too, and a room lost meanwhile is reported", async () => {
  // The first retry comes 1 s after the drop, after the kick below (with 50 ms it could come before).
  const bot = await started(place.bot.token, { initialDelayMs: 1000, maxDelayMs: 1000, jitter: 0 });
  const member = await server.register();
  const other = await server.api("POST", "/api/v1/servers", { token: member.token, body: { name: "Elsewhere" } });
  const invite = await server.api("POST", `/api/v1/servers/${other.body.id}/invites`, { token: member.token, body: {} });
  // The bot cannot join a server by invite; add it as the owner would.
  const app = (await server.api("GET", "/api/v1/oauth2/applications", { token: place.owner.token })).body[0];
  expect(invite.status).toBe(201);
  await server.api("POST", `/api/v1/oauth2/invite/${place.bot.botUserId}/add/${other.body.id}`, { token: member.token, body: { permissions: app.default_permissions } });
  await bot.joinServer(other.body.id);
  const resumed = new Promise<ResumedInfo>((resolve) => bot.on("resumed", resolve));
  const disconnected = new Promise<{ reason: string }>((resolve) => bot.on("disconnected", resolve));
  // The bot is kicked while it is away, then its connection drops.
  for (const socket of await server.app.io.in(`user:${place.bot.botUserId}`).fetchSockets()) (socket as unknown as { conn: { close(): void } }).conn.close();
  expect((await within(disconnected)).reason).toBe("transport close");
  await server.api("DELETE", `/api/v1/servers/${other.body.id}/members/${place.bot.botUserId}`, { token: member.token });
  const info = await within(resumed);
  expect(info.reason).toBe("transport close");
  // A room lost meanwhile: the server does not resume the session.
  expect(info.recovered).toBe(false);
  expect(info.lostRooms).toEqual([{ kind: "server", id: other.body.id, error: "You are not a member of this server" }]);
  expect(bot.gateway.rooms().servers).toEqual([]);
  bot.stop();
});

test("a transport drop within the window is resumed: what was missed arrives, in order, before resumed {recovered: true}", async () => {
  // The first retry comes 1 s after the drop, after the messages below are sent.
  const bot = await started(place.bot.token, { initialDelayMs: 1000, maxDelayMs: 1000, jitter: 0 });
  await bot.joinChannel(place.channelId);
  const seen: string[] = [];
  bot.on("message:new", (message) => void seen.push(message.content));
  const first = await server.api("POST", `/api/v1/messages/${place.channelId}`, { token: place.owner.token, body: { content: "seen live" } });
  expect(first.status).toBe(201);
  await until(() => seen.includes("seen live"), "the live message");
  const disconnected = new Promise<{ reason: string }>((resolve) => bot.on("disconnected", resolve));
  let seenAtResume: string[] = [];
  const resumed = new Promise<ResumedInfo>((resolve) =>
    bot.on("resumed", (info) => {
      seenAtResume = [...seen];
      resolve(info);
    }),
  );
  const sockets = await server.app.io.in(`user:${place.bot.botUserId}`).fetchSockets();
  for (const socket of sockets) (socket as unknown as { conn: { close(): void } }).conn.close();
  expect((await within(disconnected)).reason).toBe("transport close");
  for (const content of ["missed 1", "missed 2"]) {
    expect((await server.api("POST", `/api/v1/messages/${place.channelId}`, { token: place.owner.token, body: { content } })).status).toBe(201);
  }
  const info = await within(resumed);
  expect(info.recovered).toBe(true);
  expect(seenAtResume).toEqual(["seen live", "missed 1", "missed 2"]);
  await quietWindow(); // nothing delivered twice after the replay
  expect(seen).toEqual(["seen live", "missed 1", "missed 2"]);
  bot.stop();
});

test("backoff doubles from the first wait up to the cap, shortened by the jitter", () => {
  const options = { initialDelayMs: 100, maxDelayMs: 1000, jitter: 0.5 };
  expect([0, 1, 2, 3, 4, 5].map((n) => Gateway.backoff(n, options, () => 0))).toEqual([100, 200, 400, 800, 1000, 1000]);
  expect(Gateway.backoff(2, options, () => 1)).toBe(200);
});

test("stop() closes for good: no reconnect", async () => {
  const bot = await started();
  const closed = new Promise<{ reason: string }>((resolve) => bot.on("closed", resolve));
  bot.stop();
  expect((await within(closed)).reason).toBe("closed by the bot");
  await quietWindow(150); // three times the first reconnect delay (50 ms)
  expect(bot.gateway.connected).toBe(false);
  expect(await server.app.io.in(`user:${place.bot.botUserId}`).fetchSockets()).toHaveLength(0);
});

test("emit() after the connection closed for good fails at once, saying so", async () => {
  const bot = await started();
  bot.stop();
  const began = performance.now();
  const error = await bot.gateway.emit("status:set", { status: "dnd" }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(HearthAckError);
  expect((error as HearthAckError).error).toBe(CLOSED);
  expect(performance.now() - began).toBeLessThan(100);
});
