/**
 * Redis stopped and started under a three-node cluster (docs/operations.md, "Failure modes"),
 * without and with Redis persistence. While Redis is out every node keeps serving REST and its
 * own sockets, stays ready for the load balancer (Redis "degraded" in /readyz, /healthz and a
 * metric), and login and registration answer within a short bound. Once Redis is back,
 * cross-node delivery resumes, the sockets that missed broadcasts are told `session:resync`,
 * and presence is right again within seconds (no live node swept as dead, even when the
 * outage outlived every node's heartbeat key and Redis kept those keys on disk).
 *
 * Each scenario has its own Redis (the other fault files share the runner's) and its own nodes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { Redis } from "ioredis";
import { startRedis, type ThrowawayRedis } from "../../scripts/redis-server.ts";
import { NODE_TTL_MS } from "../../src/cluster/redis-shared-state.ts";
import { Gateway } from "../../sdk/src/client.ts";
import { api, closeSockets, connect, emitAck, eventually, record, register, serverWith, startNodes, type ClientSocket, type ClusterUser, type HearthNode, type Nodes } from "../cluster/nodes.ts";

interface Place {
  owner: ClusterUser;
  /** One member per node (index 0 on n1...), each with a socket on its node in the channel. */
  members: ClusterUser[];
  sockets: ClientSocket[];
  channelId: string;
  serverId: string;
}

async function metric(node: HearthNode, name: string): Promise<number> {
  const text = await (await fetch(`${node.url}/metrics`)).text();
  let sum = 0;
  for (const line of text.split("\n")) if (line.startsWith(name) && (line[name.length] === " " || line[name.length] === "{")) sum += Number(line.slice(line.lastIndexOf(" ") + 1));
  return sum;
}

async function status(node: HearthNode, viewer: ClusterUser, userId: string): Promise<string> {
  const res = await api(node, "GET", `/api/v1/users/${userId}`, { token: viewer.token });
  return res.body.status;
}

const timed = async <T>(work: () => Promise<T>) => {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
};

