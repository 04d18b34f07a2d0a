/**
 * The SDK paces its gateway emits by the instance's event limits (sdk/src/pacing.ts,
 * docs/gateway.md "Limits"): a loop of awaited sends is never refused and never disconnected,
 * at the server's defaults and at limits the instance publishes (`gateway_limits`).
 */
import { afterAll, expect, test } from "bun:test";
import { createBot, type Bot } from "../../sdk/src/index.ts";
import { DEFAULT_EVENT_LIMITS } from "../../src/gateway/event-limits.ts";
import { community } from "../helpers/community.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const servers: TestServer[] = [];
const bots: Bot[] = [];
afterAll(async () => {
  for (const bot of bots) bot.stop();
  for (const server of servers) await server.stop();
});

async function sendLoop(limits: typeof DEFAULT_EVENT_LIMITS, sends: number, pace: boolean) {
  const server = await startServer({ gatewayEventLimits: limits });
  servers.push(server);
  const place = await community(server, { bot: true });
  const bot = createBot({ url: server.url, token: place.bot.token, reconnect: false, pace });
  bots.push(bot);
  await bot.start();
  const disconnects: string[] = [];
  bot.gateway.on("disconnected", ({ reason }) => void disconnects.push(reason));
  const refusals: string[] = [];
  const began = performance.now();
  for (let i = 0; i < sends; i++) {
    try {
      await bot.send(place.channelId, `paced ${i}`);
    } catch (error) {
      refusals.push((error as Error).message);
      if (!bot.gateway.connected) break;
    }
  }
  return { refusals, disconnects, seconds: (performance.now() - began) / 1000, server, place };
}

test("at the server's defaults: 150 awaited bot:send_message, 0 refused, no disconnect", async () => {
  const { refusals, disconnects, seconds } = await sendLoop(DEFAULT_EVENT_LIMITS, 150, true);
  expect(refusals).toEqual([]);
  expect(disconnects).toEqual([]);
  // 50 at once, then 100 at 90% of 20 a second.
  expect(seconds).toBeGreaterThan(4);
}, 30_000);

test("the attack it prevents: the same loop unpaced is refused", async () => {
  const { refusals } = await sendLoop(DEFAULT_EVENT_LIMITS, 150, false);
  expect(refusals.length).toBeGreaterThan(0);
  expect(refusals[0]).toContain("too many message events");
}, 30_000);

test("at limits the instance publishes: 1,000 awaited sends, 0 refused, no disconnect, all stored", async () => {
  const limits = { ...DEFAULT_EVENT_LIMITS, messages: { perSecond: 150, burst: 20 } };
  const { refusals, disconnects, server, place } = await sendLoop(limits, 1000, true);
  expect(refusals).toEqual([]);
  expect(disconnects).toEqual([]);
  let stored = 0;
  let before: string | undefined;
  for (;;) {
    const page = await server.api("GET", `/api/v1/messages/${place.channelId}?limit=100${before ? `&before=${before}` : ""}`, { token: place.owner.token });
    expect(page.status).toBe(200);
    stored += page.body.filter((m: { content: string }) => m.content.startsWith("paced ")).length;
    if (page.body.length < 100) break;
    before = page.body.at(-1).id;
  }
  expect(stored).toBe(1000);
}, 60_000);
