import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { addMember, community, createServer } from "../helpers/community.ts";
import { addBot } from "../helpers/bots.ts";
import { recordEvents, startServer, waitForDisconnect, waitForEvent, type ClientSocket, type TestServer } from "../helpers/server.ts";
import { eventually, letTimePass, until } from "../helpers/wait.ts";
import { LineProcess, watchLatency } from "../../bench/fixture.ts";
import { onPostgres } from "../helpers/database.ts";
import { PERMISSIONS as P } from "../../src/domain/access/permission-bits.ts";

/**
 * Issue 14, point 8: client gateway events are rate-limited per socket and per user, by kind
 * (src/gateway/event-limits.ts), at the defaults; a flood from one client leaves everyone
 * else's latency alone.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const RATE_LIMITED = (what: string) => new RegExp(`^Rate limited: too many ${what}; retry in (\\d+) ms$`);
type AckAnswer = { ok: boolean; error?: string };

/** Emits `count` times at once with acks; the answers in order. */
const burst = (socket: ClientSocket, count: number, event: string, payload: (index: number) => unknown): Promise<AckAnswer[]> =>
  Promise.all(Array.from({ length: count }, (_, index) => socket.timeout(5000).emitWithAck(event, payload(index))));

describe("rate limits", () => {
  test("past a socket's typing burst (20) events are refused with a rate-limit ack naming the wait; after it they pass", async () => {
    const { member, channelId } = await community(server);
    const socket = await server.connect(member.token);
    // The last five are not even valid: refused for the rate before anything else runs, payload
    // validation included (in one burst, so no refill can come between).
    const answers = await burst(socket, 25, "typing:start", (i) => (i < 20 ? channelId : "not-a-channel"));
    expect(answers.slice(0, 20)).toEqual(Array(20).fill({ ok: true, channelId }));
    for (const answer of answers.slice(20)) {
      expect(Object.keys(answer).sort()).toEqual(["error", "ok"]);
      expect(answer.ok).toBe(false);
      expect(answer.error).toMatch(RATE_LIMITED("typing events"));
    }
    // Other kinds have buckets of their own.
    expect(await socket.emitWithAck("channel:join", channelId)).toEqual({ ok: true, channelId });
    const wait = Math.max(...answers.slice(20).map((answer) => Number(RATE_LIMITED("typing events").exec(answer.error!)![1])));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(100); // 10 a second
    await letTimePass(wait + 20, "the socket's typing bucket refills for the wait it named");
    expect(await socket.emitWithAck("typing:start", channelId)).toEqual({ ok: true, channelId });
    expect(socket.connected).toBe(true);
  });

  test("a user's sockets share three times a socket's limit; other users are not affected", async () => {
    const { member, owner, channelId } = await community(server);
    const sockets = await Promise.all(Array.from({ length: 10 }, () => server.connect(member.token)));
    // 10 sockets x 10: each within its own burst of 20, together past the user's 60.
    const answers = (await Promise.all(sockets.map((s) => burst(s, 10, "typing:start", () => channelId)))).flat();
    const passed = answers.filter((a) => a.ok).length;
    expect(passed).toBeGreaterThanOrEqual(60);
    expect(passed).toBeLessThan(70); // 60 plus what refilled meanwhile (30 a second)
    for (const refused of answers.filter((a) => !a.ok)) expect(refused.error).toMatch(RATE_LIMITED("typing events"));
    const other = await server.connect(owner.token);
    expect(await other.emitWithAck("typing:start", channelId)).toEqual({ ok: true, channelId });
    for (const s of [...sockets, other]) s.close();
  });

  test("a flood is cut off: the socket is disconnected, and its user's new handshakes refused for a while", async () => {
    const { member, owner, channelId } = await community(server);
    const flooder = await server.connect(member.token);
    const disconnected = waitForDisconnect(flooder);
    for (let i = 0; i < 5000; i++) flooder.emit("typing:start", channelId);
    expect(await disconnected).toBe("io server disconnect");
    const again = await server.connect(member.token).then(
      (s) => (s.close(), null),
      (error: Error) => error.message,
    );
    expect(again).toMatch(/^Rate limited: too many refused events from this account; retry in \d+ s$/);
    (await server.connect(owner.token)).close();
  });

  test("events no handler knows count as refusals: a flood of them is disconnected too", async () => {
    const { member } = await community(server);
    const socket = await server.connect(member.token);
    const disconnected = waitForDisconnect(socket);
    for (let i = 0; i < 5000; i++) socket.emit("no-such-event", { i });
    expect(await disconnected).toBe("io server disconnect");
  });

  test("audio frames past the burst are refused with voice:error too, and the stream goes on", async () => {
    // A server of its own with a small audio limit, so the refusals do not depend on how fast
    // this machine sends (the default is 250 a second, bursts of 500).
    const small = await startServer({ gatewayEventLimits: { ...server.config.gatewayEventLimits, audio: { perSecond: 10, burst: 20 } } });
    try {
      const { owner, serverId } = await community(small);
      const bot = await addBot(small, owner, serverId);
      const res = await small.api("POST", `/api/v1/channels/${serverId}`, { token: owner.token, body: { name: "voice", type: "voice" } });
      const channelId: string = res.body.id;
      const socket = await small.connect(bot.token);
      expect((await socket.emitWithAck("voice:join", { channelId })).ok).toBe(true);
      const voiceErrors = recordEvents(socket, "voice:error");
      const pcm = new Uint8Array(3840);
      const answers = await burst(socket, 40, "bot:audio-data", () => ({ channelId, pcm }));
      const refused = answers.filter((a) => !a.ok);
      expect(answers.filter((a) => a.ok).length).toBeGreaterThanOrEqual(20);
      expect(refused.length).toBeGreaterThanOrEqual(15);
      for (const r of refused) expect(r.error).toMatch(RATE_LIMITED("audio frames"));
      await until(() => voiceErrors.length >= refused.length, "a voice:error after each refused ack");
      expect(voiceErrors.map((e) => e.error)).toEqual(refused.map((r) => r.error));
      await letTimePass(150, "the audio bucket refills (10 a second)");
      expect(await socket.emitWithAck("bot:audio-data", { channelId, pcm })).toEqual({ ok: true });
      expect(socket.connected).toBe(true);
      socket.close();
    } finally {
      await small.stop();
    }
  });
});