function scenario(persistence: boolean) {
  describe(`Redis stopped and started ${persistence ? "with" : "without"} persistence`, () => {
    let redis: ThrowawayRedis;
    let cluster: Nodes;
    let n1: HearthNode, n2: HearthNode, n3: HearthNode;
    let place: Place;
    /** Member two's SDK connection on n2 (the web app's gateway client too). */
    let sdk: Gateway;

    beforeAll(async () => {
      redis = await startRedis({ appendOnly: persistence });
      cluster = await startNodes(3, { REDIS_URL: redis.url });
      [n1, n2, n3] = cluster.nodes as [HearthNode, HearthNode, HearthNode];
      const owner = await register(n1);
      const members = [await register(n1), await register(n2), await register(n3)];
      const { channelId, serverId } = await serverWith(n1, owner, members);
      const nodes = [n1, n2, n3];
      const sockets = await Promise.all(
        members.map(async (member, i) => {
          const socket = await connect(nodes[i]!, member.token);
          expect((await emitAck(socket, "channel:join", channelId)).ok).toBe(true);
          return socket;
        }),
      );
      place = { owner, members, sockets, channelId, serverId };
      sdk = new Gateway({ baseUrl: n2.url, token: members[1]!.token });
      await sdk.connect();
      await sdk.joinChannel(channelId);
      for (const member of members) await eventually(async () => (await status(n1, owner, member.id)) === "online", `${member.username} online before the outage`);
    }, 60_000);
    afterAll(async () => {
      sdk?.close();
      closeSockets();
      await cluster?.stop();
      await redis?.stop();
    });

    test("the nodes serve alone while Redis is out, and put everything right once it is back", async () => {
      const [onOne, onTwo, onThree] = place.sockets as [ClientSocket, ClientSocket, ClientSocket];
      const messagesOnOne = record(onOne, "message:new");
      const messagesOnTwo = record(onTwo, "message:new");
      const resyncOnTwo = record(onTwo, "session:resync");
      const resyncOnThree = record(onThree, "session:resync");
      const sdkResyncs: { reason: string; lastMessageIds: Record<string, string | null> }[] = [];
      sdk.on("resync", (info) => void sdkResyncs.push(info));
      const lastBefore = (await api(n1, "POST", `/api/v1/messages/${place.channelId}`, { token: place.owner.token, body: { content: "before the outage" } })).body.id;
      await eventually(() => messagesOnTwo.some((m) => m.id === lastBefore), "n2 got the message sent before the outage", 5000);
      const [, memberTwo, memberThree] = place.members as [ClusterUser, ClusterUser, ClusterUser];

      await redis.halt();
      const outageStarted = Date.now();

      // Every node stays ready, and says Redis is degraded.
      await eventually(async () => ((await (await fetch(`${n1.url}/healthz`)).json()) as { status: string }).status === "degraded", "n1's /healthz says degraded", 5000);
      for (const node of [n1, n2, n3]) {
        const ready = await fetch(`${node.url}/readyz`);
        expect(ready.status).toBe(200);
        expect(await ready.json()).toEqual({ status: "ready", checks: { database: "ok", disk: "ok", redis: "degraded" } });
        expect(await (await fetch(`${node.url}/healthz`)).json()).toEqual({ status: "degraded", degraded: ["redis"] });
        expect(await metric(node, "hearth_redis_available")).toBe(0);
      }

      // Registration and login answer at once, on the node's own limits.
      const newcomer = await timed(() => register(n2));
      expect(newcomer.ms).toBeLessThan(3000);
      const login = await timed(() => api(n3, "POST", "/api/v1/auth/login", { body: { login: memberThree.username, password: memberThree.password } }));
      expect(login.value.status).toBe(200);
      expect(login.ms).toBeLessThan(3000);
      // The limits still hold, counted on the node alone: wrong passwords past the budget
      // (LOGIN_FAILURES_PER_ACCOUNT_PER_MINUTE, 4 in the cluster suites) are refused, at once.
      const wrong = await timed(async () => {
        const statuses: number[] = [];
        for (let i = 0; i < 5; i++) statuses.push((await api(n3, "POST", "/api/v1/auth/login", { body: { login: newcomer.value.username, password: "not the password" } })).status);
        return statuses;
      });
      expect(wrong.value.slice(0, 4).every((status) => status !== 429 && status < 500)).toBe(true);
      expect(wrong.value[4]).toBe(429);
      expect(wrong.ms).toBeLessThan(5000);

      // What needs Redis says so, and when to try again.
      const voiceStates = await fetch(`${n1.url}/api/v1/servers/${place.serverId}/voice-states`, { headers: { authorization: `Bearer ${place.owner.token}` } });
      expect(voiceStates.status).toBe(503);
      expect(await voiceStates.json()).toEqual({ error: "Redis unavailable" });
      expect(voiceStates.headers.get("retry-after")).toBe("5");

      // A send through n1 is answered and reaches n1's own socket at once.
      const sent = await timed(() => api(n1, "POST", `/api/v1/messages/${place.channelId}`, { token: place.members[0]!.token, body: { content: "during the outage" } }));
      expect(sent.value.status).toBe(201);
      expect(sent.ms).toBeLessThan(3000);
      await eventually(() => messagesOnOne.some((m) => m.id === sent.value.body.id), "n1's socket got the message sent on n1 during the outage", 3000);

      // A client that connects during the outage (a reconnect, a page opened) is served by its node too.
      const connected = await timed(async () => {
        const socket = await connect(n2, memberTwo.token);
        expect((await emitAck(socket, "channel:join", place.channelId)).ok).toBe(true);
        return socket;
      });
      expect(connected.ms).toBeLessThan(3000);
      // Each connect signals the other nodes (a DM call may ring there); during the outage that
      // is no warning each, as the outage was said once already.
      for (let i = 0; i < 3; i++) (await connect(n2, memberTwo.token)).close();
      const messagesOnNewcomer = record(connected.value, "message:new");
      const sentOnTwo = await api(n2, "POST", `/api/v1/messages/${place.channelId}`, { token: memberTwo.token, body: { content: "on n2 during the outage" } });
      expect(sentOnTwo.status).toBe(201);
      await eventually(() => messagesOnNewcomer.some((m) => m.id === sentOnTwo.body.id), "the socket connected during the outage got n2's message", 3000);

      // Presence changes during the outage: member three leaves (its only socket, on n3).
      onThree.close();
      await Bun.sleep(persistence ? NODE_TTL_MS + 1500 - (Date.now() - outageStarted) : 2000);
      // n1's send of the outage reached its own sockets only: counted as dropped, not as late.
      expect(await metric(n1, 'hearth_cluster_broadcasts_total{outcome="dropped"}')).toBeGreaterThan(0);

      await redis.resume();
      const back = Date.now();

      // The sockets elsewhere in the channel are told that they missed events.
      await eventually(() => resyncOnTwo.length > 0, "n2's socket got session:resync", 10_000);
      expect(resyncOnTwo[0]).toEqual({ reason: "cluster_outage", since: expect.any(Number) });
      // When the sending node lost Redis (whole seconds).
      expect(resyncOnTwo[0].since).toBeGreaterThanOrEqual(Math.floor(outageStarted / 1000));
      expect(resyncOnTwo[0].since * 1000).toBeLessThan(back);
      // n1 sends one to the rooms its dropped broadcasts went to (or to everyone), and counts it.
      // The first to arrive may be n2's own: a Redis restarted without persistence makes each node
      // tell its own sockets too, and n2 may see Redis back before n1 does.
      const resyncsOfOne = async () => (await metric(n1, 'hearth_gateway_resyncs_total{scope="rooms"}')) + (await metric(n1, 'hearth_gateway_resyncs_total{scope="everyone"}'));
      await eventually(async () => (await resyncsOfOne()) > 0, "n1 counted its session:resync", 5000);
      // The SDK tells the bot (and the web app, which reloads what it shows) where to fetch from.
      await eventually(() => sdkResyncs.length > 0, "the SDK emitted resync", 5000);
      // The SDK's connection got n2's message of the outage, stored after n1's it missed: where
      // it says to fetch from is no later than its last message before the outage, so the fetch
      // brings the missed one.
      expect(sdkResyncs[0]!.reason).toBe("cluster_outage");
      const from = sdkResyncs[0]!.lastMessageIds[place.channelId]!;
      expect(from <= lastBefore).toBe(true);
      // What rest.messagesSince asks (Bot REST's list; this connection is a member's).
      const fetched = ((await api(n2, "GET", `/api/v1/messages/${place.channelId}?after=${from}&limit=100`, { token: memberTwo.token })).body as { id: string }[]).map((m) => m.id);
      expect(fetched).toContain(sent.value.body.id);
      expect(fetched).toContain(sentOnTwo.body.id);
      const resyncMs = Date.now() - back;
      // The resumable sessions are in Redis again within seconds (a restart without persistence
      // lost them), so a client can still resume on another node if its own dies now.
      const pid = (sdk as unknown as { socket: { _pid?: string } }).socket._pid;
      expect(pid).toBeString();
      const client = new Redis(redis.url);
      try {
        await eventually(async () => (await client.exists(`hearth:gateway-session:${pid}`)) === 1, "the SDK connection's session in Redis again", 3000);
      } finally {
        client.disconnect();
      }
      // Cross-node delivery is back.
      await eventually(
        async () => {
          const again = await api(n1, "POST", `/api/v1/messages/${place.channelId}`, { token: place.members[0]!.token, body: { content: `after ${Date.now()}` } });
          return again.status === 201 && (await eventually(() => messagesOnTwo.some((m) => m.id === again.body.id), "", 1000).then(() => true, () => false));
        },
        "a message sent on n1 reaches n2 again",
        10_000,
      );
      expect(resyncOnThree.length).toBe(0); // closed before: nothing to tell it

      // Presence is right again: member two is still online (no node was swept as dead), member three is offline.
      await eventually(async () => (await status(n2, place.owner, memberThree.id)) === "offline", "member three shown offline after the outage", 10_000);
      const settled = Date.now();
      // Past the grace period and a few heartbeats, so a wrong sweep would have happened.
      await Bun.sleep(Math.max(0, NODE_TTL_MS + 4000 - (Date.now() - back)));
      for (const node of [n1, n2, n3]) {
        expect(await status(node, place.owner, memberTwo.id)).toBe("online");
        expect(await status(node, place.owner, place.members[0]!.id)).toBe("online");
        expect(await status(node, place.owner, memberThree.id)).toBe("offline");
        expect(((await (await fetch(`${node.url}/healthz`)).json()) as { status: string }).status).toBe("ok");
        expect(await metric(node, "hearth_redis_available")).toBe(1);
      }
      // The outage is said once when it starts and once when it ends on each node.
      for (const node of cluster.nodes) {
        const warnings = node.stderr();
        expect(warnings.split("redis unreachable").length - 1).toBe(1);
        expect(warnings.split("redis reachable again").length - 1).toBe(1);
        expect(warnings).not.toContain("cluster signal failed");
        expect(readFileSync(node.logFile, "utf8")).not.toContain("cluster node gone");
      }
      console.log(`Redis ${persistence ? "with" : "without"} persistence: out ${back - outageStarted} ms; session:resync ${resyncMs} ms after it was back; presence settled ${settled - back} ms after`);
    }, 90_000);
  });
}

scenario(false);
scenario(true);
