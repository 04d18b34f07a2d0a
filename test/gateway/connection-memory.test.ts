import { afterAll, beforeAll, expect, test } from "bun:test";
import { Server as Engine } from "@socket.io/bun-engine";
import { Server } from "socket.io";
import { io as connectTo, type Socket as ClientSocket } from "socket.io-client";
import { slimConnectionState } from "../../src/gateway/connection-memory.ts";
import { until } from "../helpers/server.ts";

/**
 * src/gateway/connection-memory.ts on a Socket.IO server of its own with short ping timers
 * (Hearth's engine pings every 25 s): the engine's ping cycle, a lost peer, and Socket.IO's
 * client over both transports, with the shared listeners and small maps installed.
 */

const PING_MS = 100;
/** Generous: socket.io-client closes on its own after interval + timeout without a ping, and the machine may be loaded. */
const PING_TIMEOUT_MS = 2000;
let io: Server;
let bun: ReturnType<typeof Bun.serve>;
let url: string;

beforeAll(() => {
  slimConnectionState();
  io = new Server();
  const engine = new Engine({ path: "/socket.io/", pingInterval: PING_MS, pingTimeout: PING_TIMEOUT_MS });
  io.bind(engine);
  io.on("connection", (socket) => {
    socket.on("echo", (payload: unknown, ack: (answer: unknown) => void) => ack(payload));
  });
  const { websocket, fetch } = engine.handler();
  bun = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch, websocket, idleTimeout: 10 });
  url = `http://127.0.0.1:${bun.port}`;
});
afterAll(async () => {
  io.close();
  await bun.stop(true);
});

interface EngineSocketState {
  pingIntervalTimer?: unknown;
  pingTimeoutTimer?: unknown;
  transport: { name: string };
}
const engineSocketOf = (id: string) => io.of("/").sockets.get(id)!.conn as unknown as EngineSocketState;

async function open(transports: ("websocket" | "polling")[]): Promise<ClientSocket> {
  const socket = connectTo(url, { transports, reconnection: false, forceNew: true });
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("connect_error", reject);
  });
  return socket;
}

for (const transports of [["websocket"], ["polling"], ["polling", "websocket"]] as const) {
  test(`over ${transports.join(" then ")}: pings are answered for several cycles, events and acks go through, and the answered ping's timer is let go`, async () => {
    const client = await open([...transports]);
    if (transports.length === 2) await until(() => engineSocketOf(client.id!).transport.name === "websocket", "the upgrade");
    const server = engineSocketOf(client.id!);
    let pings = 0;
    client.io.engine.on("ping", () => pings++);
    await until(() => pings >= 3, "three pings", 10_000);
    expect(client.connected).toBe(true);
    expect(await client.timeout(2000).emitWithAck("echo", { n: 1 })).toEqual({ n: 1 });
    // Between a pong and the next ping the socket holds one timer (the engine kept the cleared one).
    await until(() => server.pingTimeoutTimer === undefined, "the pong", 5000);
    expect(server.pingIntervalTimer).toBeDefined();
    client.close();
    await until(() => io.of("/").sockets.size === 0, "the socket to close");
  }, 20_000);
}

test("a peer that stops answering pings is closed after the ping timeout, as before", async () => {
  // A raw Engine.IO v4 client that connects to the namespace and then never answers a ping.
  const ws = new WebSocket(`${url.replace("http", "ws")}/socket.io/?EIO=4&transport=websocket`);
  const sid = await new Promise<string>((resolve) => {
    ws.onmessage = (event) => {
      const data = String(event.data);
      if (data.startsWith("0{")) ws.send("40");
      else if (data.startsWith("40{")) resolve((JSON.parse(data.slice(2)) as { sid: string }).sid);
    };
  });
  const started = Date.now();
  const reason = await new Promise<string>((resolve) => io.of("/").sockets.get(sid)!.once("disconnect", resolve));
  expect(reason).toBe("ping timeout");
  expect(Date.now() - started).toBeGreaterThanOrEqual(PING_TIMEOUT_MS - 50);
  ws.close();
}, 20_000);

test("several namespaces on one connection keep working (the client's map of sockets past one entry)", async () => {
  io.of("/other").on("connection", (socket) => {
    socket.on("echo", (payload: unknown, ack: (answer: unknown) => void) => ack({ other: payload }));
  });
  const main = connectTo(url, { transports: ["websocket"], reconnection: false, forceNew: true });
  const other = main.io.socket("/other");
  other.connect();
  await until(() => main.connected && other.connected, "both namespaces");
  expect(await main.timeout(2000).emitWithAck("echo", 1)).toBe(1);
  expect(await other.timeout(2000).emitWithAck("echo", 2)).toEqual({ other: 2 });
  other.disconnect();
  await until(() => io.of("/other").sockets.size === 0, "the /other socket to leave");
  expect(await main.timeout(2000).emitWithAck("echo", 3)).toBe(3);
  main.close();
  await until(() => io.of("/").sockets.size === 0, "the socket to close");
});
