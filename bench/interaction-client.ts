/**
 * The user and the bot of bench/interaction-roundtrip.ts, in one process of their own (one
 * clock for every leg), apart from the server. Each round trip: the user POSTs `/ping <nonce>`
 * to the channel, the bot gets `interaction:create` and at once answers `interaction:response`
 * with `pong <nonce>`, and the user's socket (joined to the channel) gets that answer as
 * `message:new`. Runs `sequential` round trips one after another, then `concurrent` more
 * spread over `loops` parallel loops, and prints one JSON line. With `capacity`: after the
 * warm-up, open-loop steps at the rates the driver asks for, one JSON line each (`RateStep`).
 *
 * proto "sio": Hearth, through the real socket.io-client (websocket transport).
 * proto "raw": the bare baseline server, plain WebSockets carrying JSON.
 *
 *   bun bench/interaction-client.ts '<json {proto, url, userToken, botToken, botUserId, channelId, sequential, concurrent, loops}>'
 */
import { io, type Socket } from "socket.io-client";
import { latency, type Latency } from "./fixture.ts";
import { openLoop } from "./open-loop.ts";

const cfg = JSON.parse(process.argv[2]!) as {
  proto: "sio" | "raw";
  url: string;
  userToken: string;
  botToken: string;
  botUserId: string;
  channelId: string;
  sequential: number;
  concurrent: number;
  loops: number;
  warmup?: number;
  /** Open-loop steps on request instead of the two phases (bench/interaction-roundtrip.ts `--capacity`). */
  capacity?: boolean;
};
const now = () => performance.now();
const ROUND_TIMEOUT_MS = 10_000;

interface Round {
  t0: number;
  rest?: number;
  created?: number;
  responded?: number;
  done?: number;
  finish: () => void;
}
const rounds = new Map<string, Round>();
let errors = 0;
const errorSamples: string[] = [];
const fail = (what: string) => {
  errors++;
  if (errorSamples.length < 5) errorSamples.push(what);
};

interface SlashInteraction {
  id: string;
  channel_id: string;
  args?: string;
  options?: Record<string, unknown>;
}
interface ChatMessage {
  user_id: string;
  content: string;
}
type Ack = { ok: true } | { ok: false; error: string };

/** The bot's side: answer every interaction at once, stamping its two times. */
function onInteraction(interaction: SlashInteraction, answer: (payload: object) => void) {
  const nonce = String(interaction.options?.value ?? interaction.args ?? "");
  const round = rounds.get(nonce);
  if (round) round.created = now();
  const payload = { interaction_id: interaction.id, channel_id: interaction.channel_id, content: `pong ${nonce}` };
  if (round) round.responded = now();
  answer(payload);
}

/** The user's side: the bot's answer closes the round. */
function onMessage(message: ChatMessage) {
  if (message.user_id !== cfg.botUserId || !message.content.startsWith("pong ")) return;
  const round = rounds.get(message.content.slice(5));
  if (!round) return;
  round.done = now();
  round.finish();
}

let closeAll: () => void;
if (cfg.proto === "sio") {
  const connect = (token: string): Promise<Socket> => {
    const socket = io(cfg.url, { auth: { token }, transports: ["websocket"], reconnection: false, forceNew: true });
    return new Promise((resolve, reject) => {
      socket.once("connect", () => resolve(socket));
      socket.once("connect_error", reject);
    });
  };
  const bot = await connect(cfg.botToken);
  const user = await connect(cfg.userToken);
  const joined = (await user.emitWithAck("channel:join", cfg.channelId)) as Ack;
  if (!joined.ok) throw new Error(`channel:join: ${joined.error}`);
  bot.on("interaction:create", (interaction: SlashInteraction) =>
    onInteraction(interaction, (payload) =>
      bot.emit("interaction:response", payload, (ack: Ack) => {
        if (!ack.ok) fail(`interaction:response: ${ack.error}`);
      }),
    ),
  );
  user.on("message:new", onMessage);
  closeAll = () => {
    bot.close();
    user.close();
  };
} else {
  const base = cfg.url.replace(/^http/, "ws");
  const open = (role: string): Promise<WebSocket> => {
    const ws = new WebSocket(`${base}/ws?role=${role}`);
    return new Promise((resolve, reject) => {
      ws.onopen = () => resolve(ws);
      ws.onerror = () => reject(new Error(`${role} websocket error`));
    });
  };
  const bot = await open("bot");
  const user = await open("user");
  bot.onmessage = (event) => onInteraction(JSON.parse(String(event.data)) as SlashInteraction, (payload) => bot.send(JSON.stringify(payload)));
  user.onmessage = (event) => onMessage(JSON.parse(String(event.data)) as ChatMessage);
  closeAll = () => {
    bot.close();
    user.close();
  };
}

const sendUrl = cfg.proto === "sio" ? `${cfg.url}/api/v1/messages/${cfg.channelId}` : `${cfg.url}/send`;
const headers = { "content-type": "application/json", authorization: `Bearer ${cfg.userToken}` };
let seq = 0;

/**
 * One round trip, timed from `t0` (in an open-loop step, the tick it fell due in, as the other
 * open-loop clients time their requests): the round when it closed, or null
 * (failed, counted in `errors`; or not closed within `timeoutMs`, counted there too unless
 * `quietTimeout`, an open-loop step counting its late trips itself as not delivered).
 */
