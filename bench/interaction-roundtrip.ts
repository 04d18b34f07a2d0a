/**
 * Slash command round trip: a user's `/ping <nonce>` (POST /api/v1/messages/:channelId) to the
 * bot's `interaction:create`, the bot's `interaction:response` to the user's `message:new`.
 * p50/p99 of each leg and of the whole trip, over sequential round trips and then concurrent
 * ones (several loops in flight), plus the server's CPU per round trip (process.cpuUsage of
 * this process, which runs only the server). The user and the bot are the real
 * socket.io-client, both in one separate process (bench/interaction-client.ts) so every leg
 * is timed on one clock.
 *
 * Baseline, same run, same client process: a bare Bun.serve with plain WebSockets carrying
 * JSON, doing the same SQLite work on a copy of Hearth's database (the command message
 * insert and read-back, the interaction row, the answer's insert and read-back, the
 * responded_at update), with no framework, auth, validation, command lookup or Socket.IO.
 * Prints a human summary on stderr and one JSON line on stdout.
 *
 *   bun bench/interaction-roundtrip.ts [--sequential 400] [--concurrent 400] [--loops 8] [--quick]
 *
 * `--capacity`: each side's capacity in round trips a second (bench/capacity-search.ts), both
 * servers up at once, each with its own client process (the same one, in open-loop mode:
 * round trips started at the offered rate whatever the open ones are doing). A step keeps up
 * when at least 99% of its trips closed, the p99 of a whole trip (from the tick it fell due in to
 * the user's `message:new`) is within the bound, and no POST or ack failed.
 *
 *   bun bench/interaction-roundtrip.ts --capacity [--rounds 3] [--start 400] [--step-seconds 2] [--p99-ms 50]
 */
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ServerWebSocket } from "bun";
import { openSqliteFile } from "../src/store/sqlite/sqlite-database.ts";
import type { Phase } from "./interaction-client.ts";
import type { RateStep } from "./interaction-client.ts";
import { argOf, community, hasFlag, LineProcess, log, ratio, register, startHearth } from "./fixture.ts";
import { STEP_SECONDS, capStart, capacityFields, capacityRatio, capacitySearch, capacitySteps, cpuRatioAtCommonLoads, loadAverage, maxInFlight, ratioText, stepOf, type Path } from "./capacity-search.ts";

const QUICK = hasFlag("quick");
const SEQUENTIAL = Number(argOf("sequential", QUICK ? "300" : "1000"));
const CONCURRENT = Number(argOf("concurrent", QUICK ? "320" : "1000"));
const LOOPS = Number(argOf("loops", "8"));
const CAPACITY = hasFlag("capacity");
/** The first offered load, round trips/s: below both sides' capacity here (2-3k/s). */
const START = capStart(400);

type PhaseResult = Phase & { cpu_us_per_round_trip?: number };
interface ClientResult {
  errors: number;
  error_samples: string[];
  sequential: PhaseResult;
  concurrent: PhaseResult & { loops: number };
}

/** Runs the client against `url`; the server's CPU is read at each phase boundary the client announces. */
async function drive(config: object): Promise<ClientResult> {
  const client = new LineProcess([
    process.execPath,
    join(import.meta.dir, "interaction-client.ts"),
    JSON.stringify({ ...config, sequential: SEQUENTIAL, concurrent: CONCURRENT, loops: LOOPS }),
  ]);
  if ((await client.next()) !== "sequential") throw new Error("interaction client did not start");
  const cpu0 = process.cpuUsage();
  if ((await client.next()) !== "concurrent") throw new Error("interaction client stopped early");
  const cpu1 = process.cpuUsage();
  const result = JSON.parse(await client.next()) as ClientResult;
  const cpu2 = process.cpuUsage();
  await client.proc.exited;
  const us = (a: NodeJS.CpuUsage, b: NodeJS.CpuUsage) => b.user + b.system - a.user - a.system;
  // The trailing cost of the last round (its ack) is in the second window; negligible.
  result.sequential.cpu_us_per_round_trip = Math.round(us(cpu0, cpu1) / Math.max(1, result.sequential.round_trips));
  result.concurrent.cpu_us_per_round_trip = Math.round(us(cpu1, cpu2) / Math.max(1, result.concurrent.round_trips));
  return result;
}

/**
 * Both sides' capacity: a client process per side (Hearth through socket.io-client, the
 * baseline through plain WebSockets), each warmed up, then the capacity search, the sides
 * taking turns at every step. Server CPU per trip is this process's (which runs only the
 * servers; the loaded one alone is busy) over the trips that closed.
 */
