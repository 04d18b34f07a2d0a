/**
 * The SDK's bulk subscriptions against a real server (docs/gateway.md, "Bulk subscriptions"): a
 * bot that subscribes to everything receives every message, of channels and servers added later
 * too, and is subscribed again after the server drops it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createBot, type Bot, type ResumedInfo } from "../../sdk/src/index.ts";
import { community, createServer, type Community } from "../helpers/community.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { until } from "../helpers/wait.ts";

let server: TestServer;
let place: Community & { bot: { token: string; botUserId: string; appId: string } };
beforeAll(async () => {
  server = await startServer();
  place = await community(server, { bot: true });
});
afterAll(() => server.stop());

async function channel(serverId: string, name: string): Promise<string> {
  const res = await server.api("POST", `/api/v1/channels/${serverId}`, { token: place.owner.token, body: { name, type: "text" } });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function say(channelId: string, content: string): Promise<string> {
  const res = await server.api("POST", `/api/v1/messages/${channelId}`, { token: place.owner.token, body: { content } });
  expect(res.status).toBe(201);
  return res.body.id;
}

const within = <T>(promise: Promise<T>, ms = 5000) =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`not within ${ms} ms`)), ms))]);

test("subscribeAll: every message of every channel, of channels and servers added later, and again after a reconnect", async () => {
  const second = await channel(place.serverId, "second");
  const bot: Bot = createBot({ url: server.url, token: place.bot.token, reconnect: { initialDelayMs: 50, maxDelayMs: 200 }, subscribeAll: true });
  try {
    await bot.start();
    const seen: string[] = [];
    bot.on("message:new", (message) => void seen.push(message.content));
    expect(bot.gateway.subscriptions().all).toEqual({ channels: true });
    expect(bot.gateway.subscriptions().channels.sort()).toEqual([place.channelId, second].sort());
    expect(bot.gateway.rooms()).toEqual({ servers: [], channels: [] });
    await say(place.channelId, "general");
    await say(second, "second");
    await until(() => seen.length === 2, "both channels' messages");

    // Created later, and a server the bot is added to later.
    const later = await channel(place.serverId, "later");
    await say(later, "later");
    const elsewhere = await createServer(server, place.owner, "Elsewhere");
    const added = await server.api("POST", `/api/v1/oauth2/applications/${place.bot.appId}/servers/${elsewhere}`, { token: place.owner.token, body: {} });
    expect(added.status).toBeLessThan(300);
    const [general] = await server.app.store.channels.listByServer(elsewhere);
    await say(general!.id, "elsewhere");
    await until(() => seen.includes("later") && seen.includes("elsewhere"), "the later channel's and server's messages");

    // A drop the server asks for is not resumed: the SDK subscribes again.
    const resumed = new Promise<ResumedInfo>((resolve) => bot.on("resumed", resolve));
    server.app.io.in(`user:${place.bot.botUserId}`).disconnectSockets();
    const info = await within(resumed);
    expect(info.recovered).toBe(false);
    // The channels it followed are in lastMessageIds, with the last message each had.
    expect(info.lastMessageIds[later]).toEqual(expect.any(String));
    expect(Object.keys(info.lastMessageIds)).toContain(general!.id);
    const afterDrop = await channel(place.serverId, "after-drop");
    await say(afterDrop, "after the drop");
    await until(() => seen.includes("after the drop"), "a channel created after the reconnect");
    // Every channel room is back, the ones it followed included.
    const socket = (await server.app.io.in(`user:${place.bot.botUserId}`).fetchSockets())[0]!;
    expect([place.channelId, second, later, general!.id, afterDrop].every((id) => socket.rooms.has(`channel:${id}`))).toBe(true);

    await bot.gateway.unsubscribeAll();
    expect(bot.gateway.subscriptions().all).toBeNull();
    expect([...(await server.app.io.in(`user:${place.bot.botUserId}`).fetchSockets())[0]!.rooms].filter((room) => room.startsWith("channel:"))).toEqual([]);
  } finally {
    bot.stop();
  }
});

test("joinAllChannels(serverId): one server's channels, followed, and left with leaveAllChannels", async () => {
  const bot: Bot = createBot({ url: server.url, token: place.bot.token, reconnect: false });
  try {
    await bot.start();
    const joined = await bot.joinAllChannels(place.serverId);
    expect(joined).toContain(place.channelId);
    const seen: string[] = [];
    bot.on("message:new", (message) => void seen.push(message.content));
    const fresh = await channel(place.serverId, "fresh");
    await say(fresh, "fresh");
    await until(() => seen.includes("fresh"), "the new channel's message");
    expect(bot.gateway.subscriptions().allChannelsOf).toEqual([place.serverId]);
    await bot.gateway.leaveAllChannels(place.serverId);
    expect(bot.gateway.subscriptions().allChannelsOf).toEqual([]);
    const socket = (await server.app.io.in(`user:${place.bot.botUserId}`).fetchSockets())[0]!;
    expect(socket.rooms.has(`channel:${fresh}`)).toBe(false);
  } finally {
    bot.stop();
  }
});
