/**
 * Idle authenticated gateway connections: server memory per connection at `--connections`
 * (10,000) and the connect rate, against a baseline in the same run: a bare Bun.serve
 * accepting the same number of raw WebSockets (memory per connection there).
 *
 * The server under test runs alone in a child process (bench/connections-server.ts) that
 * reports process.memoryUsage() after full collections on request; clients are light raw
 * WebSockets speaking Engine.IO v4 / Socket.IO framing (bench/idle-client.ts), `--per-process`
 * (2,500) connections per process, each process opening at most `--inflight` (64) handshakes
 * at a time. A Hearth connection counts once its Socket.IO CONNECT (`40{"token"}`) is
 * answered `40{"sid"}`, i.e. after the token check, the personal room join and the presence
 * update. Tokens: `--users` registered users (default connections / 10), used round-robin.
 *
 * Memory: RSS and JS heap of the server before (after a warm-up of 200 connections that
 * come and go, so the handshake's code is loaded) and after every connection is up and idle
 * for `--idle-seconds` (1), divided by the connections. Connect rate: connections over the wall time
 * from "go" to the last client process being done (all processes start together).
 *
 * Open files: the server needs one per connection; every child is started through
 * `sh -c 'ulimit -n ...'` with its limit raised to what it needs (past the hard limit only
 * with CAP_SYS_RESOURCE; otherwise up to the hard limit). If the server's limit is still too
 * low for `--connections`, the run stops before starting.
 * Prints a human summary on stderr and one JSON line on stdout.
 *
 * `--heap-types` also lists the JS object types that grew most per connection (where the heap goes).
 *
 * `--snapshot <file>` writes JSC heap snapshots of the server (`<file>.before`, `<file>`) for
 * bench/heap-snapshot.ts (what grew per connection, by type and by retainer); the RSS of such a
 * run includes the snapshots' own garbage. `--idle-seconds` (1) is how long the connections stay
 * idle before "after" is read; past 25 s the engine has pinged each of them once.
 *
 *   bun bench/connections.ts [--connections 10000] [--per-process 2500] [--inflight 64] [--users N] [--heap-types] [--snapshot FILE] [--idle-seconds 1] [--quick]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { apiFor, argOf, hasFlag, LineProcess, log, ratio, register } from "./fixture.ts";

const QUICK = hasFlag("quick");
const CONNECTIONS = Number(argOf("connections", QUICK ? "1000" : "10000"));
const PER_PROCESS = Number(argOf("per-process", QUICK ? "500" : "2500"));
const INFLIGHT = Number(argOf("inflight", "64"));
const USERS = Number(argOf("users", String(Math.max(1, Math.round(CONNECTIONS / 10)))));
const WARMUP = Math.min(200, CONNECTIONS);
const MODES = argOf("modes", "hearth,bare").split(",") as ("hearth" | "bare")[];
const HEAP_TYPES = hasFlag("heap-types");
/** A JSC heap snapshot of the server with every connection up is written there (bench/heap-snapshot.ts reads it). */
const SNAPSHOT = argOf("snapshot", "");
/** How long every connection is left idle before "after" is read (past 25 s: after the engine's first ping and pong). */
const IDLE_SECONDS = Number(argOf("idle-seconds", "1"));

/**
 * Shell that raises the open-files limit to at least `files` (never lowers it): past the hard
 * limit only root may go; otherwise it settles for the hard limit.
 */
const raiseFiles = (files: number) =>
  `c=$(ulimit -n); if [ "$c" != unlimited ] && [ "$c" -lt ${files} ]; then ulimit -n ${files} 2>/dev/null || ulimit -n "$(ulimit -Hn)"; fi`;
/** A child (bench script and its arguments) started with at least `files` open files allowed. */
const spawnWithFiles = (files: number, args: string[]) =>
  new LineProcess(["sh", "-c", `${raiseFiles(files)}; exec "$@"`, "sh", process.execPath, ...args]);
