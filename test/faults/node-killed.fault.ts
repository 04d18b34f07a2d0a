/**
 * A cluster node killed under load (docs/operations.md, "Failure modes", "A process killed"):
 * three nodes behind the documented HAProxy configuration, 4 senders posting into one channel
 * (two through node 1, two through node 3), 6 resumable listeners pinned two to a node by the
 * balancer's cookie; node 2 gets SIGKILL mid-stream. test/cluster/failover.cluster.ts proves the
 * failover with one listener; this is the same under load, with every listener checked, the
 * reconnect time measured and presence read back afterwards.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Redis } from "ioredis";
import type { Socket as ClientSocket } from "socket.io-client";
import { HEARTBEAT_MS, NODE_TTL_MS } from "../../src/cluster/redis-shared-state.ts";
import { SNAPSHOT_MS } from "../../src/gateway/session-snapshots.ts";
import { HAPROXY, pinnedClient, startHaproxy, type Haproxy } from "../cluster/haproxy.ts";
import { api, closeSockets, connect, emitAck, eventually, REDIS_URL, register, serverWith, startNodes, type HearthNode, type Nodes } from "../cluster/nodes.ts";
import { letTimePass } from "../helpers/wait.ts";
import { startSenders, UNLIMITED_SENDS } from "./traffic.ts";

const LISTENERS_PER_NODE = 2;

const installed = (await Bun.file(HAPROXY).exists()) || Bun.which("haproxy") !== null;

interface Listener {
  node: HearthNode;
  socket: ClientSocket;
  /** Message ids received over the gateway, with how many times each came. */
  received: Map<string, number>;
  /** Milliseconds (on the senders' clock) when it got its connection back, if it lost it. */
  disconnectedAt?: number;
  reconnectedAt?: number;
}

