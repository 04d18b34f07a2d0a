/**
 * The audio relay (`bot:audio-data`), side by side in one run on the same 3840-byte frames
 * (20 ms of 48 kHz stereo) and the same light receivers, each in its own process
 * (bench/audio-client.ts, raw WebSockets speaking Engine.IO/Socket.IO framing):
 *   native - Hearth with the native forwarder (src/audio/native-relay.ts)
 *   stock  - Hearth with the standard `socket.to(room).emit` (the forwarder switched off)
 *   raw    - a bare Bun.serve relaying each frame with one `ws.publish` (the baseline)
 * 1 sender to 10 and to 50 receivers at rising rates: delivered frames/s, MB/s, p50/p99
 * send-to-receive latency, and server CPU per delivery (process.cpuUsage of this process,
 * which runs only the server under test). Then a stalled listener (SIGSTOP) on native and
 * stock: its server-side buffer and whether it ever sees a header without its data.
 * Prints a human summary on stderr and one JSON line on stdout.
 *
 *   bun bench/audio-relay.ts [--seconds 2.5] [--rates 50,200,800,3200] [--receivers 10,50] [--stall-seconds 8]
 *
 * The highest rate saturates the stock path (and, at 50 receivers, nearly the raw one): the
 * target is read there, at the most receivers: native throughput >= 0.8x raw and >= 5x stock.
 *
 * Two more scenarios on the native path, each its own run (see runScenario):
 *   bun bench/audio-relay.ts --scenario realistic [--rooms 20 --listeners 10 --room-rate 50 --realistic-seconds 10]
 *     20 rooms x 1 speaking bot at 50 frames/s x 10 listeners: frames/s, p50/p99 (target p99 < 10 ms),
 *     then the same rooms, clients and frames through a bare Bun publish relay (the machine's own tail)
 *   bun bench/audio-relay.ts --scenario stall [--stall-seconds 30]
 *     the same load, then one listener SIGSTOPped for 30 s: server RSS growth (target < 20 MB)
 *     and the other listeners' p99 before vs during
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nativeRelayFor, setNativeAudioRelayEnabled, type NativeAudioRelay } from "../src/audio/native-relay.ts";
import { pcmEventHeader } from "../src/audio/frames.ts";
import type { App } from "../src/app.ts";
import { argOf, LineProcess, log, pct, register, startHearth, type Account, type Api } from "./fixture.ts";
import { CAP_START, capacityFields, capacityRatio, capacitySearch, capacitySteps, cpuRatioAtCommonLoads, loadAverage, pinCores, ratioFields, ratioText, STEP_SECONDS, stepOf, watchLoop, watchMachine, type Path, type Step } from "./capacity-search.ts";

/**
 * Rooms as big as the bench needs: it measures the relay's fan-out of bots' PCM to listeners,
 * which the peer-to-peer room caps (VOICE_MESH_MAX_*, docs/voice.md "Room sizes") do not govern.
 */
const RELAY_ROOMS = { meshCaps: { publishers: 1000, audience: 100_000 } };

const SECONDS = Number(argOf("seconds", "2.5"));
const RATES = argOf("rates", "50,200,800,3200").split(",").map(Number);
const RECEIVERS = argOf("receivers", "10,50").split(",").map(Number);
const STALL_SECONDS = Number(argOf("stall-seconds", "8"));
const PER_PROCESS = 25;
const FRAME_BYTES = 3840;

/** An audio client process (bench/audio-client.ts) driven by lines. */
class Client extends LineProcess {
  constructor(config: object, script = "audio-client.ts") {
    super([process.execPath, join(import.meta.dir, script), JSON.stringify(config)]);
  }
  get pid(): number {
    return this.proc.pid;
  }
}

interface Report {
  frames: number;
  bytes: number;
  orphans: number;
  dangling?: number;
  latencies: number[];
  /** The receiver process's CPU since the reset (bench/audio-tcp-receiver.ts). */
  cpu_us?: number;
  /** Connections the server closed since the reset, opened again (bench/audio-tcp-receiver.ts). */
  reconnects?: number;
}
interface Row {
  mode: string;
  receivers: number;
  rate: number;
  sent: number;
  delivered: number;
  expected: number;
  frames_per_s: number;
  mb_per_s: number;
  p50_ms: number;
  p99_ms: number;
  cpu_us_per_delivery: number;
  orphans: number;
}


