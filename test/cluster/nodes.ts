/**
 * Hearth nodes for the cluster suites (npm run test:cluster; scripts/test-cluster.ts): real
 * processes (`bun src/main.ts`) on loopback ports, all on the same PostgreSQL database and Redis,
 * with the same JWT_SECRET and SECRETS_KEY, as in production. Clients are real socket.io-client
 * sockets and fetch.
 */
import { afterAll, afterEach, beforeAll } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { io as connectClient, type Socket as ClientSocket } from "socket.io-client";
import type { Subprocess } from "bun";
import { freePort } from "../../scripts/pg-cluster.ts";
import { eventually as eventuallyWithin } from "../helpers/wait.ts";

export type { ClientSocket };

const ROOT = resolve(import.meta.dir, "../..");
export const DATABASE_URL = process.env.HEARTH_CLUSTER_DATABASE_URL ?? "";
export const REDIS_URL = process.env.HEARTH_CLUSTER_REDIS_URL ?? "";
if (!DATABASE_URL || !REDIS_URL) throw new Error("the cluster suites run under npm run test:cluster (scripts/test-cluster.ts)");

export const CLUSTER_ENV = {
  DATABASE_URL,
  REDIS_URL,
  JWT_SECRET: "cluster-test-secret-cluster-test-secret-0123",
  SECRETS_KEY: "a".repeat(64),
  AUTH_RATE_LIMIT_PER_MINUTE: "100000",
  // Small, so that the shared window is reached in a few requests spread over the nodes.
  LOGIN_FAILURES_PER_ACCOUNT_PER_MINUTE: "4",
  GATEWAY_MAX_CONNECTIONS_PER_USER: "100",
};

export interface HearthNode {
  name: string;
  url: string;
  port: number;
  process: Subprocess;
  /** Whether it still runs (false after kill). */
  alive: boolean;
  /** Where its log's info and debug lines go (nothing there with TEST_LOG_LEVEL set: the terminal gets it). */
  logFile: string;
  /** What it wrote to stderr so far (its warnings and errors; the terminal gets them too). */
  stderr(): string;
  kill(signal: "SIGKILL" | "SIGTERM"): Promise<void>;
}

export interface Nodes {
  nodes: HearthNode[];
  /** Each node's DATA_DIR is `<dataDir>/<name>`: nodes share nothing on disk, as on separate machines (uploads live in the database). */
  dataDir: string;
  start(name: string, env?: Record<string, string>): Promise<HearthNode>;
  stop(): Promise<void>;
}

async function waitForHttp(url: string, child: Subprocess, deadlineMs = 30_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`node exited with ${child.exitCode} before listening`);
    try {
      const response = await fetch(`${url}/api/v1`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await Bun.sleep(100);
  }
  throw new Error(`node at ${url} did not answer in time`);
}

/** Starts `count` nodes (n1, n2, ...) in parallel; `env` is added to each one's environment. */
export async function startNodes(count: number, env: Record<string, string> = {}): Promise<Nodes> {
  const dataDir = mkdtempSync(join(tmpdir(), "hearth-cluster-"));
  const logDir = mkdtempSync(join(tmpdir(), "hearth-cluster-logs-"));
  const nodes: HearthNode[] = [];
  async function start(name: string, extra: Record<string, string> = {}): Promise<HearthNode> {
    const port = freePort();
    // Each node's log goes to a file (shown when the node misbehaves), or to the terminal with TEST_LOG_LEVEL.
    const logFile = join(logDir, `${name}-${port}.log`);
    const child = Bun.spawn([process.execPath, "src/main.ts"], {
      cwd: ROOT,
      env: { ...process.env, ...CLUSTER_ENV, LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "info", ...env, ...extra, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: join(dataDir, name) },
      stdout: process.env.TEST_LOG_LEVEL ? "inherit" : Bun.file(logFile),
      stderr: "pipe",
    });
    let stderr = "";
    void (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of child.stderr) {
        process.stderr.write(chunk);
        stderr += decoder.decode(chunk, { stream: true });
      }
    })();
    const node: HearthNode = {
      name,
      url: `http://127.0.0.1:${port}`,
      port,
      process: child,
      alive: true,
      logFile,
      stderr: () => stderr,
      async kill(signal) {
        if (!node.alive) return;
        node.alive = false;
        child.kill(signal);
        // A node must stop by itself on SIGTERM (docs/operations.md, "Shutdown"): one that has not
        // within 15 s is named here and killed, so the suite ends.
        const stopped = await Promise.race([child.exited.then(() => true), Bun.sleep(15_000).then(() => false)]);
        if (!stopped) {
          const tail = process.env.TEST_LOG_LEVEL ? "" : readFileSync(logFile, "utf8").split("\n").slice(-8).join("\n");
          console.error(`node ${name} did not exit within 15 s of ${signal}; killing it. Its last log lines:\n${tail}`);
          child.kill("SIGKILL");
          await child.exited;
        }
      },
    };
    nodes.push(node);
    await waitForHttp(node.url, child);
    return node;
  }
  try {
    await Promise.all(Array.from({ length: count }, (_, i) => start(`n${i + 1}`)));
  } catch (error) {
    for (const node of nodes) await node.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(logDir, { recursive: true, force: true });
    throw error;
  }
  nodes.sort((a, b) => a.name.localeCompare(b.name));
  return {
    nodes,
    dataDir,
    start,
    async stop() {
      await Promise.all(nodes.map((node) => node.kill("SIGTERM")));
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(logDir, { recursive: true, force: true });
    },
  };
}

