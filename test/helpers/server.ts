import { expect } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { io as connectClient, type Socket as ClientSocket } from "socket.io-client";
import { createApp, type App, type AppOptions } from "../../src/app.ts";
import { loadConfig, type Config } from "../../src/config.ts";
import { checkAgainstReference, checkEventPayload } from "./reference.ts";
import { freshDatabase } from "./database.ts";

export type { ClientSocket };

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface RequestOptions {
  token?: string | null;
  body?: unknown;
  /** Sent as-is (a string or FormData), bypassing JSON encoding. */
  raw?: RequestInit["body"];
  headers?: Record<string, string>;
}

export interface TestUser {
  token: string;
  id: string;
  username: string;
  email: string;
  password: string;
  user: Record<string, unknown>;
}

let counter = 0;
export const uniqueName = (prefix = "user") => `${prefix}_${process.pid.toString(36)}${(++counter).toString(36)}`;

/**
 * A real Hearth on port 0 with a database of its own (SQLite in memory, or under
 * `npm run test:postgres` a fresh PostgreSQL database: test/helpers/database.ts) and its own
 * temp data dir. Argon2 runs at a low cost here only to keep the suites fast.
 */
export async function startServer(overrides: Partial<Config> = {}, options: AppOptions = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), "hearth-test-"));
  // A test that restarts on the same data passes `databaseUrl` (PostgreSQL) or `databaseFile` (SQLite).
  // Given `databaseUrl` (even undefined: the SQLite file of `databaseFile`), that database is used and kept.
  const database =
    "databaseUrl" in overrides
      ? { env: overrides.databaseUrl ? { DATABASE_URL: overrides.databaseUrl } : {}, drop: async () => {} }
      : await freshDatabase();
  const config: Config = {
    ...loadConfig({}),
    port: 0,
    host: "127.0.0.1",
    dataDir,
    databaseFile: ":memory:",
    databaseUrl: database.env.DATABASE_URL,
    jwtSecret: "test-secret-test-secret-test-secret-0123456789",
    logLevel: (process.env.TEST_LOG_LEVEL as Config["logLevel"]) ?? "silent",
    authRateLimitPerMinute: 1_000_000,
    loginFailuresPerAccountPerMinute: 1_000_000,
    loginFailuresPerAccountTotalPerMinute: 1_000_000,
    passwordHashing: { memoryCost: 1024, timeCost: 1 },
    // A test's stop waits for requests it left in flight no longer than this.
    drainTimeoutMs: 2000,
    ...overrides,
  };
  let app: App;
  try {
    app = await createApp(config, options);
  } catch (error) {
    await database.drop();
    throw error;
  }
  const sockets = new Set<ClientSocket>();
  const url = app.url;

  async function api<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: RequestInit["body"] = options.raw;
    if (options.body !== undefined) {
      headers["content-type"] ??= "application/json";
      body = JSON.stringify(options.body);
    }
    const response = await fetch(url + path, { method, headers, body, redirect: "manual" });
    const text = await response.text();
    let parsed: unknown = text;
    if ((response.headers.get("content-type") ?? "").includes("application/json") && text) parsed = JSON.parse(text);
    // Every answer is held to the API reference (./reference.ts): undocumented routes, statuses and shapes fail here.
    await checkAgainstReference(url, { method, path, status: response.status, contentType: response.headers.get("content-type") ?? "", body: parsed });
    return { status: response.status, body: parsed as T, headers: response.headers };
  }

  async function register(name = uniqueName()): Promise<TestUser> {
    const email = `${name}@example.test`;
    const password = `pw-${name}-secret`;
    const res = await api("POST", "/api/v1/auth/register", { body: { username: name, email, password } });
    if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
    return { token: res.body.token, id: res.body.user.id, username: name, email, password, user: res.body.user };
  }

  /** A connected socket.io-client socket; rejects with the connect_error message. */
  function connect(token: string | undefined, options: { transports?: ("websocket" | "polling")[] } = {}): Promise<ClientSocket> {
    const socket = connectClient(url, {
      auth: token === undefined ? {} : { token },
      transports: options.transports ?? ["websocket"],
      reconnection: false,
      forceNew: true,
    });
    sockets.add(socket);
    return new Promise((resolve, reject) => {
      socket.once("connect", () => resolve(socket));
      socket.once("connect_error", (error) => reject(error));
    });
  }

  async function stop() {
    for (const socket of sockets) socket.close();
    await app.stop();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }

  return { app, url, dataDir, config, api, register, connect, stop };
}

export type TestServer = Awaited<ReturnType<typeof startServer>>;

/** The next `event` on `socket` (optionally the next one matching `filter`), or a timeout error. */
export function waitForEvent<T = any>(
  socket: ClientSocket,
  event: string,
  { timeout = 3000, filter }: { timeout?: number; filter?: (payload: T) => boolean } = {},
): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.off(event, listener);
      reject(new Error(`timed out waiting for ${event}`));
    }, timeout);
    const listener = (payload: T) => {
      if (filter && !filter(payload)) return;
      clearTimeout(timer);
      socket.off(event, listener);
      try {
        checkEventPayload(event, payload);
      } catch (error) {
        return reject(error);
      }
      resolve(payload);
    };
    socket.on(event, listener);
  });
}

/** Collects every `event` on `socket` from now on. */
export function recordEvents<T = any>(socket: ClientSocket, event: string): T[] {
  const seen: T[] = [];
  // A payload that does not match the AsyncAPI document fails the test (an uncaught error).
  socket.on(event, (payload: T) => {
    checkEventPayload(event, payload);
    seen.push(payload);
  });
  return seen;
}

// The waiting helpers live in ./wait.ts (the cluster and browser suites use them without the app).
export { waitForDisconnect } from "./wait.ts";

/** An error answer: exactly `{error: <string>}` with `status`, and the message when given. */
export function expectError(res: { status: number; body: any }, status: number, error?: string | RegExp): void {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status} ${JSON.stringify(res.body)}`);
  expect(Object.keys(res.body)).toEqual(["error"]);
  expect(typeof res.body.error).toBe("string");
  if (typeof error === "string") expect(res.body.error).toBe(error);
  else if (error) expect(res.body.error).toMatch(error);
}

