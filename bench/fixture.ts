/**
 * Shared pieces of the benches (message-send, interaction-roundtrip, connections, gateway-fanout,
 * audio-relay): command-line flags,
 * Hearth on a file database, a JSON API helper, percentiles, and child processes driven by
 * lines on stdin/stdout.
 */
import { join } from "node:path";
import type { Subprocess } from "bun";
import { createApp, type App, type AppOptions } from "../src/app.ts";
import { loadConfig, type Config } from "../src/config.ts";
import { EVENT_KINDS, type EventLimits } from "../src/gateway/event-limits.ts";
import { raisedRestRateLimits } from "../test/helpers/rate-limits.ts";
import { PAGE_COLUMNS } from "../src/store/messages-repo.ts";
import { pct } from "./quantile.ts";

/**
 * The gateway's abuse limits raised far past any real client (docs/gateway.md, "Limits"): a
 * bench drives one socket at thousands of events a second (3,200 audio frames/s, interaction
 * responses at saturation) and may put many connections on one user (`connections.ts --users`).
 * The outbound buffer bound stays at its default.
 */
export const BENCH_GATEWAY_LIMITS = {
  gatewayEventLimits: Object.fromEntries(EVENT_KINDS.map((kind) => [kind, { perSecond: 1_000_000, burst: 1_000_000 }])) as EventLimits,
  gatewayMaxConnectionsPerUser: 100_000,
  // Thousands of sockets connect at once from this machine's one address.
  gatewayMaxPendingSessionsPerAddress: 1_000_000,
} satisfies Partial<Config>;

/**
 * The REST rate limits raised far past any bench's load (docs/operations.md, "Rate limits"): a
 * bench reads or sends as one user thousands of times a second. The limiter still counts every
 * request, as in production; bench/rest-rate-limit.ts measures what that costs.
 */
export const BENCH_REST_LIMITS = raisedRestRateLimits() satisfies Partial<Config>;

/** `--name value` from argv, else `fallback`. */
export const argOf = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
};
export const hasFlag = (name: string): boolean => process.argv.includes(`--${name}`);
export const log = (line: string): void => void process.stderr.write(line + "\n");

export { pct } from "./quantile.ts";

/**
 * The REST benches' bare page read (rest-auth-read.ts --read page, message-send.ts): the
 * keyset SELECT of the columns Hearth's page reads (`PAGE_COLUMNS`) and their authors', one
 * JOIN; parameters channel id, before, limit.
 */
export const BARE_PAGE_SQL = `SELECT ${PAGE_COLUMNS}, u.username, u.avatar, u.is_bot FROM messages m JOIN users u ON u.id = m.user_id
  WHERE m.channel_id = ? AND m.id < ? ORDER BY m.id DESC LIMIT ?`;

export interface Latency {
  n: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}
export function latency(values: number[]): Latency {
  const sorted = [...values].sort((a, b) => a - b);
  return { n: sorted.length, p50_ms: pct(sorted, 0.5), p99_ms: pct(sorted, 0.99), max_ms: pct(sorted, 1) };
}
export const ratio = (a: number, b: number): number => Math.round((a / b) * 1000) / 1000;

/** What bench/load-client.ts (and bench/raw-load-client.ts) reports for a closed-loop load. */
export interface LoadResult {
  requests: number;
  errors: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  /** raw-load-client.ts: every request the server answered or had open, the warm-up included. */
  served?: number;
}

/**
 * The closed-loop load clients: `fetch` (bench/load-client.ts: ~20 µs of client CPU a request)
 * and `raw` (bench/raw-load-client.ts: prepared requests on keep-alive sockets, a few µs), which
 * saturates a server that answers in under ~20 µs, where `fetch` runs out of CPU first.
 */
export type LoadClient = "fetch" | "raw";

/**
 * Runs a load client (`concurrency` connections for `seconds` GETting `url` with `token`) in
 * its own process; answers its result and this process's CPU meanwhile, in µs (the servers
 * under test run here).
 */
