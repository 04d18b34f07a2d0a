/**
 * Gateway attacks (oversized polling bodies, event floods, stalled readers, handshake floods)
 * against Hearth started as in production (`bun src/main.ts`, its own process, so its RSS is
 * its own; the environment decides the limits). Prints a human summary on stderr and one JSON line on stdout per scenario.
 *
 *   bun bench/gateway-abuse.ts --scenario polling [--mib 500] [--posts 2]
 *     Without a token: a polling `sid`, then POSTs of `--mib` MiB to it, with Content-Length
 *     and chunked: the answers, and the server's RSS before and after.
 *   bun bench/gateway-abuse.ts --scenario flood [--event typing:start] [--count 200000] [--sockets 1] [--listeners 0] [--ack] [--transport websocket|polling]
 *     One user emits `--count` events over `--sockets` sockets (in its own process) while an
 *     observer measures `GET /api/v1` and an ack'd gateway emit (`channel:leave`) every 10 ms:
 *     their p50/p95/max during the flood, and what the flooder got back.
 *   bun bench/gateway-abuse.ts --scenario stall [--stalled 60] [--messages 400]
 *     One user's `--stalled` raw WebSockets in a channel stop reading (pinging back blindly)
 *     while another user posts `--messages` messages of ~61 KB there: the server's RSS before,
 *     at its peak and after, and how many of the stalled sockets the server still holds.
 *   bun bench/gateway-abuse.ts --scenario handshakes [--count 20000] [--parallel 20] [--settle 60]
 *     Without a token, from this machine's one address: `--count` polling handshakes, `--parallel`
 *     at a time, none ever connecting: the answers' statuses, and the
 *     server's RSS before, right after and every 5 s for `--settle` seconds after.
 *
 * Extra environment for the server (e.g. raised limits) can be given as `--env K=V,K=V`.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StalledGatewayClient } from "../test/helpers/stalled-gateway-client.ts";
import { apiFor, argOf, hasFlag, LineProcess, log, register, watchLatency, type Account } from "./fixture.ts";

const SCENARIO = argOf("scenario", "flood");
const EXTRA_ENV = Object.fromEntries(
  argOf("env", "")
    .split(",")
    .filter(Boolean)
    .map((kv) => kv.split("=") as [string, string]),
);
const ROOT = join(import.meta.dir, "..");
const mib = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;

/** The server's resident memory, from /proc. */
function rssOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+) kB/);
  return line ? Number(line[1]) * 1024 : NaN;
}

async function freePort(): Promise<number> {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port!;
  await probe.stop(true);
  return port;
}

async function startServer(dataDir: string) {
  const port = await freePort();
  const proc = Bun.spawn([process.execPath, join(ROOT, "src/main.ts")], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      LOG_LEVEL: "error",
      // Setting users up is not what is measured.
      AUTH_RATE_LIMIT_PER_MINUTE: "1000000",
      // The stalled-socket scenario posts hundreds of messages to one channel on purpose.
      REST_RATE_SENDS: "1000000000/60s",
      ...EXTRA_ENV,
    },
    stdout: "inherit",
    stderr: "inherit",
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    const up = await fetch(`${url}/api/v1`).then((r) => r.ok, () => false);
    if (up) return { url, proc, pid: proc.pid };
    await Bun.sleep(50);
  }
  throw new Error("server did not start");
}

async function communityOf(api: ReturnType<typeof apiFor>, owner: Account, members: Account[]) {
  const server = await api<{ id: string }>("POST", "/api/v1/servers", { name: "abuse" }, owner.token);
  const { channels } = await api<{ channels: { id: string; type: string }[] }>("GET", `/api/v1/channels/${server.id}`, undefined, owner.token);
  const channelId = channels.find((c) => c.type === "text")!.id;
  const invite = await api<{ code: string }>("POST", `/api/v1/servers/${server.id}/invites`, {}, owner.token);
  for (const m of members) await api("POST", `/api/v1/servers/join/${invite.code}`, undefined, m.token);
  return { serverId: server.id, channelId };
}