describe("typing starts are coalesced", () => {
  test("repeated typing:start within 3 s is acknowledged but relayed once; after typing:stop it is relayed again", async () => {
    const { owner, member, channelId } = await community(server);
    const typist = await server.connect(member.token);
    const watcher = await server.connect(owner.token);
    expect((await watcher.emitWithAck("channel:join", channelId)).ok).toBe(true);
    const starts = recordEvents(watcher, "typing:start");
    expect(await burst(typist, 5, "typing:start", () => channelId)).toEqual(Array(5).fill({ ok: true, channelId }));
    const stopped = waitForEvent(watcher, "typing:stop");
    expect(await typist.emitWithAck("typing:stop", channelId)).toEqual({ ok: true, channelId });
    await stopped;
    expect(await typist.emitWithAck("typing:start", channelId)).toEqual({ ok: true, channelId });
    await until(() => starts.length >= 2, "the start after the stop");
    expect(starts).toEqual(Array(2).fill({ userId: member.id, username: member.username, channelId }));
    typist.close();
    watcher.close();
  });

  test("the same for dm:typing:start", async () => {
    const a = await server.register();
    const b = await server.register();
    await addMember(server, await createServer(server, a), b);
    const dm = await server.api("POST", `/api/v1/dm/${b.id}/messages`, { token: a.token, body: { content: "hi" } });
    const conversationId: string = dm.body.conversation_id;
    const [sa, sb] = await Promise.all([server.connect(a.token), server.connect(b.token)]);
    const starts = recordEvents(sb, "dm:typing:start");
    expect(await burst(sa, 5, "dm:typing:start", () => ({ conversationId }))).toEqual(Array(5).fill({ ok: true, conversationId }));
    // A stop relayed after the burst: every start relayed before it has arrived by then.
    const stopped = waitForEvent(sb, "dm:typing:stop");
    expect(await sa.emitWithAck("dm:typing:stop", { conversationId })).toEqual({ ok: true, conversationId });
    await stopped;
    expect(starts).toEqual([{ userId: a.id, username: a.username, conversationId }]);
    sa.close();
    sb.close();
  });
});