/** One rate on connected clients: reset, stream, drain, collect. */
async function phase(mode: string, sender: Client, receivers: Client[], n: number, rate: number): Promise<Row> {
  await Promise.all(receivers.map((r) => r.ask("reset")));
  Bun.gc(true);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const done = await sender.ask(`go ${rate} ${SECONDS}`);
  const sendSeconds = (performance.now() - t0) / 1000;
  await Bun.sleep(250); // let queued frames arrive
  const cpu = process.cpuUsage(cpu0);
  const reports = (await Promise.all(receivers.map((r) => r.ask("report")))).map((l) => JSON.parse(l) as Report);
  const sent = Number(done.split(" ")[1]);
  const delivered = reports.reduce((s, r) => s + r.frames, 0);
  const bytes = reports.reduce((s, r) => s + r.bytes, 0);
  const latencies = reports.flatMap((r) => r.latencies).sort((a, b) => a - b);
  return {
    mode,
    receivers: n,
    rate,
    sent,
    delivered,
    expected: sent * n,
    frames_per_s: Math.round(delivered / sendSeconds),
    mb_per_s: Math.round((bytes / sendSeconds / 1e6) * 10) / 10,
    p50_ms: pct(latencies, 0.5),
    p99_ms: pct(latencies, 0.99),
    cpu_us_per_delivery: delivered ? Math.round(((cpu.user + cpu.system) / delivered) * 100) / 100 : NaN,
    orphans: reports.reduce((s, r) => s + r.orphans, 0),
  };
}

async function spawnReceivers(base: object, tokens: string[] | null, n: number, script?: string, perProcess = PER_PROCESS): Promise<Client[]> {
  const clients: Client[] = [];
  for (let i = 0; i < n; i += perProcess) {
    const k = Math.min(perProcess, n - i);
    clients.push(new Client({ ...base, role: "recv", ...(tokens ? { tokens: tokens.slice(i, i + k) } : { count: k }) }, script));
  }
  for (const c of clients) if ((await c.next()) !== "ready") throw new Error("receiver not ready");
  return clients;
}

// ---- scenarios: realistic load, and a 30 s stalled listener (native path) ----
const SCENARIO = argOf("scenario", "compare");
const ROOMS = Number(argOf("rooms", "20"));
const LISTENERS = Number(argOf("listeners", "10"));
const ROOM_RATE = Number(argOf("room-rate", "50"));
const REALISTIC_SECONDS = Number(argOf("realistic-seconds", "10"));
const STALL_LONG_SECONDS = Number(argOf("stall-seconds", "30"));
const PER_LISTENER_PROCESS = Number(argOf("per-process", "50"));

/**
 * The baseline: a bare Bun.serve relaying each message with one `ws.publish` to its room's topic.
 * With `header` (the capacity scenario's `raw2`, a diagnostic), each message is published after
 * that text, as Socket.IO frames a binary event: two websocket messages per frame, as native sends.
 */
function startRawRelay(header?: string) {
  return Bun.serve<{ role: string; room: string; listen: boolean }>({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req, server) {
      const params = new URL(req.url).searchParams;
      const data = { role: params.get("role") ?? "recv", room: params.get("room") ?? "", listen: params.get("listen") === "1" };
      return server.upgrade(req, { data }) ? undefined : new Response("upgrade", { status: 400 });
    },
    websocket: {
      open(ws) {
        if (ws.data.role === "recv" || ws.data.listen) ws.subscribe(`room:${ws.data.room}`);
      },
      message(ws, message) {
        if (header) ws.publish(`room:${ws.data.room}`, header);
        ws.publish(`room:${ws.data.room}`, message);
      },
    },
  });
}

/** `n` registered accounts (bench0, bench1, ...), all members of a server owned by the first, and a voice channel per name. */
async function voiceCommunity(app: App, api: Api, n: number, channelNames: string[]) {
  const users: Account[] = [];
  for (let i = 0; i < n; i++) users.push(await register(api, `bench${i}`));
  const owner = users[0]!;
  const { id: serverId } = await api<{ id: string }>("POST", "/api/v1/servers", { name: "bench" }, owner.token);
  const channels: string[] = [];
  for (const name of channelNames) channels.push((await api<{ id: string }>("POST", `/api/v1/channels/${serverId}`, { name, type: "voice" }, owner.token)).id);
  for (const u of users.slice(1)) await app.store.members.add(serverId, u.id, "member");
  return { users, owner, channels };
}

/** One stream at the room rate on every room (the sender's bots), and the listeners' figures. */
async function streamRooms(sender: Client, recv: Client[], seconds: number, during?: () => void) {
  await Promise.all(recv.map((r) => r.ask("reset")));
  Bun.gc(true);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const probe = during ? setInterval(during, 250) : null;
  const done = await sender.ask(`go ${ROOM_RATE} ${seconds}`, seconds * 1000 + 60_000);
  const sendSeconds = (performance.now() - t0) / 1000;
  await Bun.sleep(250);
  if (probe) clearInterval(probe);
  const cpu = process.cpuUsage(cpu0);
  const rssAfter = (Bun.gc(true), process.memoryUsage().rss);
  const reports = (await Promise.all(recv.map((r) => r.ask("report")))).map((l) => JSON.parse(l) as Report);
  const sentPerRoom = Number(done.split(" ")[1]);
  const delivered = reports.reduce((s, r) => s + r.frames, 0);
  const latencies = reports.flatMap((r) => r.latencies).sort((a, b) => a - b);
  return {
    rooms: ROOMS,
    listeners_per_room: LISTENERS,
    rate_per_room: ROOM_RATE,
    seconds: Math.round(sendSeconds * 100) / 100,
    sent: sentPerRoom * ROOMS,
    delivered,
    expected: sentPerRoom * ROOMS * LISTENERS,
    frames_per_s: Math.round(delivered / sendSeconds),
    p50_ms: pct(latencies, 0.5),
    p99_ms: pct(latencies, 0.99),
    max_ms: Math.round((latencies[latencies.length - 1] ?? NaN) * 100) / 100,
    cpu_pct: Math.round(((cpu.user + cpu.system) / 1e6 / sendSeconds) * 1000) / 10,
    orphans: reports.reduce((s, r) => s + r.orphans, 0),
    rssAfter,
  };
}