async function roundTrip(t0 = now(), timeoutMs = ROUND_TIMEOUT_MS, quietTimeout = false): Promise<Round | null> {
  const nonce = `${process.pid.toString(36)}-${(++seq).toString(36)}`;
  let timer: Timer | undefined;
  const finished = new Promise<boolean>((resolve) => {
    rounds.set(nonce, { t0, finish: () => resolve(true) });
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const round = rounds.get(nonce)!;
  try {
    const res = await fetch(sendUrl, { method: "POST", headers, body: JSON.stringify({ content: `/ping ${nonce}` }) });
    round.rest = now();
    if (res.status !== 201) {
      fail(`POST: ${res.status} ${await res.text()}`);
      return null;
    }
    await res.arrayBuffer();
    const ok = await finished;
    if (!ok && !quietTimeout) fail(`round trip ${nonce} timed out`);
    return ok ? round : null;
  } catch (error) {
    fail(`POST: ${String(error)}`);
    return null;
  } finally {
    clearTimeout(timer);
    rounds.delete(nonce);
  }
}

/** Closed loop: `record` gets every round trip that closed. */
async function closedTrip(record: Round[]): Promise<void> {
  const round = await roundTrip();
  if (round) record.push(round);
}

/** One phase's figures as this client reports them (bench/interaction-roundtrip.ts adds the server's CPU). */
export interface Phase {
  round_trips: number;
  seconds: number;
  per_second: number;
  total: Latency;
  command_to_interaction: Latency;
  response_to_message: Latency;
  rest_answer: Latency;
}
function phase(record: Round[], seconds: number): Phase {
  const legs = (f: (r: Round) => number) => latency(record.map(f));
  return {
    round_trips: record.length,
    seconds: Math.round(seconds * 1000) / 1000,
    per_second: Math.round(record.length / seconds),
    total: legs((r) => r.done! - r.t0),
    command_to_interaction: legs((r) => r.created! - r.t0),
    response_to_message: legs((r) => r.done! - r.responded!),
    rest_answer: legs((r) => r.rest! - r.t0),
  };
}

const warm: Round[] = [];
for (let i = 0; i < (cfg.warmup ?? 100); i++) await closedTrip(warm);
const out = (line: string) => process.stdout.write(line + "\n");

/** What one open-loop step reports (bench/interaction-roundtrip.ts `--capacity`). */
export interface RateStep {
  /** Round trips due during the step. */
  offered: number;
  /** ... that closed (the bot's answer reached the user) within the trip's time limit. */
  completed: number;
  /** ... not started: `maxInFlight` trips were already open (the server had fallen behind). */
  dropped: number;
  /** POSTs answered with anything but 201, and failed acks, during the step. */
  errors: number;
  /** Of the closed trips, timed from the tick each fell due in. */
  p99_ms: number;
  /** This client process's CPU over the step (until its last trip closed), % of one core. */
  cpu_pct: number;
}

/** A step's trips still open after this long are not delivered. */
const RATE_TRIP_TIMEOUT_MS = 3_000;

/**
 * Open loop (the schedule of bench/open-loop.ts): `rate` round trips a second for `seconds`,
 * each started when due whatever the others are doing, at most `maxInFlight` open at once (the
 * rest dropped). Answers once every trip has closed or timed out, so no step's trips run into
 * the next step.
 */
async function rateStep(rate: number, seconds: number, maxInFlight: number): Promise<RateStep> {
  const errors0 = errors;
  const closed: Round[] = [];
  const trips: Promise<void>[] = [];
  let open = 0;
  const cpu0 = process.cpuUsage();
  const start = now();
  const { offered, dropped } = await openLoop(
    rate,
    seconds,
    (due) => {
      if (open >= maxInFlight) return false;
      open++;
      trips.push(
        roundTrip(due, RATE_TRIP_TIMEOUT_MS, true).then((round) => {
          open--;
          if (round) closed.push(round);
        }),
      );
      return true;
    },
    () => open,
  );
  await Promise.all(trips);
  const cpu = process.cpuUsage(cpu0);
  return {
    offered,
    completed: closed.length,
    dropped,
    errors: errors - errors0,
    p99_ms: latency(closed.map((r) => r.done! - r.t0)).p99_ms,
    cpu_pct: Math.round(((cpu.user + cpu.system) / 1000 / (now() - start)) * 1000) / 10,
  };
}

if (cfg.capacity) {
  // Driven by lines: `step <trips/s> <seconds> <max in flight>` answers a RateStep; `exit`.
  out("ready");
  for await (const line of console) {
    const [cmd, rate, seconds, inFlight] = line.trim().split(" ");
    if (cmd === "step") out(JSON.stringify(await rateStep(Number(rate), Number(seconds), Number(inFlight))));
    else if (cmd === "exit") break;
  }
  closeAll();
  process.exit(0);
}

// Tell the driver where each measured phase starts (it reads the server's CPU there).
out("sequential");

const sequential: Round[] = [];
let t = now();
for (let i = 0; i < cfg.sequential; i++) await closedTrip(sequential);
const sequentialSeconds = (now() - t) / 1000;

out("concurrent");
const concurrent: Round[] = [];
t = now();
const perLoop = Math.ceil(cfg.concurrent / cfg.loops);
await Promise.all(
  Array.from({ length: cfg.loops }, async () => {
    for (let i = 0; i < perLoop; i++) await closedTrip(concurrent);
  }),
);
const concurrentSeconds = (now() - t) / 1000;

closeAll();
out(
  JSON.stringify({
    errors,
    error_samples: errorSamples,
    sequential: phase(sequential, sequentialSeconds),
    concurrent: { loops: cfg.loops, ...phase(concurrent, concurrentSeconds) },
  }),
);
process.exit(0);
