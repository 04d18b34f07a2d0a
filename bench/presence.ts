/**
 * Presence fan-out when members of one server connect (docs/gateway.md, "Presence"): N sockets
 * of N different members connect one after another, each joins the server's room
 * (`server:join`), and every `user:status` any of them receives is counted. Three cases, on the
 * same database:
 *   small      - LARGE_SERVER_MEMBERS above the server's size: presence goes to the server room,
 *                as before large servers existed (each connection reaches every socket already
 *                there: N(N+1)/2 deliveries)
 *   large      - the default threshold (250): the server is large, nobody subscribes; each
 *                connection reaches only the member's own socket (N)
 *   subscribed - large, and each socket sends `presence:subscribe` for the first `--list`
 *                members (100 by default: a member list's screenful; the same one for everyone,
 *                as every client shows the top of the list)
 *   worst      - large, and each socket subscribes to the `--list` members that connect right
 *                after it, so every connection reaches `--list` sockets already there: the bound
 *                a subscription allows, about N x list
 * The members are built through the store (users and memberships, no HTTP), `--members` of them
 * (10,000 by default; the issue's fixture is 100,000), and the tokens signed directly. The
 * receivers are socket.io-client sockets in this process: this bench counts deliveries, which do
 * not depend on the machine; the times it prints are this process's (server and clients) wall
 * time and are only indicative. Prints a human summary on stderr and one JSON line on stdout.
 *
 *   bun bench/presence.ts [--quick] [--sockets 200,1000] [--members 10000] [--list 100]
 *
 * `--quick`: 100 and 500 sockets in a server of 1,000 members (CI's `bench:quick`).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { io, type Socket } from "socket.io-client";
import { TokenService } from "../src/domain/accounts/tokens.ts";
import { DEFAULT_LARGE_SERVER_MEMBERS } from "../src/domain/shared/caps.ts";
import { DEFAULT_EVERYONE_PERMISSIONS } from "../src/domain/access/permission-bits.ts";
import { jwtCodec } from "../src/http/jwt-codec.ts";
import { argOf, hasFlag, log, startHearth } from "./fixture.ts";

const QUICK = hasFlag("quick");
const SIZES = argOf("sockets", QUICK ? "100,500" : "200,1000").split(",").map(Number);
const MEMBERS = Number(argOf("members", QUICK ? "1000" : "10000"));
const LIST = Number(argOf("list", "100"));
const SECRET = "bench-presence-secret-0123456789abcdef0123456789";
const CASES = ["small", "large", "subscribed", "worst"] as const;
type Case = (typeof CASES)[number];

const maxN = Math.max(...SIZES);
if (MEMBERS < maxN || MEMBERS <= DEFAULT_LARGE_SERVER_MEMBERS) throw new Error(`--members must be at least ${maxN} and above ${DEFAULT_LARGE_SERVER_MEMBERS}`);
const dataDir = mkdtempSync(join(tmpdir(), "hearth-bench-presence-"));
const started = performance.now();

/** The fixture, built once on the file database: an owner, a server of MEMBERS members, their tokens. */
async function build(): Promise<{ serverId: string; members: { id: string; token: string }[] }> {
  const { app } = await startHearth(dataDir, { jwtSecret: SECRET });
  try {
    const { store } = app;
    const t0 = performance.now();
    const owner = await store.users.create({ username: "pr_owner", email: "pr_owner@bench.test", passwordHash: "x", isBot: false });
    if (!owner.ok) throw new Error("owner");
    const server = await store.servers.create(
      { ownerId: owner.user.id, name: "big", description: "", everyonePermissions: DEFAULT_EVERYONE_PERMISSIONS, primaryInviteCode: "presencebench" },
      Number.POSITIVE_INFINITY,
    );
    if (!server) throw new Error("server");
    const tokens = new TokenService(jwtCodec(SECRET), "30d");
    const members: { id: string; token: string }[] = [];
    for (let i = 0; i < MEMBERS - 1; i++) {
      const created = await store.users.create({ username: `pr${i}`, email: `pr${i}@bench.test`, passwordHash: "x", isBot: false });
      if (!created.ok) throw new Error("member");
      await store.members.add(server.id, created.user.id);
      // Only the ones that connect need a token.
      members.push({ id: created.user.id, token: i < maxN ? await tokens.sign({ userId: created.user.id, version: 0 }, false) : "" });
    }
    log(`built a server of ${MEMBERS} members through the store in ${Math.round(performance.now() - t0)} ms`);
    return { serverId: server.id, members };
  } finally {
    await app.stop();
  }
}