async function pollingScenario(url: string, pid: number) {
  const size = Number(argOf("mib", "500")) * 1048576;
  const posts = Number(argOf("posts", "2"));
  const sid = async () => {
    const text = await (await fetch(`${url}/socket.io/?EIO=4&transport=polling`)).text();
    return (JSON.parse(text.slice(1)) as { sid: string }).sid;
  };
  const rss0 = rssOf(pid);
  const body = new Uint8Array(size).fill(0x61);
  const results: Record<string, unknown>[] = [];
  for (let i = 0; i < posts * 2; i++) {
    const chunked = i % 2 === 1;
    const t0 = performance.now();
    let status: number | string;
    try {
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let o = 0; o < size; o += 1048576) controller.enqueue(body.subarray(o, Math.min(size, o + 1048576)));
          controller.close();
        },
      });
      const res = await fetch(`${url}/socket.io/?EIO=4&transport=polling&sid=${await sid()}`, {
        method: "POST",
        headers: { "content-type": "text/plain;charset=UTF-8" },
        body: chunked ? stream : body,
      });
      status = res.status;
      await res.arrayBuffer();
    } catch (error) {
      status = `error: ${(error as Error).message}`;
    }
    const row = { chunked, status, ms: Math.round(performance.now() - t0), rss_mb: mib(rssOf(pid)) };
    results.push(row);
    log(`POST ${size / 1048576} MiB ${chunked ? "chunked" : "with Content-Length"}: ${row.status} in ${row.ms} ms, server RSS ${row.rss_mb} MiB`);
  }
  const rss1 = rssOf(pid);
  log(`server RSS ${mib(rss0)} -> ${mib(rss1)} MiB`);
  return { scenario: "polling", mib: size / 1048576, posts: results, rss_before_mb: mib(rss0), rss_after_mb: mib(rss1) };
}

async function handshakesScenario(url: string, pid: number) {
  const count = Number(argOf("count", "20000"));
  const parallel = Number(argOf("parallel", "20"));
  const settle = Number(argOf("settle", "60"));
  const rss0 = rssOf(pid);
  const statuses: Record<number, number> = {};
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next++ < count) {
        const res = await fetch(`${url}/socket.io/?EIO=4&transport=polling`);
        await res.arrayBuffer();
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      }
    }),
  );
  const floodMs = Math.round(performance.now() - t0);
  const rss1 = rssOf(pid);
  const after: { s: number; rss_mb: number }[] = [];
  for (let s = 5; s <= settle; s += 5) {
    await Bun.sleep(5000);
    after.push({ s, rss_mb: mib(rssOf(pid)) });
  }
  log(`${count} handshakes in ${floodMs} ms: ${JSON.stringify(statuses)}; server RSS ${mib(rss0)} -> ${mib(rss1)} MiB, then ${after.map((a) => `${a.s} s: ${a.rss_mb}`).join(", ")}`);
  return { scenario: "handshakes", count, parallel, flood_ms: floodMs, statuses, rss_before_mb: mib(rss0), rss_after_flood_mb: mib(rss1), rss_after: after };
}

async function floodScenario(url: string, pid: number) {
  const event = argOf("event", "typing:start");
  const count = Number(argOf("count", "200000"));
  const sockets = Number(argOf("sockets", "1"));
  const listeners = Number(argOf("listeners", "0"));
  const api = apiFor(url);
  const [flooder, observer, listener] = [await register(api, "flooder"), await register(api, "observer"), await register(api, "listener")];
  const { channelId } = await communityOf(api, flooder, [observer, listener]);
  const procs: LineProcess[] = [];
  try {
    if (listeners > 0) {
      const l = new LineProcess([process.execPath, join(import.meta.dir, "abuse-client.ts"), JSON.stringify({ url, token: listener.token, sockets: listeners, join: channelId })]);
      procs.push(l);
      log(`listeners: ${await l.next()}`);
    }
    const payload = event.startsWith("typing") || event.startsWith("channel") ? channelId : { channel_id: channelId, content: "flood" };
    const f = new LineProcess([
      process.execPath,
      join(import.meta.dir, "abuse-client.ts"),
      JSON.stringify({ url, token: flooder.token, sockets, join: channelId, event, payload, count, ack: hasFlag("ack"), transport: argOf("transport", "websocket") }),
    ]);
    procs.push(f);
    log(`flooder: ${await f.next()}`);

    const { io } = await import("socket.io-client");
    const probe = io(url, { auth: { token: observer.token }, transports: ["websocket"], reconnection: false, forceNew: true });
    await new Promise<void>((resolve) => probe.once("connect", () => resolve()));
    const rss0 = rssOf(pid);
    const t0 = performance.now();
    f.send("go");
    const watch = watchLatency(url, () => probe.timeout(60_000).emitWithAck("channel:leave", channelId));
    const result = JSON.parse(await f.next(300_000)) as Record<string, unknown>;
    const { rest, gateway } = await watch.stop();
    const wall = Math.round(performance.now() - t0);
    const received = listeners > 0 ? JSON.parse(await procs[0]!.ask("report")) : null;
    probe.close();
    const out = {
      scenario: "flood",
      event,
      count,
      sockets,
      listeners,
      ack: hasFlag("ack"),
      flooder: result,
      listener_events: received,
      wall_ms: wall,
      rest,
      gateway,
      rss_before_mb: mib(rss0),
      rss_after_mb: mib(rssOf(pid)),
    };
    log(`${count} x ${event} over ${sockets} socket(s)${listeners ? `, ${listeners} listeners` : ""}: flooder ${JSON.stringify(result)}`);
    log(`  GET /api/v1 during: p50 ${out.rest.p50_ms} ms, p95 ${out.rest.p95_ms} ms, max ${out.rest.max_ms} ms (n ${out.rest.n})`);
    log(`  ack'd emit during:  p50 ${out.gateway.p50_ms} ms, p95 ${out.gateway.p95_ms} ms, max ${out.gateway.max_ms} ms (n ${out.gateway.n}); wall ${wall} ms`);
    if (received) log(`  listeners received ${received.received} events`);
    return out;
  } finally {
    for (const p of procs) p.kill();
  }
}

