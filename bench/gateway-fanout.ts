/**
 * Gateway fan-out of `message:new` to one channel's sockets, side by side in one
 * run on the same payload and the same light receivers (bench/fanout-client.ts, raw
 * WebSockets speaking Engine.IO/Socket.IO framing, several hundred connections per process):
 *   native - Hearth with its native gateway fan-out on (src/gateway/native-fanout.ts)
 *   stock  - the same Hearth server with it off: the ordinary Socket.IO `io.to(room).emit`
 *   raw    - a bare Bun.serve whose connections are subscribed to one topic, and one
 *            `server.publish(topic, text)` per message of the same Socket.IO-framed text
 *            `42["message:new",{...}]` (the baseline)
 * Hearth messages come from Hearth's real send path: this process (which runs the servers
 * under test and nothing else) calls `app.domain.messages.send` as the channel's owner, so
 * each message is checked, stored and published as a REST send would be; receivers are
 * registered members connected with their own tokens and joined to the channel room with
 * `channel:join`. The message content carries a sequence number and the send time (this
 * process's clock; receivers share the machine's clock).
 *
 * For each size (sockets in the channel) and mode, two phases:
 *   light     - a paced stream offering `--light-deliveries` deliveries/s (20,000 by default:
 *               messages/s = that / sockets): latency when the server keeps up
 *   saturate  - as fast as the receivers keep up: at most `--window` messages that some
 *               receiver process has not fully received yet (receivers report `c <seq>` when
 *               all their connections have `seq`), sent concurrently as requests arriving
 *               together would be (`--yield`: one at a time, each in its own event-loop turn)
 * Figures: deliveries/s (received frames / time from the first send to the last complete
 * message), p50/p99/max send-to-receive latency (merged ~1% histograms), and the server
 * process's CPU (process.cpuUsage, user+system, so including the send path) per delivery.
 * Prints a human summary on stderr and one JSON line on stdout.
 *
 *   bun bench/gateway-fanout.ts [--quick] [--sockets 100,1000,5000] [--light-seconds 3]
 *     [--saturate-seconds 4] [--window 16] [--per-process 500] [--light-deliveries 20000] [--yield]
 *
 * `--quick`: 100 and 1000 sockets, 1 s light and 2 s saturate phases (about 25 s in all).
 * `--capacity [--step-seconds 2] [--start 20000] [--refine 2] [--p99-ms 50] [--confirm 2] [--rounds 1]`:
 *   each path's capacity instead (bench/capacity-search.ts: the offered load raised until the
 *   path falls behind; native, stock and raw take turns step by step when the open-files limit
 *   allows both sets of receivers at once, else raw after them), one JSON line per size;
 *   `--modes native,raw` leaves stock out.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setNativeFanoutEnabled } from "../src/gateway/native-fanout.ts";
import type { Message } from "../src/domain/shared/shapes.ts";
import { capacityFields, capacityRatio, capacitySearch, capacitySteps, cpuRatioAtCommonLoads, loadAverage, pinCores, ratioFields, ratioText } from "./capacity-search.ts";
import {
  CAPACITY, content, fanoutPath, LIGHT_DELIVERIES, logRows, nextSeq, PER_PROCESS, phase, spawnReceivers, WINDOW, YIELD, type Receivers, type Row, type Send,
} from "./fanout-phases.ts";
import { argOf, hasFlag, log, register, startHearth, type Account } from "./fixture.ts";

const QUICK = hasFlag("quick");
const SIZES = argOf("sockets", QUICK ? "100,1000" : "100,1000,5000").split(",").map(Number);
const LIGHT_SECONDS = Number(argOf("light-seconds", QUICK ? "1" : "3"));
const SATURATE_SECONDS = Number(argOf("saturate-seconds", QUICK ? "2" : "4"));
const TOPIC = "fanout";
/** `--capacity --modes native,raw`: the paths searched (all three by default). */
const CAP_MODES = argOf("modes", "native,stock,raw").split(",");
const started = performance.now();

// ---- the run ----
const maxN = Math.max(...SIZES);
const fdLimit = Number(Bun.spawnSync(["sh", "-c", "ulimit -n"]).stdout.toString().trim());
if (Number.isFinite(fdLimit) && fdLimit < maxN + 256) {
  throw new Error(`ulimit -n is ${fdLimit}: ${maxN} sockets need more (raise it, e.g. ulimit -n ${maxN * 2 + 1024})`);
}