/**
 * Requests the server handled during a closed-loop run, for its CPU per request: the raw client
 * counts them itself (`served`: its warm-up and the requests open at its end included); the
 * fetch clients (load-client.ts, post-client.ts) report the measured ones and warm up with
 * `concurrency` more.
 */
export const servedIn = (result: { requests: number; served?: number }, concurrency: number): number => result.served ?? result.requests + concurrency;

/** A closed-loop run's result with the server CPU it cost. */
export type LoadedRun = LoadResult & { cpu_us: number };

/** Several closed-loop runs of `seconds` each with `concurrency` clients, summed into one row. */
export function sumRuns(results: LoadedRun[], seconds: number, concurrency: number) {
  const requests = results.reduce((n, r) => n + r.requests, 0);
  const served = results.reduce((n, r) => n + servedIn(r, concurrency), 0);
  return {
    requests,
    errors: results.reduce((n, r) => n + r.errors, 0),
    rps: Math.round(requests / (seconds * results.length)),
    p50_ms: Math.max(...results.map((r) => r.p50_ms)),
    p99_ms: Math.max(...results.map((r) => r.p99_ms)),
    cpu_us_per_request: Math.round((results.reduce((n, r) => n + r.cpu_us, 0) / served) * 10) / 10,
  };
}

export async function runLoadClient(url: string, token: string, seconds: number, concurrency: number, client: LoadClient = "fetch"): Promise<{ result: LoadResult; cpu_us: number }> {
  const cpu0 = process.cpuUsage();
  const script = client === "raw" ? "raw-load-client.ts" : "load-client.ts";
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, script), url, String(seconds), String(concurrency), token], {
    stdout: "pipe",
    stderr: "inherit",
  });
  const out = await new Response(proc.stdout).text();
  if ((await proc.exited) !== 0) throw new Error("load client failed");
  const cpu = process.cpuUsage(cpu0);
  return { result: JSON.parse(out.trim().split("\n").at(-1)!) as LoadResult, cpu_us: cpu.user + cpu.system };
}

export interface Spread {
  n: number;
  p50_ms: number;
  p95_ms: number;
  max_ms: number;
}
const spread = (values: number[]): Spread => {
  const sorted = [...values].sort((a, b) => a - b);
  return { n: sorted.length, p50_ms: pct(sorted, 0.5), p95_ms: pct(sorted, 0.95), max_ms: pct(sorted, 1) };
};

/**
 * Another client's view of the server while something loads it: `GET <url>/api/v1` and
 * `gatewayRoundTrip` (an ack'd emit), each every 10 ms from now on. `stop()` first waits until
 * a GET is answered within 50 ms again (the server has worked through what it received; at
 * most 60 s), then gives the latencies of both.
 */
export function watchLatency(url: string, gatewayRoundTrip: () => Promise<unknown>) {
  const rest: number[] = [];
  const gateway: number[] = [];
  let running = true;
  const loop = async (samples: number[], once: () => Promise<unknown>) => {
    while (running) {
      const t0 = performance.now();
      await once();
      samples.push(performance.now() - t0);
      await Bun.sleep(10);
    }
  };
  const get = () => fetch(`${url}/api/v1`).then((r) => r.arrayBuffer());
  const loops = [loop(rest, get), loop(gateway, gatewayRoundTrip)];
  return {
    async stop(): Promise<{ rest: Spread; gateway: Spread }> {
      for (const t0 = performance.now(); performance.now() - t0 < 60_000; ) {
        const s0 = performance.now();
        await get();
        if (performance.now() - s0 < 50) break;
      }
      running = false;
      await Promise.all(loops);
      return { rest: spread(rest), gateway: spread(gateway) };
    },
  };
}