async function capacity(hearthUrl: string, bareUrl: string, common: object): Promise<void> {
  const client = (proto: "sio" | "raw", url: string) =>
    new LineProcess([process.execPath, join(import.meta.dir, "interaction-client.ts"), JSON.stringify({ proto, url, ...common, capacity: true, sequential: 0, concurrent: 0, loops: 1 })]);
  const clients = { hearth: client("sio", hearthUrl), bare: client("raw", bareUrl) };
  try {
    for (const c of Object.values(clients)) if ((await c.next()) !== "ready") throw new Error("interaction client did not start");
    const step = async (c: LineProcess, offered: number) => {
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const r = JSON.parse(await c.ask(`step ${Math.round(offered)} ${STEP_SECONDS} ${maxInFlight(offered)}`, 60_000)) as RateStep;
      const cpu = process.cpuUsage(cpu0);
      const cpuUs = Math.round(((cpu.user + cpu.system) / Math.max(1, r.completed)) * 10) / 10;
      // Both processes' CPU over the step, so a side that fell behind shows which one ran out.
      const serverPct = Math.round(((cpu.user + cpu.system) / 1000 / (performance.now() - t0)) * 1000) / 10;
      return { ...stepOf(offered, r.completed, r.offered, r.completed / STEP_SECONDS, r.p99_ms, cpuUs, r.errors), server_cpu_pct: serverPct, senders_cpu_pct: r.cpu_pct };
    };
    const paths: Path[] = (["hearth", "bare"] as const).map((mode) => ({ mode, use: () => {}, step: (offered) => step(clients[mode], offered) }));
    const results = await capacitySearch(paths, "round trips", START);
    const fields = capacityFields(results);
    const cpu = cpuRatioAtCommonLoads(results, "hearth", "bare");
    const overBare = capacityRatio(results, "hearth", "bare");
    log(
      `interaction-roundtrip capacity (round trips/s): hearth ${fields.hearth_capacity}, bare ${fields.bare_capacity}; hearth/bare ${ratioText(overBare)}; ` +
        `server CPU per trip over bare at the same offered loads ${cpu.ratio} (${cpu.at_offered.length} common loads)`,
    );
    console.log(
      JSON.stringify({
        bench: "interaction-roundtrip",
        scenario: "capacity",
        start: START,
        ...fields,
        load_average: loadAverage(),
        hearth_over_bare: overBare,
        cpu_per_trip_over_bare: cpu,
        steps: capacitySteps(results),
      }),
    );
  } finally {
    for (const c of Object.values(clients)) c.send("exit");
    await Promise.all(Object.values(clients).map((c) => c.proc.exited));
  }
}

/** The ids the baseline writes its rows with. */
interface BareIds {
  appId: string;
  botUserId: string;
  memberId: string;
  serverId: string;
  channelId: string;
}

/**
 * The baseline: a bare Bun.serve with plain WebSockets carrying JSON, writing the same rows as
 * Hearth by hand on `file` (a copy of Hearth's database), one user socket and one bot socket.
 */
function startBare(file: string, ids: BareIds): { url: string; stop(): Promise<void> } {
  const db = openSqliteFile(file);
  const SELECT = "SELECT m.*, u.username, u.avatar, u.is_bot FROM messages m JOIN users u ON u.id = m.user_id";
  const insertMessage = db.prepare(
    `INSERT INTO messages (id, channel_id, server_id, user_id, content, embeds, reply_to, webhook_id, webhook_username, webhook_avatar, created_at)
     VALUES (?, ?, ?, ?, ?, '[]', NULL, NULL, NULL, NULL, ?)`,
  );
  const messageById = db.prepare(`${SELECT} WHERE m.id = ?`);
  const insertInteraction = db.prepare(
    `INSERT INTO interactions (id, application_id, bot_user_id, type, user_id, server_id, channel_id, message_id, data, created_at)
     VALUES (?, ?, ?, 'slash_command', ?, ?, ?, ?, ?, ?) RETURNING *`,
  );
  const interactionById = db.prepare<{ id: string; channel_id: string }, [string]>("SELECT * FROM interactions WHERE id = ?");
  const markResponded = db.prepare("UPDATE interactions SET responded_at = coalesce(responded_at, ?) WHERE id = ?");
  const seconds = () => Math.floor(Date.now() / 1000);
  const store = db.transaction((userId: string, content: string) => {
    const id = Bun.randomUUIDv7();
    insertMessage.run(id, ids.channelId, ids.serverId, userId, content, seconds());
    return messageById.get(id);
  });
  const sockets = new Map<string, ServerWebSocket<{ role: string }>>();
  const bare = Bun.serve<{ role: string }>({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req, server) {
      const url = new URL(req.url);
      if (url.pathname === "/ws") {
        return server.upgrade(req, { data: { role: url.searchParams.get("role") ?? "" } }) ? undefined : new Response("no", { status: 400 });
      }
      const { content } = (await req.json()) as { content: string };
      const message = store(ids.memberId, content);
      sockets.get("user")?.send(JSON.stringify(message));
      const nonce = content.slice("/ping ".length);
      const payload = {
        id: Bun.randomUUIDv7(),
        type: "slash_command",
        command: "ping",
        args: nonce,
        options: { value: nonce },
        channel_id: ids.channelId,
        server_id: ids.serverId,
        message_id: (message as { id: string }).id,
        user: { id: ids.memberId, username: "member" },
      };
      insertInteraction.get(payload.id, ids.appId, ids.botUserId, ids.memberId, ids.serverId, ids.channelId, payload.message_id, JSON.stringify(payload), seconds());
      sockets.get("bot")?.send(JSON.stringify(payload));
      return Response.json(message, { status: 201 });
    },
    websocket: {
      open(ws) {
        sockets.set(ws.data.role, ws);
      },
      message(ws, data) {
        const answer = JSON.parse(String(data)) as { interaction_id: string; content: string };
        const interaction = interactionById.get(answer.interaction_id);
        if (!interaction) return;
        const message = store(ids.botUserId, answer.content);
        markResponded.run(seconds(), interaction.id);
        sockets.get("user")?.send(JSON.stringify(message));
      },
    },
  });
  return {
    url: `http://127.0.0.1:${bare.port}`,
    async stop() {
      await bare.stop(true);
      db.close();
    },
  };
}