interface Result {
  case: Case;
  sockets: number;
  deliveries: number;
  bytes: number;
  per_connect: number;
  wall_ms: number;
}

/** One case at one size: connect `n` members one by one, count every `user:status`, close them all. */
async function run(which: Case, n: number, fixture: Awaited<ReturnType<typeof build>>): Promise<Result> {
  // `small`: a threshold above the server's size is the behaviour before large servers.
  const { app } = await startHearth(dataDir, { jwtSecret: SECRET, largeServerMembers: which === "small" ? MEMBERS + 1 : DEFAULT_LARGE_SERVER_MEMBERS });
  const sockets: Socket[] = [];
  let deliveries = 0;
  let bytes = 0;
  let last = performance.now();
  const topOfList = fixture.members.slice(0, LIST).map((m) => m.id);
  try {
    const t0 = performance.now();
    for (const [i, member] of fixture.members.slice(0, n).entries()) {
      const socket = io(app.url, { auth: { token: member.token }, transports: ["websocket"], reconnection: false, forceNew: true });
      socket.on("user:status", (payload: unknown) => {
        deliveries++;
        bytes += JSON.stringify(payload).length;
        last = performance.now();
      });
      await new Promise<void>((resolve, reject) => {
        socket.once("connect", () => resolve());
        socket.once("connect_error", reject);
      });
      const joined = (await socket.emitWithAck("server:join", fixture.serverId)) as { ok: boolean };
      if (!joined.ok) throw new Error("server:join refused");
      if (which === "subscribed" || which === "worst") {
        const ids = which === "subscribed" ? topOfList : fixture.members.slice(i + 1, i + 1 + LIST).map((m) => m.id);
        const ack = (await socket.emitWithAck("presence:subscribe", { server_id: fixture.serverId, user_ids: ids })) as { ok: boolean };
        if (!ack.ok) throw new Error("presence:subscribe refused");
      }
      sockets.push(socket);
    }
    // Until nothing more arrives for half a second.
    while (performance.now() - last < 500) await Bun.sleep(100);
    const wall = Math.round(last - t0);
    return { case: which, sockets: n, deliveries, bytes, per_connect: Math.round((deliveries / n) * 10) / 10, wall_ms: wall };
  } finally {
    for (const socket of sockets) socket.close();
    await app.stop();
  }
}

try {
  const fixture = await build();
  const results: Result[] = [];
  for (const n of SIZES) {
    for (const which of CASES) {
      const result = await run(which, n, fixture);
      results.push(result);
      log(`${which.padEnd(10)} ${String(n).padStart(5)} sockets: ${result.deliveries.toLocaleString("en")} user:status deliveries (${result.per_connect} a connection, ${(result.bytes / 1e6).toFixed(2)} MB), ${result.wall_ms} ms`);
    }
  }
  // Growth from the smallest to the largest size: N² grows (n1/n0)², N grows n1/n0.
  const growth: Record<string, number> = {};
  const [n0, n1] = [Math.min(...SIZES), maxN];
  for (const which of CASES) {
    const a = results.find((r) => r.case === which && r.sockets === n0)!;
    const b = results.find((r) => r.case === which && r.sockets === n1)!;
    growth[which] = Math.round((b.deliveries / a.deliveries) * 100) / 100;
  }
  log(`growth ${n0} -> ${n1} sockets: ${CASES.map((c) => `${c} ${growth[c]}x`).join(", ")} (linear: ${n1 / n0}x, quadratic: ${(n1 / n0) ** 2}x)`);
  console.log(
    JSON.stringify({
      bench: "presence",
      members: MEMBERS,
      list: LIST,
      large_server_members: DEFAULT_LARGE_SERVER_MEMBERS,
      results,
      growth,
      seconds: Math.round((performance.now() - started) / 1000),
    }),
  );
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
