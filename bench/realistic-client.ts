/**
 * A load client of bench/realistic.ts, run as its own process, holding many people: one
 * socket.io-client connection each, and each behaving on its own open-loop schedule (every
 * interval is drawn uniformly from its range, then divided by `speed`; each schedule starts at a
 * random point of its first interval):
 *   message   every 30-120 s: `typing:start` in one of its active channels, 1-4 s later
 *             `POST /api/v1/messages/:channelId` with the send's start time in the content
 *   reaction  every 60-300 s: toggles 👍 on the newest message seen in one of its active channels
 *   read      every 60-300 s: a page of 50 (`GET /api/v1/messages/:channelId`), then marks it read
 *   presence  every 300-900 s: `status:set` idle, then online again at the next
 *   churn     every 1800-5400 s: leaves one of its servers, joins it again by its invite 10-60 s later
 * Each person connects, joins all its servers and their channels in one `server:join {servers:
 * "all", channels: "all"}`, and has three active channels (drawn from its servers' channels)
 * where it writes, reacts and reads; it receives every channel of its servers. Every
 * `message:new` from someone else whose content is `rl <send time ms>` is timed (the send
 * time is `performance.timeOrigin + performance.now()` in the sender's process, comparable
 * across the processes of one machine).
 *
 *   bun bench/realistic-client.ts <base url> <speed> <seed>
 *
 * Commands on stdin, one a line; answers on stdout:
 *   add <json [{id, token, servers: [{id, invite, channels}]}]>  connect and start them (after
 *            every earlier one is connected again); `ok <people online>`
 *   keep <n> the first n people of all added online (connected again if need be), the others
 *            disconnected and stopped, their memberships kept; `ok <people online>`
 *   reset    zero the figures; `ok`
 *   report   one JSON line: deliveries and their latency buckets, requests by kind, failures by
 *            kind (and `raced`: failures of a person's request that crossed its own leave or
 *            join of a server, or its disconnection, not counted as failures), sockets closed by
 *            the server, other events received, timer lateness p99
 *   quit     (or the end of stdin)
 */
import { io, type Socket } from "socket.io-client";
import { LatencyHistogram } from "./latency-histogram.ts";
import { distinct, seededRandom, uniform } from "./realistic-plan.ts";

const [base, speedArg, seedArg] = process.argv.slice(2);
if (!base) throw new Error("usage: realistic-client.ts <base url> <speed> <seed>");
const SPEED = Number(speedArg ?? "1");
const random = seededRandom(Number(seedArg ?? "1"));
const now = () => performance.timeOrigin + performance.now();
const out = (line: string) => process.stdout.write(line + "\n");

interface ServerInfo {
  id: string;
  invite: string;
  channels: string[];
}
interface Person {
  id: string;
  token: string;
  servers: ServerInfo[];
  /** Channel id -> its server, of every server the person is in at the start. */
  serverOf: Map<string, string>;
  /** Where the person writes, reacts and reads (while in that server). */
  active: string[];
  /** Servers it left and has not joined again yet. */
  away: Set<string>;
  idle: boolean;
  socket: Socket | null;
  /** Disconnected by `keep` (and its schedules stopped) until a `keep` connects it again. */
  gone: boolean;
  /** Counts its disconnections: a schedule armed before one stops. */
  life: number;
  /** Counts its leaves and joins: a request that fails across one (a mark-read answered after
   *  the leave it raced with) is the bench's race, not a failure of the server. */
  churns: number;
}

const delivery = new LatencyHistogram();
const lateness = new LatencyHistogram();
let requests: Record<string, number> = {};
let failures: Record<string, number> = {};
/** Failed requests that raced with their person's own leave or join, or its disconnection by `keep`. */
let raced = 0;
let disconnects = 0;
let otherEvents = 0;
let quitting = false;
let loggedFailures = 0;
/** The newest message id seen per channel (any person of this process), for reactions. */
const newest = new Map<string, string>();
/** Every person of this process, in the order added; the first `online` of them are connected. */
const people: Person[] = [];
let online = 0;