/** The open-files limit such a child gets. */
async function fileLimit(files: number): Promise<number> {
  const proc = Bun.spawn(["sh", "-c", `${raiseFiles(files)}; ulimit -n`], { stdout: "pipe" });
  return Number((await new Response(proc.stdout).text()).trim());
}

interface Memory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
}
interface Done {
  connected: number;
  failed: number;
  ms: number;
  errors: string[];
}

const mb = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;

/** Client processes for `total` connections; resolves once each has its configuration. */
async function clients(total: number, base: { proto: "sio" | "raw"; url: string; tokens?: string[] }): Promise<LineProcess[]> {
  const procs: LineProcess[] = [];
  for (let i = 0; i < total; i += PER_PROCESS) {
    const count = Math.min(PER_PROCESS, total - i);
    // Each process starts its round-robin at its own offset, so users spread evenly.
    const tokens = base.tokens ? [...base.tokens.slice(i % base.tokens.length), ...base.tokens.slice(0, i % base.tokens.length)] : undefined;
    const proc = spawnWithFiles(count + 512, [join(import.meta.dir, "idle-client.ts")]);
    procs.push(proc);
    if ((await proc.ask(JSON.stringify({ ...base, tokens, count, inflight: INFLIGHT }))) !== "ready") throw new Error("client not ready");
  }
  return procs;
}

async function waitForCount(server: LineProcess, want: number, timeoutMs = 30_000): Promise<number> {
  const end = performance.now() + timeoutMs;
  let n = Number(await server.ask("count"));
  while (n !== want && performance.now() < end) {
    await Bun.sleep(100);
    n = Number(await server.ask("count"));
  }
  return n;
}

async function measure(mode: "hearth" | "bare", dataDir: string) {
  const server = spawnWithFiles(CONNECTIONS + 1024, [join(import.meta.dir, "connections-server.ts"), mode, dataDir]);
  const procs: LineProcess[] = [];
  try {
    const ready = await server.next();
    if (!ready.startsWith("ready ")) throw new Error(`server: ${ready}`);
    const url = ready.slice("ready ".length);
    let tokens: string[] | undefined;
    if (mode === "hearth") {
      const api = apiFor(url);
      tokens = [];
      for (let i = 0; i < USERS; i += 16) {
        const batch = Array.from({ length: Math.min(16, USERS - i) }, (_, k) => register(api, `idle${i + k}`));
        for (const account of await Promise.all(batch)) tokens.push(account.token);
      }
    }
    const base = { proto: mode === "hearth" ? ("sio" as const) : ("raw" as const), url, ...(tokens ? { tokens } : {}) };

    // Warm-up: the handshake's code is loaded and compiled before "before" is read.
    const [warm] = await clients(WARMUP, base);
    const warmed = JSON.parse((await warm!.ask("go")).slice("done ".length)) as Done;
    if (warmed.failed) throw new Error(`warm-up: ${warmed.failed} failed: ${warmed.errors.join("; ")}`);
    warm!.send("quit");
    await warm!.proc.exited;
    if ((await waitForCount(server, 0)) !== 0) log(`  ${mode}: warm-up connections still open`);
    const before = JSON.parse(await server.ask("mem")) as Memory;
    if (SNAPSHOT && mode === "hearth") await server.ask(`snapshot ${SNAPSHOT}.before`, 120_000);
    const typesBefore = HEAP_TYPES ? (JSON.parse(await server.ask("types")) as Record<string, number>) : {};

    procs.push(...(await clients(CONNECTIONS, base)));
    const t0 = performance.now();
    for (const p of procs) p.send("go");
    const dones = (await Promise.all(procs.map((p) => p.next(600_000)))).map((l) => JSON.parse(l.slice("done ".length)) as Done);
    const seconds = (performance.now() - t0) / 1000;
    const connected = dones.reduce((s, d) => s + d.connected, 0);
    const failed = dones.reduce((s, d) => s + d.failed, 0);
    const errors = [...new Set(dones.flatMap((d) => d.errors))].slice(0, 5);
    await Bun.sleep(IDLE_SECONDS * 1000); // idle
    const open = Number(await server.ask("count"));
    const after = JSON.parse(await server.ask("mem")) as Memory;
    if (SNAPSHOT && mode === "hearth") await server.ask(`snapshot ${SNAPSHOT}`, 120_000);
    const per = (key: keyof Memory) => Math.round((after[key] - before[key]) / Math.max(1, open));
    if (HEAP_TYPES) {
      const typesAfter = JSON.parse(await server.ask("types")) as Record<string, number>;
      const grown = Object.entries(typesAfter)
        .map(([type, n]) => [type, (n - (typesBefore[type] ?? 0)) / Math.max(1, open)] as const)
        .filter(([, d]) => d >= 0.5)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 15);
      log(`  ${mode}: JS objects per connection: ${grown.map(([t, d]) => `${t} ${d.toFixed(1)}`).join(", ")}`);
    }
    return {
      connected,
      failed,
      errors,
      open_on_server: open,
      connect_seconds: Math.round(seconds * 1000) / 1000,
      connections_per_s: Math.round(connected / seconds),
      before,
      after,
      per_connection_bytes: { rss: per("rss"), heapUsed: per("heapUsed"), heapTotal: per("heapTotal"), external: per("external") },
    };
  } finally {
    await server.ask("quit", 10_000).catch(() => server.kill());
    for (const p of procs) p.kill();
  }
}

