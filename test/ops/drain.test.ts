import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { io as connectClient, type Socket as ClientSocket } from "socket.io-client";
import { DRAINING } from "../../src/ops/readiness.ts";
import { SHUTTING_DOWN } from "../../src/ops/drain.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { startProcess, type HearthProcess } from "../helpers/process.ts";
import { parsePrometheus, valueOf } from "../helpers/prometheus.ts";
import { slowPost } from "../helpers/slow-request.ts";
import { startTcpProxy } from "../helpers/tcp-proxy.ts";

/**
 * Draining on SIGTERM, with real processes (docs/operations.md, "Draining"): two Hearth nodes
 * on one database behind a TCP stand-in for a load balancer, and real socket.io-clients.
 */
const dataDir = mkdtempSync(join(tmpdir(), "hearth-drain-"));
const started: HearthProcess[] = [];
const clients: ClientSocket[] = [];
let database: TestDatabase | null = null;
let proxy: ReturnType<typeof startTcpProxy> | null = null;
afterAll(async () => {
  for (const client of clients) client.close();
  proxy?.stop();
  for (const node of started) node.proc.kill("SIGKILL");
  await Promise.all(started.map((node) => node.proc.exited));
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function node(extra: Record<string, string> = {}) {
  const started_ = await startProcess({ DATA_DIR: dataDir, JWT_SECRET: "drain-secret-drain-secret-drain-secret-01", AUTH_RATE_LIMIT_PER_MINUTE: "1000", ...database!.env, ...extra });
  started.push(started_);
  return started_;
}

async function call<T = any>(base: string, method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: (res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text) as T };
}

const connections = async (base: string, transport: string) =>
  valueOf(parsePrometheus((await call<string>(base, "GET", "/metrics")).body), "hearth_gateway_connections", { transport });

function waitFor<T>(what: string, register: (done: (value: T) => void) => void, ms = 15_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
    register((value) => {
      clearTimeout(timer);
      resolve(value);
    });
  });
}

test(
  "SIGTERM drains: 503 on /readyz and new requests, clients reconnect to the other node, the request in flight completes, exit 0",
  async () => {
    database = await freshDatabase();
    const a = await node({ DRAIN_TIMEOUT_MS: "20000" });
    const b = await node();
    proxy = startTcpProxy([Number(new URL(a.url).port), Number(new URL(b.url).port)]);
    const lb = proxy.url;

    const owner = (await call(lb, "POST", "/api/v1/auth/register", { username: "drainer", email: "drainer@example.test", password: "drainer-password" })).body;
    const serverId = (await call(lb, "POST", "/api/v1/servers", { name: "drain" }, owner.token)).body.id;
    const channelId = (await call(lb, "GET", `/api/v1/channels/${serverId}`, undefined, owner.token)).body.channels.find((c: { type: string }) => c.type === "text").id;

    // One client per transport, through the balancer; each joins the channel on every connect, as an app does.
    const reasons = new Map<ClientSocket, string[]>();
    const joined = new Map<ClientSocket, Promise<{ ok: boolean }>>();
    for (const transports of [["websocket"], ["polling"]] as const) {
      const client = connectClient(lb, { auth: { token: owner.token }, transports: [...transports], forceNew: true, reconnectionDelay: 100, reconnectionDelayMax: 300 });
      clients.push(client);
      reasons.set(client, []);
      client.on("connect", () => joined.set(client, client.emitWithAck("channel:join", channelId)));
      client.on("disconnect", (reason) => reasons.get(client)!.push(reason));
    }
    await Promise.all(clients.map((client) => waitFor("connect", (done) => (client.connected ? done(null) : client.once("connect", () => done(null))))));
    expect(await connections(a.url, "websocket")).toBe(1);
    expect(await connections(a.url, "polling")).toBe(1);
    expect(await connections(b.url, "websocket")).toBe(0);

    // A send in flight on node A: its body is half there when A is told to stop.
    const inFlight = slowPost(a.url, `/api/v1/messages/${channelId}`, owner.token, { content: "finished while draining" });
    // Nothing outside node A's process tells when it has read the head; a moment for it.
    await Bun.sleep(300);
    const disconnected = clients.map((client) => waitFor<string>("disconnect", (done) => client.once("disconnect", done)));
    // Connected again: the namespace's connect (the manager's "reconnect" comes before it).
    const reconnected = clients.map((client) => waitFor("connect again", (done) => client.once("connect", () => done(null)), 30_000));
    const signalled = performance.now();
    a.proc.kill("SIGTERM");

    // The gateway clients lose their transport: socket.io-client reconnects by itself on that.
    expect(await Promise.all(disconnected)).toEqual(["transport close", "transport close"]);
    // A still answers its probes while the request is in flight: not ready; new requests refused.
    expect(await call(a.url, "GET", "/readyz")).toEqual({ status: 503, body: { error: DRAINING } });
    expect(await call(a.url, "GET", "/api/v1")).toEqual({ status: 503, body: { error: SHUTTING_DOWN } });
    expect((await call(a.url, "GET", "/healthz")).status).toBe(200);
    expect(a.proc.exitCode).toBeNull();

    inFlight.finish();
    const answered = await inFlight.answer;
    expect(answered.status).toBe(201);
    expect(answered.body.content).toBe("finished while draining");
    expect(await a.proc.exited).toBe(0);
    expect(performance.now() - signalled).toBeLessThan(20_000);
    expect(a.output()).toContain('"msg":"stopped"');

    // Both clients are back, on B, and hear what is sent there.
    await Promise.all(reconnected);
    for (const client of clients) expect(reasons.get(client)).toEqual(["transport close"]);
    expect(await connections(b.url, "websocket")).toBe(1);
    expect(await connections(b.url, "polling")).toBe(1);
    for (const client of clients) expect((await joined.get(client))!.ok).toBe(true);
    const heard = clients.map((client) => waitFor<{ id: string }>("message:new", (done) => client.once("message:new", done)));
    const later = await call(lb, "POST", `/api/v1/messages/${channelId}`, { content: "after the move" }, owner.token);
    expect(later.status).toBe(201);
    for (const got of await Promise.all(heard)) expect(got.id).toBe(later.body.id);
    // The send A finished while draining was committed before A closed its database.
    const history = (await call(lb, "GET", `/api/v1/messages/${channelId}`, undefined, owner.token)).body as { id: string }[];
    expect(history.map((m) => m.id)).toContain(answered.body.id);
  },
  60_000,
);

test(
  "a request that never finishes holds the drain for DRAIN_TIMEOUT_MS at most; the node still exits 0",
  async () => {
    database ??= await freshDatabase();
    const c = await node({ DRAIN_TIMEOUT_MS: "1000" });
    const owner = (await call(c.url, "POST", "/api/v1/auth/register", { username: "stuck", email: "stuck@example.test", password: "stuck-password" })).body;
    const stuck = slowPost(c.url, "/api/v1/servers", owner.token, { name: "never sent whole" });
    const ended = stuck.answer.then(
      () => "answered",
      () => "connection closed",
    );
    // As above: a moment for node C to read the head.
    await Bun.sleep(300);
    const signalled = performance.now();
    c.proc.kill("SIGTERM");
    expect(await c.proc.exited).toBe(0);
    const took = performance.now() - signalled;
    expect(took).toBeGreaterThanOrEqual(900);
    expect(took).toBeLessThan(12_000);
    expect(await ended).toBe("connection closed");
  },
  30_000,
);