describe("a coalesced typing start is still checked", () => {
  test("typing:start repeated after the channel is hidden is refused, and nothing is relayed; shown again, the next start is relayed", async () => {
    const { owner, member, channelId, everyone } = await community(server);
    const typist = await server.connect(member.token);
    const watcher = await server.connect(owner.token);
    expect((await watcher.emitWithAck("channel:join", channelId)).ok).toBe(true);
    const starts = recordEvents(watcher, "typing:start");
    expect(await typist.emitWithAck("typing:start", channelId)).toEqual({ ok: true, channelId });
    const hidden = await server.api("PUT", `/api/v1/channels/${channelId}/permissions/${everyone}`, {
      token: owner.token,
      body: { allow: 0, deny: P.VIEW_CHANNEL },
    });
    expect(hidden.status).toBe(200);
    // Within the 3 s window: a repeat, so not relayed, but refused as any start would be.
    expect(await typist.emitWithAck("typing:start", channelId)).toEqual({ ok: false, error: "Missing permission: VIEW_CHANNEL" });
    // Not relayed: checked below, once the next start has arrived after where it would be.
    // A refused start ends the streak: allowed again (still within 3 s), the next start is relayed.
    const shown = await server.api("DELETE", `/api/v1/channels/${channelId}/permissions/${everyone}`, { token: owner.token });
    expect(shown.status).toBe(200);
    expect(await typist.emitWithAck("typing:start", channelId)).toEqual({ ok: true, channelId });
    await until(() => starts.length >= 2, "the start once shown again");
    expect(starts).toEqual(Array(2).fill({ userId: member.id, username: member.username, channelId }));
    typist.close();
    watcher.close();
  });

  test("dm:typing:start repeated after leaving a group is refused, and nothing is relayed", async () => {
    const [a, b, c] = [await server.register(), await server.register(), await server.register()];
    const serverId = await createServer(server, a);
    for (const u of [b, c]) await addMember(server, serverId, u);
    const created = await server.api("POST", "/api/v1/dm/groups", { token: a.token, body: { member_ids: [b.id, c.id] } });
    expect(created.status).toBe(201);
    const conversationId: string = created.body.id;
    const [sa, sb, sc] = await Promise.all([server.connect(a.token), server.connect(b.token), server.connect(c.token)]);
    const starts = recordEvents(sc, "dm:typing:start");
    expect(await sb.emitWithAck("dm:typing:start", { conversationId })).toEqual({ ok: true, conversationId });
    expect((await server.api("POST", `/api/v1/dm/groups/${conversationId}/leave`, { token: b.token })).status).toBe(200);
    expect(await sb.emitWithAck("dm:typing:start", { conversationId })).toEqual({ ok: false, error: "Conversation not found" });
    // a's start is relayed after the refused one was handled: b's repeat would have come first.
    expect(await sa.emitWithAck("dm:typing:start", { conversationId })).toEqual({ ok: true, conversationId });
    await until(() => starts.length >= 2, "a's start");
    expect(starts).toEqual([
      { userId: b.id, username: b.username, conversationId },
      { userId: a.id, username: a.username, conversationId },
    ]);
    sa.close();
    sb.close();
    sc.close();
  });
});