const dataDir = mkdtempSync(join(tmpdir(), "hearth-bench-connections-"));
try {
  const serverFiles = await fileLimit(CONNECTIONS + 1024);
  // Past the limit the server cannot even read its own memory (EMFILE): refuse up front.
  if (serverFiles < CONNECTIONS + 256) {
    throw new Error(`the server may open only ${serverFiles} files (ulimit -Hn, not raisable here), too few for ${CONNECTIONS} connections`);
  }
  const results: Record<string, Awaited<ReturnType<typeof measure>>> = {};
  for (const mode of MODES) results[mode] = await measure(mode, dataDir);
  const hearth = results.hearth;
  const bare = results.bare;
  const result = {
    bench: "connections",
    quick: QUICK,
    idle_seconds: IDLE_SECONDS,
    connections: CONNECTIONS,
    per_process: PER_PROCESS,
    inflight: INFLIGHT,
    users: USERS,
    server_open_files_limit: serverFiles,
    ...results,
    ...(hearth && bare
      ? {
          ratio_rss_per_connection: ratio(hearth.per_connection_bytes.rss, bare.per_connection_bytes.rss),
          ratio_connect_rate: ratio(hearth.connections_per_s, bare.connections_per_s),
        }
      : {}),
  };
  log(`connections (${CONNECTIONS} idle, ${PER_PROCESS} per client process, ${INFLIGHT} handshakes in flight per process, server open-files limit ${serverFiles}):`);
  for (const [mode, r] of Object.entries(results)) {
    log(
      `  ${mode}: ${r.connected} connected (${r.failed} failed${r.errors.length ? `: ${r.errors.join("; ")}` : ""}), ${r.open_on_server} open on the server; ` +
        `${r.connections_per_s} connections/s; RSS ${mb(r.before.rss)} -> ${mb(r.after.rss)} MB = ${(r.per_connection_bytes.rss / 1024).toFixed(1)} KiB per connection, ` +
        `JS heap ${mb(r.before.heapUsed)} -> ${mb(r.after.heapUsed)} MB = ${(r.per_connection_bytes.heapUsed / 1024).toFixed(1)} KiB per connection`,
    );
  }
  if (hearth && bare) log(`  ratios Hearth/bare: RSS per connection ${result.ratio_rss_per_connection}, connect rate ${result.ratio_connect_rate}`);
  console.log(JSON.stringify(result));
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
