/**
 * Two Hearth nodes in this process on one database (a shared SQLite file) and the Socket.IO
 * Redis streams adapter on a throwaway Debian redis-server: a broadcast made on node A is
 * delivered natively on node B, once to each socket; a session dropped on A resumes on B.
 * Skipped, with the reason, when /usr/bin/redis-server is missing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import type { Socket as ClientSocket } from "socket.io-client";
import { nativeFanoutOf } from "../../src/gateway/native-fanout.ts";
import { SNAPSHOT_MS } from "../../src/gateway/session-snapshots.ts";
import { PUBLISH_WAIT_MS } from "../../src/gateway/stream-order.ts";
import { community, type Community } from "../helpers/community.ts";
import { redisServerInstalled, REDIS_SERVER, startRedis, type RedisServer } from "../helpers/redis-server.ts";
import { connectResumable, drop, reconnect } from "../helpers/resume.ts";
import { recordEvents, startServer, type TestServer } from "../helpers/server.ts";
import { eventually, letTimePass, quietWindow, until } from "../helpers/wait.ts";
import { raisedRestRateLimits } from "../helpers/rate-limits.ts";

if (!redisServerInstalled) console.warn(`cluster delivery tests skipped: ${REDIS_SERVER} is not installed (apt-get install redis-server)`);

let redis: RedisServer;
let nodeA: TestServer;
let nodeB: TestServer;
let place: Community;
let dir: string;
const clients: ClientSocket[] = [];

beforeAll(async () => {
  if (!redisServerInstalled) return;
  redis = await startRedis();
  dir = mkdtempSync(join(tmpdir(), "hearth-cluster-"));
  // One database and one data dir (its secrets key) for both nodes, as a cluster shares them.
  // The ordering tests post hundreds of messages into one channel: the REST sends limit is raised.
  const shared = { databaseUrl: undefined, databaseFile: join(dir, "hearth.db"), dataDir: dir, ...raisedRestRateLimits("sends") };
  nodeA = await startServer(shared, { socketAdapter: redis.adapter() });
  nodeB = await startServer(shared, { socketAdapter: redis.adapter() });
  place = await community(nodeA);
});

afterAll(async () => {
  if (!redisServerInstalled) return;
  // Whatever started (a node may have failed to), and redis-server in any case.
  try {
    for (const socket of clients) socket.close();
    const nodes = [nodeA, nodeB].filter(Boolean);
    for (const node of nodes) node.app.io.of("/").adapter.close();
    // The adapters' readers stop after their current blocking read (500 ms); nothing to await.
    await letTimePass(700, "the adapters' blocking reads end");
    for (const node of nodes) await node.stop();
  } finally {
    await redis?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
});

const post = async (node: TestServer, token: string, channelId: string, content: string) => {
  const sent = await node.api("POST", `/api/v1/messages/${channelId}`, { token, body: { content } });
  expect(sent.status).toBe(201);
  return sent.body as { id: string };
};


describe.skipIf(!redisServerInstalled)("two nodes on the Redis streams adapter", () => {
  test("a message sent through node A reaches sockets on node B natively, once each (websocket and polling)", async () => {
    const { owner, member, channelId } = place;
    const onB = await nodeB.connect(member.token);
    const pollingOnB = await nodeB.connect(member.token, { transports: ["polling"] });
    const onA = await nodeA.connect(owner.token);
    for (const socket of [onB, pollingOnB, onA]) expect((await socket.emitWithAck("channel:join", channelId)).ok).toBe(true);
    const seen = [onB, pollingOnB, onA].map((socket) => recordEvents<{ id: string }>(socket, "message:new"));
    const statsB = { ...nativeFanoutOf(nodeB.app.io)!.stats };
    const sent = await post(nodeA, owner.token, channelId, "across the cluster");
    await until(() => seen.every((events) => events.length >= 1), "the message on both nodes");
    await quietWindow(150); // once each: a duplicate from the stream would follow soon
    for (const events of seen) expect(events.map((m) => m.id)).toEqual([sent.id]);
    // Node B delivered it itself: one native publish for the room, and the polling member written to.
    const after = nativeFanoutOf(nodeB.app.io)!.stats;
    expect(after.published).toBeGreaterThan(statsB.published);
    expect(after.emittedToPolling).toBeGreaterThan(statsB.emittedToPolling);
    for (const socket of [onB, pollingOnB, onA]) socket.close();
  });

  test("each node delivers in the stream's order, its own broadcasts included: a resumable socket's offsets only go up", async () => {
    const { owner, member, channelId } = place;
    const socket = await connectResumable(nodeA.url, member.token);
    clients.push(socket);
    expect((await socket.emitWithAck("channel:join", channelId)).ok).toBe(true);
    const offsets: string[] = [];
    socket.on("message:new", (_message: unknown, offset: string) => offsets.push(offset));
    // Two senders at once, one through each node: node A's own messages and node B's interleave.
    const sender = async (node: TestServer, tag: string) => {
      for (let i = 0; i < 60; i++) await post(node, owner.token, channelId, `${tag} ${i}`);
    };
    await Promise.all([sender(nodeA, "a"), sender(nodeB, "b"), sender(nodeA, "a2"), sender(nodeB, "b2")]);
    await until(() => offsets.length === 240, "every message on node A", 10_000);
    const [ms, seq] = [(o: string) => Number(o.split("-")[0]), (o: string) => Number(o.split("-")[1])];
    const backwards = offsets.filter((o, i) => i > 0 && (ms(o) < ms(offsets[i - 1]!) || (ms(o) === ms(offsets[i - 1]!) && seq(o) <= seq(offsets[i - 1]!))));
    expect(backwards).toEqual([]);
    socket.close();
  });

  test("a node's own room joins and leaves take effect in the stream's order with its broadcasts: join then send reaches the socket, leave then send does not", async () => {
    const { member } = place;
    const socket = await nodeA.connect(member.token);
    clients.push(socket);
    const seen: number[] = [];
    socket.on("test:order" as never, (n: number) => {
      seen.push(n);
    });
    // What the domain does through the event bus (src/gateway/socket-bus.ts): a socket joins a
    // room and the room is sent to (voice:join), it leaves and the room is sent to (voice:user-left
    // to those who stay). Each join or leave, then the send, right away, many times over.
    const io = nodeA.app.io as unknown as { in(room: string): { socketsJoin(room: string): void; socketsLeave(room: string): void }; to(room: string): { emit(event: string, n: number): void } };
    const room = "test:order-room";
    for (let i = 1; i <= 150; i++) {
      io.in(socket.id!).socketsJoin(room);
      io.to(room).emit("test:order", i);
      io.in(socket.id!).socketsLeave(room);
      io.to(room).emit("test:order", -i);
      if (i % 10 === 0) await letTimePass(5, "the sends spread over several stream reads");
    }
    // Last, to the socket itself (always in its own room): delivered after all of the above.
    io.to(socket.id!).emit("test:order", 0);
    await until(() => seen.at(-1) === 0, "the last send");
    expect(seen).toEqual([...Array.from({ length: 150 }, (_, i) => i + 1), 0]);
    socket.close();
  });

  test("a write is answered once its event is in the stream (REST and gateway acks): with Redis holding writes the answer waits, so sequential writes through two nodes stay in order", async () => {
    const { owner, member, channelId } = place;
    const socket = await nodeB.connect(member.token);
    clients.push(socket);
    expect((await socket.emitWithAck("channel:join", channelId)).ok).toBe(true);
    const redisClient = new Redis(redis.url);
    // The stream's newest entries, as bytes (the adapter encodes them with msgpack; ids and names stay readable).
    const newest = async () => (await redisClient.xrevrangeBuffer("socket.io", "+", "-", "COUNT", 50)).map(([, fields]) => Buffer.concat(fields).toString("latin1"));
    try {
      // Redis holds every write (XADD) for 300 ms; reads go on. A 201 sent before its XADD is
      // answered would be here while the stream does not have the message yet.
      await redisClient.call("CLIENT", "PAUSE", "300", "WRITE");
      const sent = await post(nodeB, owner.token, channelId, "answered after its XADD");
      expect((await newest()).some((entry) => entry.includes(sent.id))).toBe(true);
      // The same for a gateway event's ack: typing:start is broadcast to the channel (the first in this file).
      expect((await newest()).some((entry) => entry.includes("typing:start"))).toBe(false);
      await redisClient.call("CLIENT", "PAUSE", "300", "WRITE");
      expect(await socket.emitWithAck("typing:start", channelId)).toEqual({ ok: true, channelId });
      expect((await newest()).some((entry) => entry.includes("typing:start") && entry.includes(member.id))).toBe(true);
      // And what it is for: sends one after the other, alternating nodes, arrive in that order everywhere.
      const seen = recordEvents<{ id: string }>(socket, "message:new");
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) ids.push((await post(i % 2 ? nodeA : nodeB, owner.token, channelId, `in order ${i}`)).id);
      await until(() => seen.length >= ids.length, "every message on node B");
      expect(seen.map((m) => m.id)).toEqual(ids);
      // Bounded: with Redis holding writes longer than PUBLISH_WAIT_MS, the write is answered anyway
      // once that has passed (before its XADD), and delivered once Redis takes writes again.
      seen.length = 0;
      await redisClient.call("CLIENT", "PAUSE", String(PUBLISH_WAIT_MS * 3), "WRITE");
      const late = await post(nodeB, owner.token, channelId, "answered before its XADD");
      expect((await newest()).some((entry) => entry.includes(late.id))).toBe(false);
      await redisClient.call("CLIENT", "UNPAUSE");
      await until(() => seen.length === 1, "the late message");
      expect(seen[0]!.id).toBe(late.id);
    } finally {
      await redisClient.call("CLIENT", "UNPAUSE").catch(() => {});
      redisClient.disconnect();
      socket.close();
    }
  }, 20_000);

  test("a session dropped on node A resumes on node B: same id, rooms and data, the missed events in order", async () => {
    const { owner, member, channelId } = place;
    const socket = await connectResumable(nodeA.url, member.token);
    clients.push(socket);
    expect((await socket.emitWithAck("channel:join", channelId)).ok).toBe(true);
    const seen = recordEvents<{ id: string }>(socket, "message:new");
    const ready = recordEvents<{ resumed: boolean }>(socket, "session:ready");
    const first = await post(nodeA, owner.token, channelId, "before the drop");
    await until(() => seen.length === 1, "the first message");
    const id = socket.id!;
    await drop(socket);
    await until(() => !nodeA.app.io.of("/").sockets.has(id), "node A to see the drop");
    // Through both nodes, one after the other: each 201 comes once its event is in the stream.
    const missed: string[] = [];
    for (let i = 0; i < 4; i++) missed.push((await post(i % 2 ? nodeA : nodeB, owner.token, channelId, `missed ${i}`)).id);

    await reconnect(socket, nodeB.url);
    expect(socket.recovered).toBe(true);
    expect(socket.id).toBe(id);
    // The first connect's session:ready went through Redis too, so it may have come after the listener.
    await until(() => ready.some((r) => r.resumed), "session:ready");
    expect(ready.filter((r) => r.resumed)).toEqual([{ resumed: true }]);
    expect(seen.map((m) => m.id)).toEqual([first.id, ...missed]);
    const restored = nodeB.app.io.of("/").sockets.get(id)!;
    expect(restored.data).toMatchObject({ userId: member.id, resume: true });
    expect(restored.rooms.has(`channel:${channelId}`)).toBe(true);

    // Live again, on node B, from a send on node A.
    const published = nativeFanoutOf(nodeB.app.io)!.stats.published;
    const after = await post(nodeA, owner.token, channelId, "after the resume");
    await until(() => seen.length === 6, "the message after the resume");
    expect(seen.at(-1)!.id).toBe(after.id);
    expect(nativeFanoutOf(nodeB.app.io)!.stats.published).toBeGreaterThan(published);
  });

  test("a node that dies without saving sessions: its clients resume on another node from the snapshot; a socket closed on purpose does not", async () => {
    const { owner, member, channelId } = place;
    const dying = await connectResumable(nodeA.url, member.token);
    const leaving = await connectResumable(nodeA.url, member.token);
    clients.push(dying, leaving);
    for (const socket of [dying, leaving]) expect((await socket.emitWithAck("channel:join", channelId)).ok).toBe(true);
    const seen = recordEvents<{ id: string }>(dying, "message:new");
    // The snapshot of the new rooms is written within SNAPSHOT_MS: both sessions in Redis with the
    // channel's room (msgpack stores a room name as its bytes, so the encoded session holds it).
    const pids = [dying.id!, leaving.id!].map((id) => (nodeA.app.io.of("/").sockets.get(id) as unknown as { pid: string }).pid);
    const sessionKey = (pid: string) => `sio:session:${pid}`;
    const probe = new Redis(redis.url);
    const snapshotted = async (pid: string) => Buffer.from((await probe.get(sessionKey(pid))) ?? "", "base64").includes(`channel:${channelId}`);
    try {
      await eventually(async () => (await Promise.all(pids.map(snapshotted))).every(Boolean), "both sessions' snapshots", { timeoutMs: SNAPSHOT_MS + 2000, intervalMs: 50 });
    } catch (error) {
      probe.disconnect();
      throw error;
    }
    const adapterA = nodeA.app.io.of("/").adapter as unknown as { persistSession: (session: unknown) => void };
    const persist = adapterA.persistSession;
    try {
      // Node A "dies": nothing it would save on a disconnect reaches Redis any more.
      adapterA.persistSession = () => {};
      const ids = [dying.id!, leaving.id!];
      await drop(dying);
      leaving.disconnect();
      await until(() => ids.every((id) => !nodeA.app.io.of("/").sockets.has(id)), "node A to see both go");
    } finally {
      adapterA.persistSession = persist;
    }
    const missed = await post(nodeB, owner.token, channelId, "while node A is gone");
    await reconnect(dying, nodeB.url);
    expect(dying.recovered).toBe(true);
    await until(() => seen.some((m) => m.id === missed.id), "the missed message");
    // The socket closed on purpose has its snapshot consumed (a GETDEL after the disconnect).
    await eventually(async () => (await probe.exists(sessionKey(pids[1]!))) === 0, "the closed socket's snapshot to be consumed");
    probe.disconnect();
    await reconnect(leaving, nodeB.url);
    expect(leaving.recovered).toBe(false);
  }, 20_000);

  test("a token revoked while disconnected does not resume on the other node", async () => {
    const member = await nodeA.register();
    const socket = await connectResumable(nodeA.url, member.token);
    clients.push(socket);
    await drop(socket);
    const changed = await nodeA.api("PUT", "/api/v1/users/me/password", { token: member.token, body: { currentPassword: member.password, newPassword: "a brand new password" } });
    expect(changed.status).toBe(200);
    await expect(reconnect(socket, nodeB.url)).rejects.toThrow("Unauthorized");
  });
});