/** The sender (one bot per room) and the listeners (`LISTENERS` per room, in processes of `PER_LISTENER_PROCESS`). */
async function spawnRoomClients(base: object, rooms: string[], botTokens: string[] | null, listenerTokens: string[] | null) {
  const sender = new Client({ ...base, role: "send", channels: rooms, ...(botTokens ? { tokens: botTokens } : {}) });
  if ((await sender.next()) !== "ready") throw new Error("sender not ready");
  const listenerRooms = rooms.flatMap((room) => Array<string>(LISTENERS).fill(room));
  const recv: Client[] = [];
  for (let i = 0; i < listenerRooms.length; i += PER_LISTENER_PROCESS) {
    recv.push(
      new Client({
        ...base,
        role: "recv",
        channels: listenerRooms.slice(i, i + PER_LISTENER_PROCESS),
        ...(listenerTokens ? { tokens: listenerTokens.slice(i, i + PER_LISTENER_PROCESS) } : {}),
      }),
    );
  }
  for (const c of recv) if ((await c.next()) !== "ready") throw new Error("receiver not ready");
  return { sender, recv };
}

/**
 * `ROOMS` voice rooms, each with one speaking bot (all bots in one sender process, one
 * connection each) and `LISTENERS` listening clients (in processes of 50 connections),
 * every bot at `ROOM_RATE` frames/s of 3840 bytes, on the native path. "realistic": one
 * stream of `REALISTIC_SECONDS`, then the same through the raw relay (new client processes,
 * same topology) as the baseline. "stall": the same load, first for `REALISTIC_SECONDS` (before),
 * then one extra listener in room 0 (its own process) is SIGSTOPped for `STALL_LONG_SECONDS`
 * while the stream goes on; the server's RSS (this process runs only the server) is read
 * before and after (process.memoryUsage, after a full GC) and sampled during.
 */