/** `--capacity`: the servers (this process) on one CPU, the receivers on the other (capacity-search.ts `pinCores`). */
const pinned = CAPACITY ? pinCores() : null;
const rows: Row[] = [];
let sendPath: { messages: number; cpu_us_per_message: number; wall_us_per_message: number } | null = null;
const dataDir = mkdtempSync(join(tmpdir(), "hearth-bench-fanout-"));
const procs: Receivers[] = [];
const killAll = () => {
  for (const p of procs.splice(0)) p.kill();
};
try {
  // ---- Hearth: a server, a text channel, maxN registered members ----
  const { app, api } = await startHearth(dataDir);
  const t0 = performance.now();
  const users: Account[] = new Array(maxN + 1);
  let nextUser = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let i = nextUser++; i <= maxN; i = nextUser++) {
        users[i] = await register(api, `fan${i}`);
      }
    }),
  );
  const owner = users[0]!;
  const { id: serverId } = await api<{ id: string }>("POST", "/api/v1/servers", { name: "fanout" }, owner.token);
  const { id: channelId } = await api<{ id: string }>("POST", `/api/v1/channels/${serverId}`, { name: "fanout", type: "text" }, owner.token);
  for (const u of users.slice(1)) await app.store.members.add(serverId, u.id, "member");
  const author = (await app.store.users.findById(owner.id))!;
  log(`setup: ${maxN + 1} users registered, server and channel in ${Math.round(performance.now() - t0)} ms`);

  const hearthSend: Send = (s) => app.domain.messages.send(channelId, author, { content: content(s) });
  // The raw baseline publishes the same shape: a real message:new payload as a template.
  const template: Message = await app.domain.messages.send(channelId, author, { content: content(nextSeq()) });
  // The send path alone (checks, insert, hydrate, an emit to an empty room): the fixed cost per message.
  for (let i = 0; i < 200; i++) await hearthSend(nextSeq());
  {
    const count = QUICK ? 300 : 1000;
    const cpu0 = process.cpuUsage();
    const t = performance.now();
    for (let i = 0; i < count; i++) await hearthSend(nextSeq());
    const cpu = process.cpuUsage(cpu0);
    sendPath = {
      messages: count,
      cpu_us_per_message: Math.round(((cpu.user + cpu.system) / count) * 10) / 10,
      wall_us_per_message: Math.round(((performance.now() - t) * 1000) / count),
    };
    log(`send path alone (no socket in the room): ${sendPath.cpu_us_per_message} µs CPU per message (${sendPath.wall_us_per_message} µs wall)`);
  }

  // ---- raw Bun publish baseline ----
  const raw = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req, server) {
      return server.upgrade(req) ? undefined : new Response("upgrade", { status: 400 });
    },
    websocket: {
      open(ws) {
        ws.subscribe(TOPIC);
      },
      message() {},
    },
  });
  const rawSend: Send = (s) => {
    const message = { ...template, id: randomUUID(), content: content(s), created_at: Math.floor(Date.now() / 1000) };
    raw.publish(TOPIC, `42${JSON.stringify(["message:new", message])}`);
  };

  for (const n of SIZES) {
    // Native on while the receivers connect and join (as in production), then toggled per phase.
    setNativeFanoutEnabled(app.io, true);
    const tc = performance.now();
    procs.push(...(await spawnReceivers({ proto: "sio", url: app.url, channelId }, users.slice(1, 1 + n).map((u) => u.token), n)));
    log(`${n} sockets: Hearth receivers connected and joined in ${Math.round(performance.now() - tc)} ms (${procs.length} processes)`);
    for (const mode of ["native", "stock"]) {
      setNativeFanoutEnabled(app.io, mode === "native");
      await phase(mode, "saturate", n, procs, hearthSend, 0.3); // warm-up
    }
    if (CAPACITY) {
      const hearthProcs = procs.slice(); // raw's join `procs` (for killAll), not these paths
      const hearthPaths = ["native", "stock"].filter((mode) => CAP_MODES.includes(mode)).map((mode) => fanoutPath(mode, n, hearthProcs, hearthSend, () => setNativeFanoutEnabled(app.io, mode === "native")));
      // Raw's receivers on their own connections: at the same time as Hearth's when the
      // open-files limit allows both (the three paths then take turns step by step), else after.
      const withRaw = CAP_MODES.includes("raw");
      const together = !Number.isFinite(fdLimit) || fdLimit >= 2 * n + 512;
      const rawProcs: Receivers[] = [];
      const rawPath = fanoutPath("raw", n, rawProcs, rawSend);
      const connectRaw = async () => {
        rawProcs.push(...(await spawnReceivers({ proto: "raw", url: `http://127.0.0.1:${raw.port}` }, null, n)));
        procs.push(...rawProcs);
        await phase("raw", "saturate", n, rawProcs, rawSend, 0.3); // warm-up
      };
      if (together && withRaw) await connectRaw();
      const load0 = loadAverage();
      const results = await capacitySearch(together && withRaw ? [...hearthPaths, rawPath] : hearthPaths, `${n} sockets`);
      setNativeFanoutEnabled(app.io, true);
      if (!together && withRaw) {
        killAll();
        await Bun.sleep(300);
        await connectRaw();
        results.push(...(await capacitySearch([rawPath], `${n} sockets`)));
      }
      killAll();
      await Bun.sleep(300);
      const overRaw = capacityRatio(results, "native", "raw");
      const overStock = capacityRatio(results, "native", "stock");
      const cap: Record<string, unknown> = {
        bench: "gateway-fanout", scenario: "capacity", sockets: n, raw_interleaved: together, pinned, send_path: sendPath,
        ...capacityFields(results), ...ratioFields(results, "native", "raw"), ...ratioFields(results, "native", "stock"),
      };
      cap.load_average = [load0, loadAverage()];
      const cpu = cpuRatioAtCommonLoads(results, "native", "raw");
      cap.cpu_per_delivery_native_over_raw = cpu;
      cap.steps = capacitySteps(results);
      log(
        `capacity at ${n} sockets (deliveries/s, median of ${results[0]?.runs.length} rounds): native ${cap.native_capacity ?? "-"}, raw ${cap.raw_capacity ?? "-"}, stock ${cap.stock_capacity ?? "-"}; native/raw ${ratioText(overRaw)}, native/stock ${ratioText(overStock)}; ` +
          `server CPU per delivery native/raw at the same offered load ${cpu.ratio ?? "-"} (${cpu.at_offered.length} loads); load average ${load0} -> ${loadAverage()}`,
      );
      console.log(JSON.stringify(cap));
      continue;
    }
    for (const kind of ["light", "saturate"] as const) {
      for (const mode of ["native", "stock"]) {
        setNativeFanoutEnabled(app.io, mode === "native");
        const row = await phase(mode, kind, n, procs, hearthSend, kind === "light" ? LIGHT_SECONDS : SATURATE_SECONDS);
        rows.push(row);
        log(`  ${mode} ${kind}: ${row.deliveries_per_s} deliveries/s, p99 ${row.p99_ms} ms`);
      }
    }
    setNativeFanoutEnabled(app.io, true);
    killAll();
    await Bun.sleep(300);

    procs.push(...(await spawnReceivers({ proto: "raw", url: `http://127.0.0.1:${raw.port}` }, null, n)));
    await phase("raw", "saturate", n, procs, rawSend, 0.3); // warm-up
    for (const kind of ["light", "saturate"] as const) {
      const row = await phase("raw", kind, n, procs, rawSend, kind === "light" ? LIGHT_SECONDS : SATURATE_SECONDS);
      rows.push(row);
      log(`  raw ${kind}: ${row.deliveries_per_s} deliveries/s, p99 ${row.p99_ms} ms`);
    }
    killAll();
    await Bun.sleep(300);
  }
  raw.stop(true);
  await app.stop();
} finally {
  killAll();
  rmSync(dataDir, { recursive: true, force: true });
}
if (CAPACITY) process.exit(0);