/** Hearth as in production (file database in `dataDir`), silent, with the auth rate limit, the REST rate limits and the gateway's event limits raised. */
export function hearthConfig(dataDir: string, overrides: Partial<Config> = {}): Config {
  return {
    ...loadConfig({}),
    port: 0,
    host: "127.0.0.1",
    dataDir,
    databaseFile: join(dataDir, "hearth.db"),
    logLevel: "silent",
    authRateLimitPerMinute: 1_000_000,
    ...BENCH_GATEWAY_LIMITS,
    ...BENCH_REST_LIMITS,
    // Setting users up is not what is measured; the login path is not on any measured path.
    passwordHashing: { memoryCost: 1024, timeCost: 1 },
    ...overrides,
  };
}

export type Api = <T>(method: string, path: string, body?: unknown, token?: string) => Promise<T>;

/** JSON calls against `baseUrl`; anything but 2xx throws with the answer. */
export function apiFor(baseUrl: string): Api {
  return async <T>(method: string, path: string, body?: unknown, token?: string): Promise<T> => {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers["content-type"] = "application/json";
    if (token) headers.authorization = `Bearer ${token}`;
    const res = await fetch(baseUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    // Bench-only: the answers' shapes are the API's, checked by the test suite.
    return (await res.json()) as T;
  };
}

export interface Account {
  token: string;
  id: string;
}

export async function register(api: Api, name: string): Promise<Account> {
  const r = await api<{ token: string; user: { id: string } }>("POST", "/api/v1/auth/register", {
    username: name,
    email: `${name}@example.test`,
    password: "bench-password",
  });
  return { token: r.token, id: r.user.id };
}

/** A server owned by `owner`, and its `general` text channel. */
export async function community(app: App, api: Api, owner: Account): Promise<{ serverId: string; channelId: string }> {
  const { id: serverId } = await api<{ id: string }>("POST", "/api/v1/servers", { name: "bench" }, owner.token);
  const [general] = await app.store.channels.listByServer(serverId);
  if (!general) throw new Error("the new server has no channel");
  return { serverId, channelId: general.id };
}

export async function startHearth(dataDir: string, overrides: Partial<Config> = {}, options: AppOptions = {}): Promise<{ app: App; api: Api }> {
  const app = await createApp(hearthConfig(dataDir, overrides), options);
  return { app, api: apiFor(app.url) };
}

/** A command put before every LineProcess's own (bench/capacity-search.ts `pinCores`: `taskset -c 1`). */
let loadPrefix: string[] = [];
export const setLoadPrefix = (prefix: string[]): void => {
  loadPrefix = prefix;
};

/** A child process driven by lines: `next()` reads one, `ask()` writes one and reads the answer. */
export class LineProcess {
  readonly proc: Subprocess<"pipe", "pipe", "inherit">;
  private readonly lines: string[] = [];
  private waiting: ((line: string) => void) | null = null;
  private closed = false;

  constructor(cmd: string[]) {
    const proc = Bun.spawn([...loadPrefix, ...cmd], { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
    this.proc = proc;
    void (async () => {
      let buffer = "";
      const decoder = new TextDecoder();
      for await (const chunk of proc.stdout) {
        buffer += decoder.decode(chunk, { stream: true });
        let nl: number;
        while ((nl = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          if (this.intercept(line)) continue;
          if (this.waiting) {
            const w = this.waiting;
            this.waiting = null;
            w(line);
          } else this.lines.push(line);
        }
      }
      this.closed = true;
      this.waiting?.("");
    })();
  }

  /** A subclass takes the lines it handles itself (progress reports) out of the answers here. */
  protected intercept(_line: string): boolean {
    return false;
  }

  next(timeoutMs = 120_000): Promise<string> {
    const line = this.lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.closed) return Promise.reject(new Error("child exited"));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("child timed out")), timeoutMs);
      this.waiting = (l) => {
        clearTimeout(timer);
        if (this.closed && l === "") reject(new Error("child exited"));
        else resolve(l);
      };
    });
  }

  async ask(cmd: string, timeoutMs?: number): Promise<string> {
    this.send(cmd);
    return this.next(timeoutMs);
  }

  send(cmd: string): void {
    this.proc.stdin.write(cmd + "\n");
    this.proc.stdin.flush();
  }

  kill(): void {
    this.proc.kill("SIGKILL");
  }
}