const dataDir = mkdtempSync(join(tmpdir(), "hearth-bench-interactions-"));
try {
  // Setup: an owner with a server, a plain member who runs the command, a bot with /ping.
  let { app, api } = await startHearth(dataDir);
  const owner = await register(api, "owner");
  const member = await register(api, "member");
  const { serverId, channelId } = await community(app, api, owner);
  await app.store.members.add(serverId, member.id, "member");
  const created = await api<{ application: { id: string; bot_user_id: string }; bot_token: string }>(
    "POST",
    "/api/v1/oauth2/applications",
    { name: "PingBot", description: "Answers pong" },
    owner.token,
  );
  const appId = created.application.id;
  const botUserId = created.application.bot_user_id;
  const botToken = created.bot_token;
  await api("POST", `/api/v1/oauth2/applications/${appId}/servers/${serverId}`, {}, owner.token);
  await api("POST", "/api/v1/oauth2/commands", [{ name: "ping", description: "Answers pong" }], botToken);
  await app.stop();
  const baselineFile = join(dataDir, "baseline.db");
  copyFileSync(join(dataDir, "hearth.db"), baselineFile);

  const ids = { appId, botUserId, memberId: member.id, serverId, channelId };
  const common = { userToken: member.token, botToken, botUserId, channelId };
  ({ app } = await startHearth(dataDir));
  if (CAPACITY) {
    const bare = startBare(baselineFile, ids);
    try {
      await capacity(app.url, bare.url, common);
    } finally {
      await app.stop();
      await bare.stop();
    }
  } else {
    const hearth = await drive({ proto: "sio", url: app.url, ...common });
    await app.stop();
    const bare = startBare(baselineFile, ids);
    const baseline = await drive({ proto: "raw", url: bare.url, ...common });
    await bare.stop();

    const result = {
      bench: "interaction-roundtrip",
      quick: QUICK,
      hearth,
      baseline,
      ratio_p50_sequential: ratio(hearth.sequential.total.p50_ms, baseline.sequential.total.p50_ms),
      ratio_p99_sequential: ratio(hearth.sequential.total.p99_ms, baseline.sequential.total.p99_ms),
      ratio_cpu_sequential: ratio(hearth.sequential.cpu_us_per_round_trip!, baseline.sequential.cpu_us_per_round_trip!),
      ratio_throughput_concurrent: ratio(hearth.concurrent.per_second, baseline.concurrent.per_second),
    };
    const show = (name: string, r: ClientResult) => {
      const legs = (p: PhaseResult) =>
        `total p50 ${p.total.p50_ms} / p99 ${p.total.p99_ms} ms; command->interaction:create ${p.command_to_interaction.p50_ms} / ${p.command_to_interaction.p99_ms}; ` +
        `interaction:response->message:new ${p.response_to_message.p50_ms} / ${p.response_to_message.p99_ms}; REST answer ${p.rest_answer.p50_ms} / ${p.rest_answer.p99_ms}; ` +
        `${p.per_second} round trips/s, ${p.cpu_us_per_round_trip} µs server CPU each`;
      log(`  ${name}, ${r.sequential.round_trips} sequential: ${legs(r.sequential)}`);
      log(`  ${name}, ${r.concurrent.round_trips} over ${r.concurrent.loops} loops: ${legs(r.concurrent)}`);
      if (r.errors) log(`  ${name}: ${r.errors} errors, e.g. ${r.error_samples.join("; ")}`);
    };
    log("interaction-roundtrip (p50 / p99 in ms):");
    show("Hearth", hearth);
    show("bare", baseline);
    log(
      `  ratios Hearth/bare: sequential p50 ${result.ratio_p50_sequential}, p99 ${result.ratio_p99_sequential}, CPU ${result.ratio_cpu_sequential}; ` +
        `concurrent throughput ${result.ratio_throughput_concurrent}`,
    );
    console.log(JSON.stringify(result));
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