// ---- clients ----

export interface ApiResponse<T = any> {
  status: number;
  body: T;
}

export async function api<T = any>(node: { url: string }, method: string, path: string, options: { token?: string; body?: unknown } = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(node.url + path, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await response.text();
  const body = (response.headers.get("content-type") ?? "").includes("application/json") && text ? JSON.parse(text) : text;
  return { status: response.status, body: body as T };
}

let counter = 0;
export const uniqueName = (prefix = "c") => `${prefix}_${process.pid.toString(36)}${(++counter).toString(36)}`;

export interface ClusterUser {
  id: string;
  username: string;
  password: string;
  token: string;
}

export async function register(node: { url: string }, name = uniqueName()): Promise<ClusterUser> {
  const password = `pw-${name}-secret`;
  const res = await api(node, "POST", "/api/v1/auth/register", { body: { username: name, email: `${name}@example.test`, password } });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.user.id, username: name, password, token: res.body.token };
}

const opened = new Set<ClientSocket>();

/** A connected socket.io-client socket to `node`; rejects with the connect_error message. */
export function connect(
  node: { url: string },
  token: string,
  options: { transports?: ("websocket" | "polling")[]; reconnection?: boolean; upgrade?: boolean } = {},
): Promise<ClientSocket> {
  const socket = connectClient(node.url, {
    auth: { token },
    transports: options.transports ?? ["websocket"],
    upgrade: options.upgrade ?? true,
    reconnection: options.reconnection ?? false,
    forceNew: true,
  });
  opened.add(socket);
  return new Promise((resolve, reject) => {
    socket.once("connect", () => resolve(socket));
    socket.once("connect_error", (error) => reject(error));
  });
}

export function closeSockets(): void {
  for (const socket of opened) socket.close();
  opened.clear();
}

export type ThreeNodes = [HearthNode, HearthNode, HearthNode];

/**
 * A suite's three nodes: started before its tests (`started` gets them), stopped after them; the
 * sockets its tests opened are closed after each test.
 */
export function useThreeNodes(started: (nodes: ThreeNodes) => void, env: Record<string, string> = {}): void {
  let cluster: Nodes | undefined;
  beforeAll(async () => {
    cluster = await startNodes(3, env);
    started(cluster.nodes as ThreeNodes);
  });
  afterAll(async () => {
    closeSockets();
    await cluster?.stop();
  });
  afterEach(() => closeSockets());
}

/** Every `event` a socket receives from now on, in order. */
export function record<T = any>(socket: ClientSocket, event: string): T[] {
  const seen: T[] = [];
  socket.on(event, (payload: T) => seen.push(payload));
  return seen;
}

/**
 * test/helpers/wait.ts's `eventually` with a longer default: a node is a process of its own and
 * cross-node delivery goes through Redis. `what` may be a function, to tell what was there when it timed out.
 */
export async function eventually(check: () => boolean | Promise<boolean>, what: string | (() => string), ms = 10_000): Promise<void> {
  await eventuallyWithin(check, what, { timeoutMs: ms, intervalMs: 20 });
}

/** An ack'ed client event; resolves with the ack. */
export function emitAck<T = any>(socket: ClientSocket, event: string, payload?: unknown): Promise<T> {
  return socket.timeout(10_000).emitWithAck(event, payload) as Promise<T>;
}

/** A server with a text channel, owned by `owner`, joined by `members` (through an invite). */
export async function serverWith(node: { url: string }, owner: ClusterUser, members: ClusterUser[]) {
  const server = await api(node, "POST", "/api/v1/servers", { token: owner.token, body: { name: uniqueName("srv") } });
  if (server.status !== 201) throw new Error(`server create failed: ${server.status} ${JSON.stringify(server.body)}`);
  const list = await api(node, "GET", `/api/v1/channels/${server.body.id}`, { token: owner.token });
  const text = list.body.channels.find((c: { type: string }) => c.type === "text");
  const invite = await api(node, "POST", `/api/v1/servers/${server.body.id}/invites`, { token: owner.token, body: {} });
  if (invite.status !== 201) throw new Error(`invite failed: ${invite.status} ${JSON.stringify(invite.body)}`);
  for (const member of members) {
    const joined = await api(node, "POST", `/api/v1/servers/join/${invite.body.code}`, { token: member.token });
    if (joined.status !== 200) throw new Error(`join failed: ${joined.status} ${JSON.stringify(joined.body)}`);
  }
  return { serverId: server.body.id as string, channelId: text.id as string };
}

/** A socket of `user` on `node` that has joined `channelId`'s room (`channel:join` acked). */
export async function joinChannel(node: { url: string }, user: ClusterUser, channelId: string, transports?: ("websocket" | "polling")[]): Promise<ClientSocket> {
  const socket = await connect(node, user.token, { transports });
  const ack = await emitAck(socket, "channel:join", channelId);
  if (!ack.ok) throw new Error(`channel:join failed: ${JSON.stringify(ack)}`);
  return socket;
}

/** Makes `user` a platform administrator with the host command (npm run admin). */
export function promote(user: ClusterUser): void {
  const result = Bun.spawnSync([process.execPath, "src/admin-cli.ts", "promote", user.username], {
    cwd: ROOT,
    env: { ...process.env, ...CLUSTER_ENV, LOG_LEVEL: "silent" },
  });
  if (!result.success) throw new Error(`promote failed: ${result.stderr.toString()}${result.stdout.toString()}`);
}