describe("connections per user", () => {
  test("the 21st socket of a user gets connect_error naming the cap; closing one makes room; others are unaffected", async () => {
    const user = await server.register();
    const sockets = await Promise.all(Array.from({ length: 20 }, () => server.connect(user.token)));
    const refused = await server.connect(user.token).then(
      (s) => (s.close(), null),
      (error: Error) => error.message,
    );
    expect(refused).toBe("Too many connections: at most 20 per user");
    (await server.connect((await server.register()).token)).close();
    const gone = waitForDisconnect(sockets[0]!);
    sockets[0]!.close();
    await gone;
    await eventually(async () => (await server.app.io.in(`user:${user.id}`).fetchSockets()).length === 19, "the server to see the close");
    const replacement = await server.connect(user.token);
    expect(replacement.connected).toBe(true);
    for (const s of [...sockets, replacement]) s.close();
  });
});

// Skipped on PostgreSQL: these measure the event loop's latency bounds (set for SQLite's
// in-process store) under a 200,000-event flood, where every admitted event is also a database
// round trip on PostgreSQL, so the figures measure the database server sharing this machine more
// than the gateway's limits. The limits themselves are tested above on both databases.
describe.skipIf(onPostgres)("a flood from one client leaves everyone else's latency alone", () => {
  /**
   * Runs bench/abuse-client.ts (its own process, so its CPU is not ours) flooding `count`
   * events from `sockets` sockets of one user, while this process measures another user's
   * `GET /api/v1` and ack'd gateway round trip every 10 ms.
   */
  async function flood(options: { event: string; sockets: number; count: number; ack: boolean }) {
    const { owner, member, channelId } = await community(server);
    const flooder = new LineProcess([
      process.execPath,
      join(import.meta.dir, "../../bench/abuse-client.ts"),
      JSON.stringify({ url: server.url, token: member.token, payload: channelId, ...options }),
    ]);
    try {
      const ready = JSON.parse((await flooder.next(20_000)).slice("ready ".length));
      expect(ready.connected).toBe(options.sockets);
      const observer = await server.connect(owner.token);
      flooder.send("go");
      const watch = watchLatency(server.url, () => observer.timeout(30_000).emitWithAck("channel:leave", channelId));
      const result = JSON.parse(await flooder.next(60_000));
      const { rest, gateway } = await watch.stop();
      observer.close();
      return { result, rest, gateway };
    } finally {
      flooder.kill();
    }
  }

  // Before the limits: 200,000 channel:join or typing:start from one socket kept GET /api/v1
  // from answering for 6-10 s on this machine. The bound is generous for a shared 2-core machine.
  const BOUND_MS = 400;
  const MAX_MS = 2000;

  test("200,000 channel:join from one socket: the flooder is disconnected, others answer within bounds", async () => {
    const { result, rest, gateway } = await flood({ event: "channel:join", sockets: 1, count: 200_000, ack: false });
    expect(rest.n).toBeGreaterThan(10);
    expect(gateway.n).toBeGreaterThan(10);
    expect(rest.p95_ms).toBeLessThan(BOUND_MS);
    expect(gateway.p95_ms).toBeLessThan(BOUND_MS);
    expect(Math.max(rest.max_ms, gateway.max_ms)).toBeLessThan(MAX_MS);
    expect(result.disconnected).toBe(1);
  }, 60_000);

  test("200,000 acked typing:start from 20 sockets of one user: rate-limit errors, disconnects, others within bounds", async () => {
    const { result, rest, gateway } = await flood({ event: "typing:start", sockets: 20, count: 200_000, ack: true });
    expect(rest.p95_ms).toBeLessThan(BOUND_MS);
    expect(gateway.p95_ms).toBeLessThan(BOUND_MS);
    expect(Math.max(rest.max_ms, gateway.max_ms)).toBeLessThan(MAX_MS);
    expect(result.acks.rate_limited).toBeGreaterThan(0);
    expect(result.first_error).toMatch(RATE_LIMITED("typing events"));
    expect(result.acks.ok).toBeLessThan(200);
    expect(result.disconnected).toBe(20);
  }, 60_000);
});
