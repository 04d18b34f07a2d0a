/**
 * What a cluster node puts right in Redis once Redis answers again (docs/operations.md,
 * "Failure modes"; src/cluster/redis-shared-state.ts), on a real redis-server: it publishes
 * its whole connection share again (right after a restart that lost everything, and after one
 * that kept stale counts), it re-registers itself, and for a grace period it declares no peer
 * dead whose heartbeat key expired during the outage. A node that saw no outage still sweeps a
 * dead peer at its next heartbeat. Skipped where Debian's redis-server is not installed.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { Redis } from "ioredis";
import { connectRedis } from "../../src/cluster/redis-client.ts";
import { HEARTBEAT_MS, nodeKey, redisSharedState, type RedisSharedState } from "../../src/cluster/redis-shared-state.ts";
import type { Logger } from "../../src/log.ts";
import { redisServerPath, startRedis, type ThrowawayRedis } from "../../scripts/redis-server.ts";
import { eventually } from "../helpers/wait.ts";

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };

describe.skipIf(redisServerPath() === null)("a node after a Redis outage", () => {
  let server: ThrowawayRedis;
  let admin: Redis;
  const stops: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    server = await startRedis();
    admin = new Redis(server.url, { maxRetriesPerRequest: null });
  });
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
    await admin.flushall();
  });
  afterAll(async () => {
    admin?.disconnect();
    await server?.stop();
  });

  async function node(id: string) {
    const redis = await connectRedis(server.url, quiet);
    const shared: RedisSharedState = redisSharedState(redis.client, redis.duplicate(), id, quiet, redis.availability);
    const recounted: string[] = [];
    shared.connections.onRecount((userId) => recounted.push(userId));
    await shared.start(`http://${id}.test`);
    stops.push(async () => {
      await shared.stop();
      await redis.close();
    });
    // An outage as the node sees it: Redis stops answering, then answers again.
    const outage = () => {
      redis.availability.failed();
      redis.availability.answered();
    };
    return { shared, recounted, outage };
  }

  /** A peer that was alive before the outage and whose heartbeat key expired during it. */
  async function peerWithExpiredKey(id: string, userId: string) {
    await admin.sadd("hearth:nodes", id);
    await admin.hset(`hearth:conn:node:${id}`, userId, 1);
    await admin.hincrby("hearth:conn", userId, 1);
  }

  test("its connections are published again after a restart that lost them, and presence is asked to look again", async () => {
    const a = await node("node-a");
    await a.shared.connections.connected("u-two");
    await a.shared.connections.connected("u-two");
    await admin.flushall();
    a.outage();
    await eventually(async () => (await admin.hget("hearth:conn", "u-two")) === "2", "the count is back in Redis");
    expect(await admin.hgetall("hearth:conn:node:node-a")).toEqual({ "u-two": "2" });
    expect(await admin.exists(nodeKey("node-a"))).toBe(1);
    expect(await admin.sismember("hearth:nodes", "node-a")).toBe(1);
    expect(a.recounted).toEqual(["u-two"]);
  });

  test("a count Redis kept but the node no longer has (a disconnect during the outage) is taken back", async () => {
    const a = await node("node-a");
    await a.shared.connections.connected("u-kept");
    // Redis kept this node's old share (persistence) with a connection that closed while it was out.
    await admin.hset("hearth:conn:node:node-a", "u-gone", 1);
    await admin.hincrby("hearth:conn", "u-gone", 1);
    await admin.hset("hearth:activity", "u-gone", JSON.stringify({ type: "playing", name: "x" }));
    a.outage();
    await eventually(async () => (await admin.hexists("hearth:conn", "u-gone")) === 0, "the stale count is gone");
    expect(await admin.hget("hearth:conn", "u-kept")).toBe("1");
    expect(await admin.hexists("hearth:activity", "u-gone")).toBe(0);
    expect(a.recounted).toEqual(["u-gone"]);
  });

  test("connects and disconnects while Redis is out are answered at once from this node and published once it is back", async () => {
    const a = await node("node-a");
    await a.shared.connections.connected("u-stays");
    await a.shared.connections.connected("u-leaves");
    await server.halt();
    const started = performance.now();
    expect(await a.shared.connections.connected("u-new")).toBe(1);
    expect(await a.shared.connections.disconnected("u-leaves")).toBe(0);
    expect(await a.shared.connections.count("u-stays")).toBe(1);
    expect(performance.now() - started).toBeLessThan(500);
    // Without persistence Redis comes back empty: the node's share is all there is.
    await server.resume();
    await eventually(async () => (await admin.hget("hearth:conn", "u-new").catch(() => null)) === "1", "the new connection is counted in Redis", { timeoutMs: 10_000 });
    expect(await admin.hgetall("hearth:conn")).toEqual({ "u-stays": "1", "u-new": "1" });
    expect(new Set(a.recounted)).toEqual(new Set(["u-stays", "u-new", "u-leaves"]));
  });

  test("for a grace period it declares no peer dead whose key expired during the outage", async () => {
    const a = await node("node-a");
    await peerWithExpiredKey("node-b", "u-b");
    a.outage();
    // Past a heartbeat, which sweeps: node-b is still a node and its user still counted.
    await Bun.sleep(HEARTBEAT_MS + 700);
    expect(await admin.sismember("hearth:nodes", "node-b")).toBe(1);
    expect(await admin.hget("hearth:conn", "u-b")).toBe("1");
    expect(a.recounted).not.toContain("u-b");
  });

  test("without an outage, a peer whose key expired is swept at the next heartbeat", async () => {
    const a = await node("node-a");
    await peerWithExpiredKey("node-b", "u-b");
    await eventually(async () => (await admin.sismember("hearth:nodes", "node-b")) === 0, "node-b swept", { timeoutMs: HEARTBEAT_MS * 2 + 1000 });
    expect(await admin.hexists("hearth:conn", "u-b")).toBe(0);
    expect(a.recounted).toContain("u-b");
  });
});