describe.skipIf(!installed)("node 2 of 3 killed with SIGKILL under 4 senders and 6 resumable listeners", () => {
  let cluster: Nodes;
  let proxy: Haproxy;
  const sockets: ClientSocket[] = [];

  beforeAll(async () => {
    cluster = await startNodes(3, UNLIMITED_SENDS);
    proxy = await startHaproxy(cluster.nodes);
  }, 60_000);
  afterAll(async () => {
    for (const socket of sockets) socket.close();
    closeSockets();
    await proxy?.stop();
    await cluster?.stop();
  });

  const pinned = (node: HearthNode, token: string) => pinnedClient(proxy, node, token, sockets);

  test("every listener of the killed node resumes through the balancer: 0 acknowledged messages lost or duplicated per listener; presence right after", async () => {
    const [n1, n2, n3] = cluster.nodes as [HearthNode, HearthNode, HearthNode];
    const owner = await register(n1);
    const senderUsers = [owner, ...(await Promise.all(Array.from({ length: 3 }, () => register(n1))))];
    const listenerUsers = await Promise.all(Array.from({ length: 3 * LISTENERS_PER_NODE }, () => register(n1)));
    // Connected to node 2 alone, with no reconnection: the user the dead node leaves offline.
    const gone = await register(n1);
    const { serverId, channelId } = await serverWith(n1, owner, [...senderUsers.slice(1), ...listenerUsers, gone]);

    const listeners: Listener[] = [];
    for (const [i, user] of listenerUsers.entries()) {
      const node = cluster.nodes[i % 3]!;
      const socket = await pinned(node, user.token);
      expect((await emitAck(socket, "channel:join", channelId)).ok).toBe(true);
      listeners.push({ node, socket, received: new Map() });
    }
    const goneSocket = await connect(n2, gone.token);
    expect((await emitAck(goneSocket, "server:join", serverId)).ok).toBe(true);
    const statusOf = async (userId: string) => (await api(n1, "GET", `/api/v1/users/${userId}`, { token: owner.token })).body.status as string;
    await eventually(async () => (await statusOf(gone.id)) === "online", "the node-2-only user shown online before the kill");

    // Node 2 saves its resumable sessions to Redis within SNAPSHOT_MS of a room change (a node
    // killed earlier leaves nothing to resume from: docs/gateway.md, "A node that dies"), so the
    // kill waits for its listeners' snapshots with the channel's room in them.
    const redis = new Redis(REDIS_URL);
    try {
      for (const listener of listeners.filter((l) => l.node === n2)) {
        const pid = (listener.socket as unknown as { _pid?: string })._pid;
        if (!pid) throw new Error("a node-2 listener has no resumable session");
        const snapshotted = async () => Buffer.from((await redis.get(`hearth:gateway-session:${pid}`)) ?? "", "base64").includes(`channel:${channelId}`);
        await eventually(snapshotted, "node 2's snapshot of its listeners' sessions", SNAPSHOT_MS + 3000);
      }
    } finally {
      redis.disconnect();
    }

    const tokens = senderUsers.map((u) => u.token);
    const viaOne = startSenders({ url: n1.url, channelId, tokens: tokens.slice(0, 2), tag: "n1", pauseMs: 15 });
    const viaThree = startSenders({ url: n3.url, channelId, tokens: tokens.slice(2), tag: "n3", pauseMs: 15 });
    const now = viaOne.now;
    for (const listener of listeners) {
      listener.socket.on("message:new", (m: { id: string }) => listener.received.set(m.id, (listener.received.get(m.id) ?? 0) + 1));
      listener.socket.on("disconnect", () => (listener.disconnectedAt ??= now()));
      // After a reconnect the room is joined again (what the web app and the SDK do).
      listener.socket.io.on("reconnect", () => {
        listener.reconnectedAt ??= now();
        void emitAck(listener.socket, "channel:join", channelId).catch(() => {});
      });
    }

    await letTimePass(1_500, "messages flow before the kill");
    const killedAt = now();
    await n2.kill("SIGKILL");
    const onTwo = listeners.filter((l) => l.node === n2);
    await eventually(() => onTwo.every((l) => l.reconnectedAt !== undefined), "node 2's listeners reconnected through the balancer", 20_000);
    await letTimePass(1_500, "messages flow after the reconnects");
    await Promise.all([viaOne.stop(), viaThree.stop()]);

    const acknowledged = [...viaOne.acknowledged(), ...viaThree.acknowledged()];
    const sends = [...viaOne.sends, ...viaThree.sends];
    // Senders post through the surviving nodes: none of their sends fails.
    expect(sends.filter((s) => s.status !== 201).map((s) => `${s.status} ${JSON.stringify(s.body)}`)).toEqual([]);
    expect(acknowledged.filter((id) => sends.find((s) => s.id === id)!.endedAt < killedAt).length).toBeGreaterThan(20);
    expect(acknowledged.filter((id) => sends.find((s) => s.id === id)!.startedAt > killedAt).length).toBeGreaterThan(20);

    for (const [i, listener] of listeners.entries()) {
      const what = () => `listener ${i} on ${listener.node.name}: ${acknowledged.filter((id) => !listener.received.has(id)).length} of ${acknowledged.length} acknowledged missing`;
      await eventually(() => acknowledged.every((id) => listener.received.has(id)), what, 10_000);
      expect([...listener.received.entries()].filter(([, count]) => count !== 1)).toEqual([]);
      expect(listener.socket.connected).toBe(true);
    }
    // Node 2's listeners were resumed (events replayed), not merely reconnected; the others never dropped.
    for (const listener of onTwo) expect((listener.socket as ClientSocket & { recovered: boolean }).recovered).toBe(true);
    expect(listeners.filter((l) => l.node !== n2 && l.disconnectedAt !== undefined)).toEqual([]);
    const reconnectMs = onTwo.map((l) => Math.round(l.reconnectedAt! - killedAt));

    // Presence as the live sockets say: node 2's listeners are connected again elsewhere (online),
    // the user whose only socket was on node 2 goes offline once its heartbeat key expires and a
    // survivor sweeps it (NODE_TTL_MS after its last renewal, seen at the next HEARTBEAT_MS).
    const offlineWithin = NODE_TTL_MS + HEARTBEAT_MS + 2_000;
    await eventually(async () => (await statusOf(gone.id)) === "offline", "the node-2-only user shown offline", offlineWithin);
    const offlineAt = now();
    for (const listener of onTwo) {
      const userId = listenerUsers[listeners.indexOf(listener)]!.id;
      expect(await statusOf(userId)).toBe("online");
    }

    console.log(
      `node-killed: ${sends.length} sends, ${acknowledged.length} acknowledged, each received once by all ${listeners.length} listeners; ` +
        `node 2's ${onTwo.length} listeners resumed ${reconnectMs.join(" / ")} ms after the SIGKILL; ` +
        `its node-only user offline ${Math.round(offlineAt - killedAt)} ms after it`,
    );
  }, 90_000);
});