// ---- summary ----
const find = (mode: string, n: number, kind: Row["phase"]) => rows.find((r) => r.mode === mode && r.sockets === n && r.phase === kind)!;
const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
log(
  `\ngateway fan-out: message:new to one channel; sender in the server process (domain send path); receivers in processes of ${PER_PROCESS}; window ${WINDOW}; cpu = server process µs per delivery`,
);
logRows(rows);
const ratios = SIZES.map((n) => {
  const [nat, sto, raw] = ["native", "stock", "raw"].map((m) => find(m, n, "saturate"));
  return {
    sockets: n,
    native_over_raw: ratio(nat!.deliveries_per_s, raw!.deliveries_per_s),
    native_over_stock: ratio(nat!.deliveries_per_s, sto!.deliveries_per_s),
    cpu_stock_over_native: ratio(sto!.cpu_us_per_delivery, nat!.cpu_us_per_delivery),
    cpu_native_over_raw: ratio(nat!.cpu_us_per_delivery, raw!.cpu_us_per_delivery),
  };
});
log("\nsaturate, deliveries/s ratios (and server CPU per delivery):");
for (const r of ratios) {
  log(
    `  ${String(r.sockets).padStart(5)} sockets: native/raw ${r.native_over_raw}x, native/stock ${r.native_over_stock}x; cpu stock/native ${r.cpu_stock_over_native}x, native/raw ${r.cpu_native_over_raw}x`,
  );
}
const at1000 = ratios.find((r) => r.sockets === 1000);
const target = at1000
  ? { sockets: 1000, native_over_raw_min: 0.5, native_over_stock_min: 3, met: at1000.native_over_raw >= 0.5 && at1000.native_over_stock >= 3 }
  : null;
if (target) log(`target at 1000 sockets (native >= 0.5x raw and >= 3x stock): ${target.met ? "met" : "NOT met"}`);
const seconds = Math.round((performance.now() - started) / 100) / 10;
log(`total ${seconds} s`);
console.log(
  JSON.stringify({
    bench: "gateway-fanout",
    quick: QUICK,
    window: WINDOW,
    yield_between_sends: YIELD,
    per_process: PER_PROCESS,
    light_deliveries_per_s: LIGHT_DELIVERIES,
    send_path: sendPath,
    rows,
    ratios,
    target,
    seconds,
  }),
);
process.exit(0);
