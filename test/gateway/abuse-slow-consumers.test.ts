import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { community } from "../helpers/community.ts";
import { MB } from "../helpers/robustness.ts";
import { recordEvents, startServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { until } from "../helpers/wait.ts";
import { raisedRestRateLimits } from "../helpers/rate-limits.ts";
import { StalledGatewayClient } from "../helpers/stalled-gateway-client.ts";

/**
 * Issue 14, point 9: what a client that stops reading may cost is bounded per socket for every
 * event (src/gateway/slow-consumers.ts), and sockets are capped per user (abuse-events.test.ts).
 */

/** A message of about 61 KB: 4,000 characters of content and ten full embeds. */
const BIG = {
  content: "c".repeat(4000),
  embeds: Array.from({ length: 10 }, (_, i) => ({
    title: `embed ${i}`,
    description: "d".repeat(4096),
    fields: [{ name: "f", value: "v".repeat(1024) }],
    footer: { text: "t".repeat(600) },
  })),
};

const socketsOf = (server: TestServer, user: TestUser) => [...server.app.io.of("/").sockets.values()].filter((s) => s.data.userId === user.id).length;

/** The tests post big messages as fast as they can until a socket falls behind: the REST sends limits are raised. */
const POSTING = raisedRestRateLimits("sends");

/** Posts BIG messages to `channelId` until `done()` holds or `max` were sent; how many were sent. */
async function postUntil(server: TestServer, poster: TestUser, channelId: string, done: () => boolean, max: number): Promise<number> {
  let sent = 0;
  while (sent < max && !done()) {
    const res = await server.api("POST", `/api/v1/messages/${channelId}`, { token: poster.token, body: BIG });
    if (res.status !== 201) throw new Error(`send failed: ${res.status} ${JSON.stringify(res.body)}`);
    sent++;
  }
  return sent;
}

function rss(): number {
  Bun.gc(true);
  return process.memoryUsage().rss;
}

describe("websocket clients that stop reading", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ gatewayMaxBufferedBytes: 1 * MB, ...POSTING });
  });
  afterAll(() => server.stop());

  test("twenty stalled sockets of one user are disconnected once their buffers pass the bound; memory stays flat; readers get everything", async () => {
    const { owner: poster, member: stalledUser, outsider, serverId, channelId } = await community(server);
    await server.app.store.members.add(serverId, outsider.id, "member");
    const reader = await server.connect(outsider.token);
    expect((await reader.emitWithAck("channel:join", channelId)).ok).toBe(true);
    const received = recordEvents(reader, "message:new");
    const stalled = await Promise.all(Array.from({ length: 20 }, () => StalledGatewayClient.open(server.url, stalledUser.token, [["channel:join", channelId]])));
    expect(socketsOf(server, stalledUser)).toBe(20);
    const before = rss();
    const sent = await postUntil(server, poster, channelId, () => socketsOf(server, stalledUser) === 0, 600);
    const after = rss();
    for (const s of stalled) s.close();
    // Before the bound each stalled socket held up to Bun's 16 MB: +400 MB for these twenty.
    expect(socketsOf(server, stalledUser)).toBe(0);
    expect((after - before) / MB).toBeLessThan(120);
    // The reader kept up and was never cut off.
    await until(() => received.length >= sent, "every message at the reader", 15_000);
    expect(received.length).toBe(sent);
    expect(reader.connected).toBe(true);
    reader.close();
  }, 60_000);

  test("a stalled socket that answers pings blindly is closed at its second heartbeat behind", async () => {
    // A bound far above what is sent: only the heartbeat check can close it.
    const roomy = await startServer({ gatewayMaxBufferedBytes: 512 * MB, ...POSTING });
    try {
      const { owner: poster, member, channelId } = await community(roomy);
      const blind = await StalledGatewayClient.open(roomy.url, member.token, [["channel:join", channelId]], 200);
      const sent = await postUntil(roomy, poster, channelId, () => socketsOf(roomy, member) === 0, 600);
      blind.close();
      expect(socketsOf(roomy, member)).toBe(0);
      expect(sent).toBeLessThan(600);
    } finally {
      await roomy.stop();
    }
  }, 60_000);
});

describe("long-polling clients that stop polling", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ gatewayMaxBufferedBytes: 1 * MB, ...POSTING });
  });
  afterAll(() => server.stop());

  test("the session is closed once what waits for the next poll passes the bound", async () => {
    const { owner: poster, member, channelId } = await community(server);
    const base = `${server.url}/socket.io/?EIO=4&transport=polling`;
    const sid = (JSON.parse((await (await fetch(base)).text()).slice(1)) as { sid: string }).sid;
    const url = `${base}&sid=${sid}`;
    const post = async (packet: string) => expect(await (await fetch(url, { method: "POST", body: packet })).text()).toBe("ok");
    await post(`40${JSON.stringify({ token: member.token })}`);
    expect(await (await fetch(url)).text()).toStartWith("40{");
    await post(`420${JSON.stringify(["channel:join", channelId])}`);
    // The connection's own `user:status` may come first in another poll (the presence write is
    // a round trip on PostgreSQL): poll until the ack is there.
    let polled = "";
    for (let i = 0; i < 5 && !polled.includes("430["); i++) polled += await (await fetch(url)).text();
    expect(polled).toContain(`430[${JSON.stringify({ ok: true, channelId })}]`);
    expect(socketsOf(server, member)).toBe(1);
    // It stops polling; messages pile up for it.
    const sent = await postUntil(server, poster, channelId, () => socketsOf(server, member) === 0, 200);
    expect(socketsOf(server, member)).toBe(0);
    expect(sent).toBeLessThan(40); // 1 MB is 17 of these messages
    const gone = await fetch(url);
    expect(gone.status).toBe(400);
    expect(await gone.json()).toEqual({ code: 1, message: "Session ID unknown" });
  });
});