async function runScenario(name: string): Promise<void> {
  if (name !== "realistic" && name !== "stall") throw new Error(`unknown --scenario ${name}`);
  const dir = mkdtempSync(join(tmpdir(), "hearth-bench-audio-"));
  const procs: Client[] = [];
  try {
    const { app, api } = await startHearth(dir, RELAY_ROOMS);
    const nUsers = 1 + ROOMS * (1 + LISTENERS) + 1;
    const roomNames = Array.from({ length: ROOMS }, (_, i) => `voice-${i}`);
    const { users, channels: rooms } = await voiceCommunity(app, api, nUsers, roomNames);
    setNativeAudioRelayEnabled(app.io, true);
    const relay = nativeRelayFor({ nsp: app.io.of("/") })!;

    // Bots: users 1..ROOMS, one per room. Listeners: the next ROOMS*LISTENERS, LISTENERS per room.
    const bots = users.slice(1, 1 + ROOMS).map((u) => u.token);
    const listeners = users.slice(1 + ROOMS, 1 + ROOMS + ROOMS * LISTENERS).map((u) => u.token);
    const base = { proto: "sio", url: app.url };
    const { sender, recv } = await spawnRoomClients(base, rooms, bots, listeners);
    procs.push(sender, ...recv);
    const run = (seconds: number, during?: () => void) => streamRooms(sender, recv, seconds, during);

    let result: Record<string, unknown>;
    if (name === "realistic") {
      await run(3); // warm-up (JIT, socket buffers)
      const { rssAfter, ...r } = await run(REALISTIC_SECONDS);
      for (const c of procs) c.kill();
      procs.length = 0;
      await app.stop();
      // The baseline: the same rooms, clients and frames through a bare Bun publish relay.
      const raw = startRawRelay();
      const rawClients = await spawnRoomClients({ proto: "raw", url: `http://127.0.0.1:${raw.port}` }, rooms, null, null);
      procs.push(rawClients.sender, ...rawClients.recv);
      await streamRooms(rawClients.sender, rawClients.recv, 3);
      const { rssAfter: _raw, ...w } = await streamRooms(rawClients.sender, rawClients.recv, REALISTIC_SECONDS);
      raw.stop(true);
      result = {
        scenario: "realistic",
        ...r,
        server_rss_mb: Math.round(rssAfter / 1e5) / 10,
        raw: w,
        p99_over_raw: Math.round((r.p99_ms / w.p99_ms) * 100) / 100,
        target_p99_ms: 10,
        met: r.p99_ms < 10,
      };
      log(
        `\nrealistic load: ${ROOMS} rooms x 1 bot at ${ROOM_RATE} frames/s x ${LISTENERS} listeners, ${REALISTIC_SECONDS} s, listeners in ${recv.length} processes`,
      );
      log(
        `  native: delivered ${r.delivered}/${r.expected} = ${r.frames_per_s} frames/s; latency p50 ${r.p50_ms} ms, p99 ${r.p99_ms} ms, max ${r.max_ms} ms (target p99 < 10 ms: ${r.p99_ms < 10 ? "met" : "NOT met"}); server CPU ${r.cpu_pct}%; orphans ${r.orphans}`,
      );
      log(
        `  raw Bun publish, same clients and frames: delivered ${w.delivered}/${w.expected}; latency p50 ${w.p50_ms} ms, p99 ${w.p99_ms} ms, max ${w.max_ms} ms; server CPU ${w.cpu_pct}%`,
      );
      log(`  p99 native/raw ${result.p99_over_raw}x`);
    } else {
      // The stalled listener: one more connection in room 0, in a process of its own.
      const stalledUser = users[nUsers - 1]!;
      const stalled = new Client({ ...base, role: "recv", tokens: [stalledUser.token], channels: [rooms[0]!] });
      procs.push(stalled);
      if ((await stalled.next()) !== "ready") throw new Error("stalled listener not ready");
      const stalledWs = () => {
        for (const s of app.io.of("/").sockets.values()) {
          if (s.data.userId === stalledUser.id) return (s.conn.transport as unknown as { socket: { getBufferedAmount(): number } }).socket;
        }
        return null;
      };
      await run(3); // warm-up (JIT, socket buffers)
      const { rssAfter: _b, ...before } = await run(REALISTIC_SECONDS);
      Bun.gc(true);
      await Bun.sleep(200);
      Bun.gc(true);
      const rss0 = process.memoryUsage().rss;
      const dropped0 = relay.stats.dropped;
      let rssMax = rss0;
      let maxBuffered = 0;
      const gotBeforeStall = (JSON.parse(await stalled.ask("report")) as Report).frames;
      process.kill(stalled.pid, "SIGSTOP");
      const { rssAfter: rss1, ...during } = await run(STALL_LONG_SECONDS, () => {
        rssMax = Math.max(rssMax, process.memoryUsage().rss);
        maxBuffered = Math.max(maxBuffered, stalledWs()?.getBufferedAmount() ?? 0);
      });
      const droppedForIt = relay.stats.dropped - dropped0;
      process.kill(stalled.pid, "SIGCONT");
      await Bun.sleep(1000);
      const got0 = (JSON.parse(await stalled.ask("report")) as Report).frames;
      await sender.ask(`go ${ROOM_RATE} 0.5`);
      await Bun.sleep(300);
      const s = JSON.parse(await stalled.ask("report")) as Report;
      const mb = (b: number) => Math.round(b / 1e5) / 10;
      const growth = mb(rss1 - rss0);
      result = {
        scenario: "stall",
        rooms: ROOMS,
        listeners_per_room: LISTENERS,
        rate_per_room: ROOM_RATE,
        stall_seconds: STALL_LONG_SECONDS,
        server_rss_before_mb: mb(rss0),
        server_rss_after_mb: mb(rss1),
        server_rss_max_during_mb: mb(rssMax),
        server_rss_growth_mb: growth,
        target_growth_mb: 20,
        growth_met: growth < 20,
        stalled_max_server_buffer_kb: Math.round(maxBuffered / 1024),
        stalled_frames_dropped_whole: droppedForIt,
        stalled_got_during: got0 - gotBeforeStall,
        stalled_heard_after_resume: s.frames - got0,
        stalled_orphans: s.orphans + (s.dangling ?? 0),
        others_before: before,
        others_during: during,
      };
      log(
        `\nstalled listener (native): ${ROOMS} rooms x ${ROOM_RATE} frames/s x ${LISTENERS} listeners; one extra listener in room 0 SIGSTOPped for ${STALL_LONG_SECONDS} s`,
      );
      log(
        `  server RSS before ${mb(rss0)} MB, after ${mb(rss1)} MB (growth ${growth} MB, target < 20 MB: ${growth < 20 ? "met" : "NOT met"}), max during ${mb(rssMax)} MB`,
      );
      log(
        `  stalled listener: server-side buffer peaked at ${Math.round(maxBuffered / 1024)} KiB, ${droppedForIt} frames dropped whole for it, ${got0 - gotBeforeStall} of the stall's frames reached it (kernel buffers + 256 KiB), ${s.frames - got0} heard after SIGCONT, orphans ${s.orphans + (s.dangling ?? 0)}`,
      );
      log(
        `  the others: before p50 ${before.p50_ms} / p99 ${before.p99_ms} ms (${before.delivered}/${before.expected}), during p50 ${during.p50_ms} / p99 ${during.p99_ms} ms (${during.delivered}/${during.expected})`,
      );
    }
    console.log(JSON.stringify({ bench: "audio-relay", frame_bytes: FRAME_BYTES, ...result }));
    for (const c of procs) c.kill();
    procs.length = 0;
    if (name === "stall") await app.stop();
  } finally {
    for (const c of procs) c.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}
// ---- capacity: each path's sustainable deliveries/s, found by raising the offered load ----
const CAP_RECEIVERS = argOf("receivers", "50,200").split(",").map(Number);
const CAP_SENDERS = Number(argOf("senders", "2"));
const CAP_MODES = argOf("modes", "native,stock,raw").split(",");
/** The bar for native/raw capacity, read over several runs' median (bench/README.md, "Current figures"). */
const CAP_TARGET = 0.8;
/** Receivers: hand-framed TCP (bench/audio-tcp-receiver.ts, the default) or `WebSocket` clients (bench/audio-client.ts). */
const CAP_RECEIVER = argOf("receiver-client", "tcp") === "ws" ? "audio-client.ts" : "audio-tcp-receiver.ts";
/**
 * Receivers per process: by default at most 50, and at least two processes, so the receivers
 * can use both of a 2-core machine's cores (one process of 50 ran at 75-93% of its core at
 * 380-510k deliveries/s, near where the paths' searches ended).
 */
const capPerProcess = (n: number): number => Number(argOf("receivers-per-process", "0")) || Math.ceil(n / Math.max(2, Math.ceil(n / 50)));

/**
 * One step: every sender streams `offered / receivers / senders` frames/s for `--step-seconds`;
 * it kept up when the receivers got >= 99% of the frames x receivers and p99 <= 50 ms
 * (`--p99-ms`).
 */
async function capacityStep(senders: Client[], receivers: Client[], n: number, offered: number, relay?: NativeAudioRelay): Promise<Step> {
  const perSender = offered / n / senders.length;
  await Promise.all(receivers.map((r) => r.ask("reset")));
  const relay0 = relay && { ...relay.stats };
  Bun.gc(true);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const loop = watchLoop();
  const machine = watchMachine();
  const done = await Promise.all(senders.map((s) => s.ask(`go ${perSender} ${STEP_SECONDS}`, STEP_SECONDS * 1000 + 60_000)));
  const seconds = (performance.now() - t0) / 1000;
  await Bun.sleep(250);
  const lag = loop.stop();
  const box = machine.stop();
  const cpu = process.cpuUsage(cpu0);
  const wall = (performance.now() - t0) / 1000;
  const reports = (await Promise.all(receivers.map((r) => r.ask("report")))).map((l) => JSON.parse(l) as Report);
  const sent = done.reduce((a, d) => a + Number(d.split(" ")[1]), 0);
  const delivered = reports.reduce((a, r) => a + r.frames, 0);
  const latencies = reports.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const cpuUs = delivered ? Math.round(((cpu.user + cpu.system) / delivered) * 100) / 100 : NaN;
  const share = (us: number) => Math.round((us / 1e4 / wall) * 10) / 10;
  // The load generators' CPU too (% of one core, all their processes together): a step that
  // falls behind while neither the servers nor they are busy was held up by the machine.
  const senderCpu = done.reduce((a, d) => a + Number(d.split(" ")[2] ?? 0), 0);
  const receiverCpu = reports.reduce((a, r) => a + (r.cpu_us ?? 0), 0);
  return {
    ...stepOf(offered, delivered, sent * n, delivered / seconds, pct(latencies, 0.99), cpuUs),
    loop_lag_ms: lag,
    server_cpu_pct: share(cpu.user + cpu.system),
    senders_cpu_pct: share(senderCpu),
    receivers_cpu_pct: share(receiverCpu),
    receivers_reconnected: reports.reduce((a, r) => a + (r.reconnects ?? 0), 0),
    lag_run_ms: loop.worst().run_ms,
    lag_runq_wait_ms: loop.worst().runq_wait_ms,
    ...(relay && relay0 ? { relay_dropped: relay.stats.dropped - relay0.dropped, relay_sweeps: relay.stats.sweeps - relay0.sweeps } : {}),
    ...box,
  };
}

/**
 * `--scenario capacity`: for each receiver count, native and stock (same Hearth connections)
 * and raw (a bare relay and its own connections, open at the same time; with `--modes ...,raw2`
 * also the bare relay with Socket.IO's two messages per frame, a diagnostic), `CAP_SENDERS`
 * senders in the room, each a process of its own; the raw senders hear the room too, as
 * Hearth's senders (voice participants) do; the search is bench/capacity-search.ts's (its
 * options apply: `--step-seconds --start --max --refine --p99-ms`). One JSON line per receiver count.
 */
async function runCapacity(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "hearth-bench-audio-"));
  const procs: Client[] = [];
  const kill = () => {
    for (const c of procs) c.kill();
    procs.length = 0;
  };
  try {
    const maxN = Math.max(...CAP_RECEIVERS);
    const pinned = pinCores();
    const { app, api } = await startHearth(dir, RELAY_ROOMS);
    const { users, channels } = await voiceCommunity(app, api, maxN + CAP_SENDERS, ["voice"]);
    const sio = { proto: "sio", url: app.url, channelId: channels[0]! };
    const raw = startRawRelay();
    const rawBase = { proto: "raw", url: `http://127.0.0.1:${raw.port}` };
    // `raw2`: the bare relay with Socket.IO's two messages per frame (Hearth's header text, its length).
    const raw2 = CAP_MODES.includes("raw2") ? startRawRelay(pcmEventHeader("bot:audio-data", { sampleRate: 48000, channels: 2, botUserId: users[0]!.id })) : null;
    const raw2Base = raw2 && { proto: "raw", url: `http://127.0.0.1:${raw2.port}` };
    for (const n of CAP_RECEIVERS) {
      const senders = users.slice(0, CAP_SENDERS).map((u) => new Client({ ...sio, role: "send", tokens: [u.token] }));
      procs.push(...senders);
      for (const s of senders) if ((await s.next()) !== "ready") throw new Error("sender not ready");
      const receivers = await spawnReceivers(sio, users.slice(CAP_SENDERS, CAP_SENDERS + n).map((u) => u.token), n, CAP_RECEIVER, capPerProcess(n));
      procs.push(...receivers);
      const rawSenders = Array.from({ length: CAP_SENDERS }, () => new Client({ ...rawBase, role: "send", count: 1, listen: true }));
      procs.push(...rawSenders);
      for (const s of rawSenders) if ((await s.next()) !== "ready") throw new Error("sender not ready");
      const rawReceivers = await spawnReceivers(rawBase, null, n, CAP_RECEIVER, capPerProcess(n));
      procs.push(...rawReceivers);
      const raw2Senders = raw2Base ? Array.from({ length: CAP_SENDERS }, () => new Client({ ...raw2Base, role: "send", count: 1, listen: true })) : [];
      procs.push(...raw2Senders);
      for (const s of raw2Senders) if ((await s.next()) !== "ready") throw new Error("sender not ready");
      const raw2Receivers = raw2Base ? await spawnReceivers(raw2Base, null, n, CAP_RECEIVER, capPerProcess(n)) : [];
      procs.push(...raw2Receivers);
      const path = (mode: string, s: Client[], r: Client[], use: () => void): Path => ({ mode, use, step: (offered) => capacityStep(s, r, n, offered, mode === "native" ? nativeRelayFor({ nsp: app.io.of("/") }) : undefined) });
      const paths = [
        path("native", senders, receivers, () => setNativeAudioRelayEnabled(app.io, true)),
        path("stock", senders, receivers, () => setNativeAudioRelayEnabled(app.io, false)),
        path("raw", rawSenders, rawReceivers, () => {}),
        path("raw2", raw2Senders, raw2Receivers, () => {}),
      ].filter((x) => CAP_MODES.includes(x.mode));
      for (const x of paths) {
        x.use();
        await x.step(CAP_START); // warm-up
      }
      const load0 = loadAverage();
      const results = await capacitySearch(paths, `${n} receivers`);
      kill();
      await Bun.sleep(300);
      const overRaw = capacityRatio(results, "native", "raw");
      const overStock = capacityRatio(results, "native", "stock");
      const result: Record<string, unknown> = {
        bench: "audio-relay", scenario: "capacity", receivers: n, senders: CAP_SENDERS, frame_bytes: FRAME_BYTES, pinned,
        ...capacityFields(results), ...ratioFields(results, "native", "raw"), ...ratioFields(results, "native", "stock"),
        ...(raw2 ? { ...ratioFields(results, "native", "raw2"), ...ratioFields(results, "raw2", "raw"), cpu_per_delivery_native_over_raw2: cpuRatioAtCommonLoads(results, "native", "raw2") } : {}),
      };
      result.target_native_over_raw = CAP_TARGET;
      // This run's only: one run's ratio spreads wider than the bar's margin.
      result.met = typeof result.native_over_raw === "number" ? result.native_over_raw >= CAP_TARGET : null;
      result.load_average = [load0, loadAverage()];
      const cpu = cpuRatioAtCommonLoads(results, "native", "raw");
      result.cpu_per_delivery_native_over_raw = cpu;
      result.steps = capacitySteps(results);
      log(
        `capacity at ${n} receivers (deliveries/s, median of ${results[0]?.runs.length} rounds): native ${result.native_capacity}, raw ${result.raw_capacity ?? "-"}, stock ${result.stock_capacity ?? "-"}; native/raw ${ratioText(overRaw)} (target ${CAP_TARGET}, read over several runs: this run ${result.met ? "at or above" : "under"}), native/stock ${ratioText(overStock)}; ` +
          `server CPU per delivery native/raw at the same offered load ${cpu.ratio ?? "-"} (${cpu.at_offered.length} loads); load average ${load0} -> ${loadAverage()}` +
          (raw2 ? `; raw2 (two messages per frame) ${result.raw2_capacity}: native/raw2 ${ratioText(capacityRatio(results, "native", "raw2"))}, raw2/raw ${ratioText(capacityRatio(results, "raw2", "raw"))}` : ""),
      );
      console.log(JSON.stringify(result));
    }
    raw.stop(true);
    raw2?.stop(true);
    await app.stop();
  } finally {
    kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (SCENARIO === "capacity") {
  await runCapacity();
  process.exit(0);
}
if (SCENARIO !== "compare") {
  await runScenario(SCENARIO);
  process.exit(0);
}

const rows: Row[] = [];
const stall: Record<string, unknown>[] = [];
const dataDir = mkdtempSync(join(tmpdir(), "hearth-bench-audio-"));
try {
  // ---- Hearth: users, a server, a voice channel ----
  const maxN = Math.max(...RECEIVERS);
  const { app, api } = await startHearth(dataDir, RELAY_ROOMS);
  const { users, owner, channels } = await voiceCommunity(app, api, maxN + 2, ["voice"]);
  const channelId = channels[0]!;
  const relay = nativeRelayFor({ nsp: app.io.of("/") })!;
  const sio = { proto: "sio", url: app.url, channelId };

  // ---- native vs stock, same connections, interleaved per rate ----
  for (const n of RECEIVERS) {
    const sender = new Client({ ...sio, role: "send", tokens: [owner.token] });
    if ((await sender.next()) !== "ready") throw new Error("sender not ready");
    const receivers = await spawnReceivers(sio, users.slice(1, 1 + n).map((u) => u.token), n);
    for (const rate of RATES) {
      for (const mode of ["native", "stock"].filter((m) => CAP_MODES.includes(m))) {
        setNativeAudioRelayEnabled(app.io, mode === "native");
        rows.push(await phase(mode, sender, receivers, n, rate));
      }
    }
    for (const c of [sender, ...receivers]) c.kill();
    await Bun.sleep(300);
  }

  // ---- a stalled listener: server-side buffer, and whole frames or not ----
  for (const mode of ["native", "stock"]) {
    setNativeAudioRelayEnabled(app.io, mode === "native");
    const n = Math.min(...RECEIVERS);
    const sender = new Client({ ...sio, role: "send", tokens: [owner.token] });
    if ((await sender.next()) !== "ready") throw new Error("sender not ready");
    const receivers = await spawnReceivers(sio, users.slice(1, 1 + n).map((u) => u.token), n);
    const stalledUser = users[n + 1]!;
    const [stalled] = await spawnReceivers(sio, [stalledUser.token], 1);
    const stalledWs = () => {
      for (const s of app.io.of("/").sockets.values()) {
        if (s.data.userId === stalledUser.id) return (s.conn.transport as unknown as { socket: { getBufferedAmount(): number } }).socket;
      }
      return null;
    };
    process.kill(stalled!.pid, "SIGSTOP");
    const dropped0 = relay.stats.dropped;
    let maxBuffered = 0;
    const probe = setInterval(() => {
      maxBuffered = Math.max(maxBuffered, stalledWs()?.getBufferedAmount() ?? 0);
    }, 50);
    const rate = 800;
    const sent = Number((await sender.ask(`go ${rate} ${STALL_SECONDS}`)).split(" ")[1]);
    await Bun.sleep(300);
    clearInterval(probe);
    const reports = (await Promise.all(receivers.map((r) => r.ask("report")))).map((l) => JSON.parse(l) as Report);
    process.kill(stalled!.pid, "SIGCONT");
    await Bun.sleep(1500);
    // After it resumes: does it hear again, and does every header still have its data?
    const gotBefore = (JSON.parse(await stalled!.ask("report")) as Report).frames;
    const after = Number((await sender.ask("go 50 0.4")).split(" ")[1]);
    await Bun.sleep(300);
    const s = JSON.parse(await stalled!.ask("report")) as Report;
    stall.push({
      mode,
      rate,
      seconds: STALL_SECONDS,
      sent,
      sent_mb: Math.round((sent * (FRAME_BYTES + 120)) / 1e5) / 10,
      others_delivered: reports.reduce((a, r) => a + r.frames, 0),
      others_expected: sent * n,
      stalled_max_server_buffer_kb: Math.round(maxBuffered / 1024),
      stalled_got_frames: gotBefore,
      after_resume_sent: after,
      after_resume_got: s.frames - gotBefore,
      stalled_orphans: s.orphans + (s.dangling ?? 0),
      relay_dropped: mode === "native" ? relay.stats.dropped - dropped0 : null,
    });
    for (const c of [sender, ...receivers, stalled!]) c.kill();
    await Bun.sleep(300);
  }
  await app.stop();

  // ---- raw Bun publish baseline ----
  const raw = startRawRelay();
  const rawBase = { proto: "raw", url: `http://127.0.0.1:${raw.port}` };
  for (const n of RECEIVERS) {
    const sender = new Client({ ...rawBase, role: "send", count: 1 });
    if ((await sender.next()) !== "ready") throw new Error("sender not ready");
    const receivers = await spawnReceivers(rawBase, null, n);
    for (const rate of RATES) rows.push(await phase("raw", sender, receivers, n, rate));
    for (const c of [sender, ...receivers]) c.kill();
  }
  raw.stop(true);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

// ---- summary ----
const find = (mode: string, n: number, rate: number) => rows.find((r) => r.mode === mode && r.receivers === n && r.rate === rate)!;
const ratios: Record<string, unknown>[] = [];
log("\naudio relay: 3840-byte frames, 1 sender, receivers in separate processes; cpu = server process µs per delivered frame");
log("mode   recv  rate/s   delivered/expected   frames/s    MB/s   p50 ms   p99 ms   cpu µs/deliv  orphans");
for (const n of RECEIVERS) {
  for (const rate of RATES) {
    for (const mode of ["native", "stock", "raw"]) {
      const r = find(mode, n, rate);
      log(
        `${mode.padEnd(6)} ${String(n).padStart(4)} ${String(rate).padStart(7)} ${`${r.delivered}/${r.expected}`.padStart(20)} ${String(r.frames_per_s).padStart(10)} ${String(r.mb_per_s).padStart(7)} ${String(r.p50_ms).padStart(8)} ${String(r.p99_ms).padStart(8)} ${String(r.cpu_us_per_delivery).padStart(13)} ${String(r.orphans).padStart(8)}`,
      );
    }
    const t = find("native", n, rate);
    const s = find("stock", n, rate);
    const w = find("raw", n, rate);
    const ratio = {
      receivers: n,
      rate,
      throughput_native_over_raw: Math.round((t.frames_per_s / w.frames_per_s) * 100) / 100,
      throughput_native_over_stock: Math.round((t.frames_per_s / s.frames_per_s) * 100) / 100,
      cpu_stock_over_native: Math.round((s.cpu_us_per_delivery / t.cpu_us_per_delivery) * 100) / 100,
      cpu_native_over_raw: Math.round((t.cpu_us_per_delivery / w.cpu_us_per_delivery) * 100) / 100,
    };
    ratios.push(ratio);
    log(
      `       -> frames/s: native/raw ${ratio.throughput_native_over_raw}x, native/stock ${ratio.throughput_native_over_stock}x; cpu per delivery: stock/native ${ratio.cpu_stock_over_native}x, native/raw ${ratio.cpu_native_over_raw}x`,
    );
  }
}
// The per-frame admission (a permission lookup per frame) is shared by every receiver; the
// marginal cost of one more receiver is the relay's own delivery cost.
const marginal: Record<string, unknown>[] = [];
if (RECEIVERS.length >= 2) {
  const [lo, hi] = [Math.min(...RECEIVERS), Math.max(...RECEIVERS)];
  log(`\nmarginal server CPU per extra receiver (${lo} -> ${hi} receivers, same rate), µs per frame per receiver:`);
  for (const rate of RATES) {
    const m: Record<string, number> = { rate };
    for (const mode of ["native", "stock", "raw"]) {
      const a = find(mode, lo, rate);
      const b = find(mode, hi, rate);
      const cpuA = a.cpu_us_per_delivery * a.delivered;
      const cpuB = b.cpu_us_per_delivery * b.delivered;
      m[mode] = Math.round(((cpuB / b.sent - cpuA / a.sent) / (hi - lo)) * 100) / 100;
    }
    m.stock_over_native = Math.round((m.stock! / m.native!) * 100) / 100;
    m.native_over_raw = Math.round((m.native! / m.raw!) * 100) / 100;
    marginal.push(m);
    log(`  rate ${rate}/s: native ${m.native}, stock ${m.stock}, raw ${m.raw}  (stock/native ${m.stock_over_native}x, native/raw ${m.native_over_raw}x)`);
  }
}
// The target, at the saturating (highest) rate with the most receivers.
const top = ratios.find((r) => r.receivers === Math.max(...RECEIVERS) && r.rate === Math.max(...RATES))!;
const target = {
  receivers: top.receivers,
  rate: top.rate,
  native_over_raw: top.throughput_native_over_raw,
  native_over_stock: top.throughput_native_over_stock,
  native_over_raw_min: 0.8,
  native_over_stock_min: 5,
  met: (top.throughput_native_over_raw as number) >= 0.8 && (top.throughput_native_over_stock as number) >= 5,
};
log(
  `\ntarget at ${target.receivers} receivers x ${target.rate} frames/s (native >= 0.8x raw and >= 5x stock frames/s): native/raw ${target.native_over_raw}x, native/stock ${target.native_over_stock}x: ${target.met ? "met" : "NOT met"}`,
);
log("\nstalled listener (SIGSTOPped for the stream, then resumed):");
for (const s of stall) log(`  ${JSON.stringify(s)}`);
console.log(JSON.stringify({ bench: "audio-relay", frame_bytes: FRAME_BYTES, seconds: SECONDS, rows, ratios, marginal, target, stall }));
process.exit(0);