async function stallScenario(url: string, pid: number) {
  const stalledCount = Number(argOf("stalled", "60"));
  const messages = Number(argOf("messages", "400"));
  const api = apiFor(url);
  const [poster, stalledUser] = [await register(api, "poster"), await register(api, "stalled")];
  const { channelId } = await communityOf(api, poster, [stalledUser]);
  const stalled: StalledGatewayClient[] = [];
  const refused: string[] = [];
  for (let i = 0; i < stalledCount; i++) {
    try {
      stalled.push(await StalledGatewayClient.open(url, stalledUser.token, [["channel:join", channelId]], 20_000));
    } catch (error) {
      refused.push((error as Error).message);
    }
  }
  log(`stalled sockets: ${stalled.length} open, ${refused.length} refused${refused[0] ? ` (${refused[0].slice(0, 120)})` : ""}`);
  const rss0 = rssOf(pid);
  let peak = rss0;
  const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 50);
  const embed = (i: number) => ({ title: `embed ${i}`, description: "d".repeat(4096), fields: [{ name: "f", value: "v".repeat(1024) }], footer: { text: "t".repeat(600) } });
  const body = { content: "c".repeat(4000), embeds: Array.from({ length: 10 }, (_, i) => embed(i)) };
  const t0 = performance.now();
  for (let i = 0; i < messages; i++) await api("POST", `/api/v1/messages/${channelId}`, body, poster.token);
  const sendMs = Math.round(performance.now() - t0);
  await Bun.sleep(2000);
  clearInterval(sampler);
  const rss1 = rssOf(pid);
  // Shown offline once the server has closed every one of the user's sockets.
  const { status } = await api<{ status: string }>("GET", `/api/v1/users/${stalledUser.id}`, undefined, poster.token);
  for (const s of stalled) s.close();
  await Bun.sleep(500);
  const rss2 = rssOf(pid);
  const out = {
    scenario: "stall",
    stalled: stalled.length,
    refused: refused.length,
    messages,
    message_kb: Math.round(JSON.stringify(body).length / 1024),
    send_ms: sendMs,
    rss_before_mb: mib(rss0),
    rss_peak_mb: mib(peak),
    rss_after_sends_mb: mib(rss1),
    rss_after_close_mb: mib(rss2),
    stalled_user_status_after_sends: status,
  };
  log(`${messages} messages of ~${out.message_kb} KB to ${stalled.length} stalled sockets: server RSS ${out.rss_before_mb} -> peak ${out.rss_peak_mb} -> ${out.rss_after_sends_mb} MiB (after closing them ${out.rss_after_close_mb} MiB); the stalled user is shown ${status} (offline: the server closed all its sockets)`);
  return out;
}

const dataDir = mkdtempSync(join(tmpdir(), "hearth-bench-abuse-"));
const server = await startServer(dataDir);
try {
  const result =
    SCENARIO === "polling"
      ? await pollingScenario(server.url, server.pid)
      : SCENARIO === "stall"
        ? await stallScenario(server.url, server.pid)
        : SCENARIO === "handshakes"
          ? await handshakesScenario(server.url, server.pid)
          : await floodScenario(server.url, server.pid);
  process.stdout.write(JSON.stringify({ ...result, env: EXTRA_ENV }) + "\n");
} finally {
  server.proc.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(0);
