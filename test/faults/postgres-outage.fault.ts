/**
 * PostgreSQL stopped and started under load (docs/operations.md, "Failure modes", "PostgreSQL
 * unreachable"): Hearth runs as its own process on a throwaway cluster of its own (the suite's
 * shared one is never stopped), 12 senders post continuously, the cluster is halted (as a crash
 * would stop it) for about 6 s and started again. test/ops/database-outage.test.ts proves the
 * answers one request at a time in-process; this is the same behaviour as a host meets it, with
 * sends in flight when the server goes and when it comes back.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDatabase, postgresBinDir, startCluster, type Cluster } from "../../scripts/pg-cluster.ts";
import { DATABASE_RETRY_AFTER_SECONDS } from "../../src/http/errors.ts";
import { startProcess, type HearthProcess } from "../helpers/process.ts";
import { eventually, letTimePass } from "../helpers/wait.ts";
import { api, register, serverWith } from "../cluster/nodes.ts";
import { channelMessageIds, startSenders, UNLIMITED_SENDS, type Send } from "./traffic.ts";

const SENDERS = 12;
const OUTAGE_MS = 6_000;

const installed = postgresBinDir() !== null;

/** The process's JSON log lines on stderr (warnings and errors). */
function logLines(hearth: HearthProcess): { level: string; msg: string }[] {
  return hearth
    .errors()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { level: string; msg: string });
}

const metric = async (url: string, name: string) => {
  const text = await (await fetch(`${url}/metrics`)).text();
  const value = new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1];
  if (value === undefined) throw new Error(`/metrics has no ${name}`);
  return Number(value);
};

const readiness = async (url: string) => {
  const response = await fetch(`${url}/readyz`);
  return { status: response.status, body: (await response.json()) as { status?: string; error?: string } };
};

describe.skipIf(!installed)("PostgreSQL halted for 6 s under 12 concurrent senders", () => {
  let cluster: Cluster;
  let hearth: HearthProcess;
  const dataDir = mkdtempSync(join(tmpdir(), "hearth-fault-pg-"));

  beforeAll(async () => {
    cluster = await startCluster();
    const databaseUrl = await createDatabase(cluster.url, "outage");
    hearth = await startProcess({ DATA_DIR: dataDir, DATABASE_URL: databaseUrl, JWT_SECRET: "fault-outage-secret-fault-outage-secret-01", ...UNLIMITED_SENDS });
  }, 60_000);
  afterAll(async () => {
    hearth?.proc.kill("SIGKILL");
    await hearth?.proc.exited;
    await cluster?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test("503 with Retry-After and never a 500, /readyz down and back by itself, one warning each way, the counter up; every acknowledged message kept", async () => {
    const owner = await register(hearth);
    const members = await Promise.all(Array.from({ length: SENDERS - 1 }, () => register(hearth)));
    const { channelId } = await serverWith(hearth, owner, members);
    const errorsBefore = await metric(hearth.url, "hearth_db_unavailable_errors_total");

    const senders = startSenders({ url: hearth.url, channelId, tokens: [owner, ...members].map((u) => u.token), tag: "outage" });
    await eventually(() => senders.acknowledged().length >= 200, "sends answered before the outage", { timeoutMs: 10_000 });
    const haltedAt = senders.now();
    cluster.halt();
    const haltReturnedAt = senders.now();

    // While it is down: readiness fails naming the database, the gauge says 0.
    const downReadiness = await eventually(async () => {
      const ready = await readiness(hearth.url);
      return ready.status === 503 ? ready : null;
    }, "/readyz failing during the outage", { timeoutMs: 3_000, intervalMs: 100 });
    expect(downReadiness.body.error).toStartWith("not ready: database: ");
    expect(await metric(hearth.url, "hearth_db_available")).toBe(0);
    await letTimePass(OUTAGE_MS - (senders.now() - haltedAt), "the outage lasts its time under load");
    const resumeAt = senders.now();
    cluster.resume();
    const resumedAt = senders.now();

    // Back by itself: a send acknowledged again, then readiness.
    const firstBack = await eventually(() => senders.sends.find((s) => s.status === 201 && s.startedAt >= resumedAt), "a send acknowledged once PostgreSQL is back", {
      timeoutMs: 15_000,
      intervalMs: 20,
    });
    await eventually(async () => (await readiness(hearth.url)).status === 200, "/readyz ready again by itself", { timeoutMs: 10_000, intervalMs: 100 });
    const readyAt = senders.now();
    await letTimePass(1_000, "sends flow after the recovery");
    await senders.stop();

    const { sends } = senders;
    const byStatus = (status: Send["status"]) => sends.filter((s) => s.status === status);
    // Only two answers, ever: acknowledged or "Database unavailable" with Retry-After.
    const others = sends.filter((s) => s.status !== 201 && s.status !== 503);
    expect(others.map((s) => `${s.status} ${JSON.stringify(s.body)} at ${Math.round(s.startedAt)} ms`)).toEqual([]);
    const unavailable = byStatus(503);
    expect(unavailable.length).toBeGreaterThan(SENDERS);
    for (const s of unavailable) {
      expect(s.body).toEqual({ error: "Database unavailable" });
      expect(s.retryAfter).toBe(String(DATABASE_RETRY_AFTER_SECONDS));
    }
    // Every send asked and answered wholly inside the outage was refused (none hung past it either).
    const inside = sends.filter((s) => s.startedAt > haltReturnedAt && s.endedAt < resumeAt);
    expect(inside.length).toBeGreaterThan(SENDERS);
    expect(inside.filter((s) => s.status !== 503)).toEqual([]);
    // Every sender got through again after the recovery.
    for (let sender = 0; sender < SENDERS; sender++) expect(sends.some((s) => s.sender === sender && s.status === 201 && s.startedAt > resumedAt)).toBe(true);

    // The log: one warning when it went, one when it came back, no error lines (no stack per request).
    const lines = logLines(hearth);
    expect(lines.filter((l) => l.msg.startsWith("database unavailable")).length).toBe(1);
    expect(lines.filter((l) => l.msg.startsWith("database reachable again")).length).toBe(1);
    expect(lines.filter((l) => l.level === "error").map((l) => l.msg)).toEqual([]);
    const errorsAfter = await metric(hearth.url, "hearth_db_unavailable_errors_total");
    expect(errorsAfter).toBeGreaterThan(errorsBefore);
    expect(await metric(hearth.url, "hearth_db_available")).toBe(1);

    // 0 lost: every acknowledged message is in the channel, read back over REST.
    const stored = new Set(await channelMessageIds(hearth.url, owner.token, channelId));
    const acknowledged = senders.acknowledged();
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    expect((await api(hearth, "GET", "/api/v1/users/me/info", { token: owner.token })).status).toBe(200);

    console.log(
      `postgres-outage: ${sends.length} sends, ${acknowledged.length} acknowledged (all stored), ${unavailable.length} answered 503, ` +
        `${errorsAfter - errorsBefore} unavailable errors counted; outage ${Math.round(resumeAt - haltedAt)} ms; first 201 ` +
        `${Math.round(firstBack.endedAt - resumedAt)} ms after the restart returned, ready ${Math.round(readyAt - resumedAt)} ms after`,
    );
  }, 60_000);
});