const count = (into: Record<string, number>, kind: string) => (into[kind] = (into[kind] ?? 0) + 1);
/** A failure of `kind`, unless `p` left or joined a server, or was disconnected, since `epoch`. */
const fail = (p: Person, epoch: number, kind: string, why: string) => {
  if (p.gone || quitting || p.churns !== epoch) return void raced++;
  count(failures, kind);
  if (loggedFailures++ < 5) process.stderr.write(`realistic-client: ${kind} failed: ${why}\n`);
};

/** A REST call as `p`; a non-2xx answer or a network error counts as a failure of `kind`. */
async function call(p: Person, kind: string, method: string, path: string, body?: unknown): Promise<void> {
  count(requests, kind);
  const epoch = p.churns;
  try {
    const headers: Record<string, string> = { authorization: `Bearer ${p.token}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (res.status >= 300) fail(p, epoch, kind, `${method} ${path}: ${res.status} ${text}`);
  } catch (error) {
    fail(p, epoch, kind, `${method} ${path}: ${String(error)}`);
  }
}

/** An event with an ack; `{ok: false}` or no ack within 10 s counts as a failure of `kind`. */
function emit(p: Person, kind: string, event: string, payload: unknown): void {
  if (!p.socket?.connected) return;
  count(requests, kind);
  const epoch = p.churns;
  p.socket
    .timeout(10_000)
    .emitWithAck(event, payload)
    .then(
      (ack: { ok?: boolean; error?: string }) => {
        if (!ack?.ok) fail(p, epoch, kind, `${event}: ${ack?.error}`);
      },
      (error: unknown) => fail(p, epoch, kind, `${event}: ${String(error)}`),
    );
}

/** The person's active channels in the servers it is in now. */
const activeNow = (p: Person) => p.active.filter((c) => !p.away.has(p.serverOf.get(c)!));
const pick = <T>(items: T[]): T | undefined => items[Math.floor(random() * items.length)];

/** Runs `act` every [lo, hi) s / SPEED, from a random phase; the timers' lateness is recorded. */
function every(p: Person, lo: number, hi: number, act: () => void): void {
  const life = p.life;
  const arm = (delayS: number) => {
    const at = now() + (delayS * 1000) / SPEED;
    setTimeout(() => {
      if (quitting || p.life !== life) return;
      lateness.add(Math.max(0, now() - at));
      act();
      arm(uniform(random, lo, hi));
    }, (delayS * 1000) / SPEED);
  };
  // The first at a random point of a first interval, so the step's rate is steady from the start.
  arm(random() * uniform(random, lo, hi));
}

function behave(p: Person): void {
  every(p, 30, 120, () => {
    const channel = pick(activeNow(p));
    if (!channel) return;
    emit(p, "typing", "typing:start", channel);
    const life = p.life;
    setTimeout(() => {
      if (quitting || p.life !== life || !activeNow(p).includes(channel)) return;
      void call(p, "message", "POST", `/api/v1/messages/${channel}`, { content: `rl ${now().toFixed(3)}` });
    }, (uniform(random, 1, 4) * 1000) / SPEED);
  });
  every(p, 60, 300, () => {
    const channel = pick(activeNow(p));
    const message = channel && newest.get(channel);
    if (message) void call(p, "reaction", "PUT", `/api/v1/messages/${channel}/reactions/${message}`, { emoji: "👍" });
  });
  every(p, 60, 300, () => {
    const channel = pick(activeNow(p));
    if (!channel) return;
    void call(p, "read", "GET", `/api/v1/messages/${channel}?limit=50`).then(() => {
      if (!p.gone && activeNow(p).includes(channel)) return call(p, "mark_read", "POST", `/api/v1/messages/${channel}/read`, {});
    });
  });
  every(p, 300, 900, () => {
    p.idle = !p.idle;
    emit(p, "presence", "status:set", { status: p.idle ? "idle" : "online" });
  });
  every(p, 1800, 5400, () => {
    // Never the last server it is in.
    const server = pick(p.servers.filter((s) => !p.away.has(s.id)));
    if (!server || p.servers.length - p.away.size < 2) return;
    p.away.add(server.id);
    p.churns++;
    void call(p, "leave", "DELETE", `/api/v1/servers/${server.id}/leave`).then(() =>
      setTimeout(() => {
        // Even when disconnected meanwhile: its memberships stay as they were.
        if (quitting) return;
        void call(p, "join", "POST", `/api/v1/servers/join/${server.invite}`).then(() => {
          p.away.delete(server.id);
          p.churns++;
        });
      }, (uniform(random, 10, 60) * 1000) / SPEED),
    );
  });
}

/** Connects `p`, joins everything it may see, and starts its schedules. */
async function start(p: Person): Promise<void> {
  const socket = io(base!, { auth: { token: p.token }, transports: ["websocket"], reconnection: false, forceNew: true });
  p.socket = socket;
  socket.on("message:new", (m: { id: string; channel_id: string; user_id: string; content: string }) => {
    newest.set(m.channel_id, m.id);
    if (m.user_id === p.id || !m.content.startsWith("rl ")) return;
    delivery.add(now() - Number(m.content.slice(3)));
  });
  for (const event of ["typing:start", "message:reaction", "user:status", "member:joined", "member:left", "read-state:update"]) socket.on(event, () => otherEvents++);
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("connect_error", reject);
  });
  socket.on("disconnect", (reason) => {
    if (!quitting && !p.gone) {
      disconnects++;
      process.stderr.write(`realistic-client: a socket closed: ${reason}\n`);
    }
  });
  const ack = (await socket.timeout(60_000).emitWithAck("server:join", { servers: "all", channels: "all" })) as { ok: boolean; error?: string };
  if (!ack.ok) throw new Error(`server:join: ${ack.error}`);
  behave(p);
}

async function add(list: { id: string; token: string; servers: ServerInfo[] }[]): Promise<void> {
  const added: Person[] = list.map((u) => {
    const serverOf = new Map(u.servers.flatMap((s) => s.channels.map((c) => [c, s.id] as const)));
    const all = [...serverOf.keys()];
    return { ...u, serverOf, active: distinct(random, all.length, 3).map((i) => all[i]!), away: new Set(), idle: false, socket: null, gone: false, life: 0, churns: 0 };
  });
  // A few hundred handshakes at a time.
  for (let i = 0; i < added.length; i += 200) await Promise.all(added.slice(i, i + 200).map(start));
  people.push(...added);
  online = people.length;
}

/** The first `n` people connected (those disconnected by an earlier `keep` connect again), the others disconnected. */
async function keep(n: number): Promise<void> {
  for (const p of people.slice(n)) {
    if (p.gone) continue;
    p.gone = true;
    p.life++;
    p.churns++;
    p.socket?.close();
  }
  const back = people.slice(0, n).filter((p) => p.gone);
  for (const p of back) p.gone = false;
  for (let i = 0; i < back.length; i += 200) await Promise.all(back.slice(i, i + 200).map(start));
  online = Math.min(n, people.length);
}

let cpu = process.cpuUsage();
let since = performance.now();
for await (const line of console) {
  const space = line.indexOf(" ");
  const cmd = space < 0 ? line.trim() : line.slice(0, space);
  if (cmd === "add") {
    await add(JSON.parse(line.slice(space + 1)) as { id: string; token: string; servers: ServerInfo[] }[]);
    out(`ok ${online}`);
  } else if (cmd === "keep") {
    await keep(Number(line.slice(space + 1)));
    out(`ok ${online}`);
  } else if (cmd === "reset") {
    delivery.clear();
    lateness.clear();
    requests = {};
    failures = {};
    disconnects = otherEvents = raced = 0;
    cpu = process.cpuUsage();
    since = performance.now();
    out("ok");
  } else if (cmd === "report") {
    const used = process.cpuUsage(cpu);
    const [late] = LatencyHistogram.quantiles([lateness.buckets()], [0.99]).at;
    out(
      JSON.stringify({
        people: online,
        deliveries: delivery.count,
        buckets: delivery.buckets(),
        requests,
        failures,
        raced,
        disconnects,
        other_events: otherEvents,
        timer_late_p99_ms: late,
        cpu_pct: Math.round(((used.user + used.system) / 1000 / (performance.now() - since)) * 1000) / 10,
      }),
    );
  } else if (cmd === "quit") break;
}
// `quit`, or stdin closed (the bench ended).
quitting = true;
for (const p of people) p.socket?.close();
process.exit(0);
