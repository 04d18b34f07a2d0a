/**
 * The load balancer example of docs/operations.md, run for real: HAProxy in front of two nodes,
 * a long-polling client (which needs stickiness) and a WebSocket client through it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { io as connectClient, type Socket as ClientSocket } from "socket.io-client";
import { HAPROXY, startHaproxy, type Haproxy } from "./haproxy.ts";
import { api, closeSockets, emitAck, eventually, record, register, serverWith, startNodes, type Nodes } from "./nodes.ts";
import { quietWindow } from "../helpers/wait.ts";

let cluster: Nodes;
let proxy: Haproxy;

beforeAll(async () => {
  cluster = await startNodes(2);
  proxy = await startHaproxy(cluster.nodes);
});
afterAll(async () => {
  closeSockets();
  await proxy?.stop();
  await cluster.stop();
});

function through(token: string, transports: ("polling" | "websocket")[], upgrade: boolean): Promise<ClientSocket> {
  // withCredentials: socket.io-client keeps cookies in Node too (the stickiness cookie).
  const socket = connectClient(proxy.url, { auth: { token }, transports, upgrade, withCredentials: true, reconnection: false, forceNew: true });
  return new Promise((resolve, reject) => {
    socket.once("connect", () => resolve(socket));
    socket.once("connect_error", reject);
  });
}

test("haproxy is installed where the docs say", () => {
  expect(Bun.file(HAPROXY).size).toBeGreaterThan(0);
});

test("through HAProxy: a long-polling client (stuck to its node by the cookie) and a WebSocket client both get a message, once", async () => {
  const owner = await register(proxy);
  const member = await register(proxy);
  const { channelId } = await serverWith(proxy, owner, [member]);
  const polling = await through(member.token, ["polling"], false);
  const ws = await through(owner.token, ["websocket"], false);
  for (const socket of [polling, ws]) expect((await emitAck(socket, "channel:join", channelId)).ok).toBe(true);
  expect(polling.io.engine.transport.name).toBe("polling");
  const seen = [record(polling, "message:new"), record(ws, "message:new")];
  // Several sends: with round-robin polling and no stickiness, the session would be lost ("Session ID unknown").
  for (let i = 0; i < 5; i++) {
    expect((await api(proxy, "POST", `/api/v1/messages/${channelId}`, { token: owner.token, body: { content: `via haproxy ${i}` } })).status).toBe(201);
  }
  await eventually(() => seen.every((s) => s.length >= 5), "five messages on both sockets");
  await quietWindow(150); // once each
  for (const s of seen) expect(s.map((m) => m.content)).toEqual([0, 1, 2, 3, 4].map((i) => `via haproxy ${i}`));
  expect(polling.connected && ws.connected).toBe(true);
  polling.close();
  ws.close();
});

test("through HAProxy: a client that starts on polling upgrades to WebSocket on the same node", async () => {
  const user = await register(proxy);
  const socket = await through(user.token, ["polling", "websocket"], true);
  await eventually(() => socket.io.engine.transport.name === "websocket", "the upgrade");
  expect((await emitAck(socket, "status:set", { status: "idle" })).ok).toBe(true);
  socket.close();
});
