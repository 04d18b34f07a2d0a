/**
 * SIGKILL under concurrent sends (docs/operations.md, "Failure modes", "Process killed while
 * sending"; docs/messages.md, "Idempotent sends"): Hearth runs as its own process, on SQLite and
 * on a PostgreSQL database of its own; 24 senders post with a nonce per message and
 * `enforce_nonce`, through a TCP proxy. Just before the kill the proxy drops the answers for a
 * moment, so sends are stored whose answers never arrive (what a kill between the commit and the
 * answer does, made certain rather than left to luck); then the process is SIGKILLed and started
 * again on the same data, and every sender retries its unanswered send with the same nonce until
 * it is answered. No acknowledged message may be lost, and none may be stored twice.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDatabase, freePort } from "../../scripts/pg-cluster.ts";
import { startProcess, type HearthProcess } from "../helpers/process.ts";
import { startTcpProxy } from "../helpers/tcp-proxy.ts";
import { eventually, letTimePass } from "../helpers/wait.ts";
import { api, register, serverWith } from "../cluster/nodes.ts";
import { UNLIMITED_SENDS } from "./traffic.ts";

const SENDERS = 24;
/** Acknowledged sends before the kill, and after the restart before the senders stop. */
const BEFORE_KILL = 150;
const AFTER_RESTART = 100;
/** How long answers are dropped before the kill. */
const ANSWERS_LOST_MS = 300;

/** The unix milliseconds a UUIDv7 (a message id) was made at. */
const idTime = (id: string) => parseInt(id.replace(/-/g, "").slice(0, 12), 16);

/** The shared cluster's base URL (the runner's database URL without its database name). */
const clusterUrl = (process.env.HEARTH_CLUSTER_DATABASE_URL ?? "").replace(/\/[^/]+$/, "");

interface Acknowledged {
  content: string;
  nonce: string;
  id: string;
  /** How many tries it took (more than one: its first answer was lost). */
  tries: number;
}

/**
 * One loop per token, each sending `<tag> <sender> <n>` with nonce `<sender>-<n>` and, like the
 * SDK, trying a send again with the same nonce after a network error or a 5xx, until answered.
 */
function startSenders(target: { url: string }, channelId: string, tokens: string[], tag: string) {
  const acknowledged: Acknowledged[] = [];
  const refused: { status: number; body: string }[] = [];
  let stopped = false;
  const loop = async (sender: number, token: string) => {
    for (let n = 0; !stopped; n++) {
      const nonce = `${tag}-${sender}-${n}`;
      const content = `${tag} ${sender} ${n}`;
      for (let tries = 1; ; tries++) {
        let status: number | "network" = "network";
        let text = "";
        try {
          const response = await fetch(`${target.url}/api/v1/messages/${channelId}`, {
            method: "POST",
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
            body: JSON.stringify({ content, nonce, enforce_nonce: true }),
            signal: AbortSignal.timeout(2_000),
          });
          status = response.status;
          text = await response.text();
        } catch {
          // The connection was cut (the kill), refused (not restarted yet) or timed out: retried.
        }
        if (status === 201) {
          acknowledged.push({ content, nonce, id: (JSON.parse(text) as { id: string }).id, tries });
          break;
        }
        if (status !== "network" && status < 500) {
          refused.push({ status, body: text });
          break;
        }
        await letTimePass(50, "the server to come back before a retry");
      }
      await letTimePass(5, "a steady stream, not a flood on a 2-core machine");
    }
  };
  const loops = tokens.map((token, sender) => loop(sender, token));
  return {
    acknowledged,
    refused,
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

/** Every message of the channel, read over REST 100 at a time. */
async function channelMessages(url: string, token: string, channelId: string): Promise<{ id: string; content: string }[]> {
  const all: { id: string; content: string }[] = [];
  for (let before: string | null = null; ; ) {
    const page = (await api(target(url), "GET", `/api/v1/messages/${channelId}?limit=100${before ? `&before=${before}` : ""}`, { token })).body as { id: string; content: string }[];
    all.push(...page);
    if (page.length < 100) return all;
    before = page.at(-1)!.id;
  }
}
const target = (url: string) => ({ url });

const stores: { name: string; env: () => Promise<Record<string, string>> }[] = [
  { name: "SQLite", env: async () => ({}) },
  { name: "PostgreSQL", env: async () => ({ DATABASE_URL: await createDatabase(clusterUrl, `sigkill_sends_${process.pid}`) }) },
];

for (const store of stores) {
  describe.skipIf(store.name === "PostgreSQL" && !clusterUrl)(`SIGKILL during ${SENDERS} concurrent senders (${store.name})`, () => {
    const dataDir = mkdtempSync(join(tmpdir(), "hearth-fault-sigkill-"));
    let hearth: HearthProcess | undefined;
    afterAll(async () => {
      hearth?.proc.kill("SIGKILL");
      await hearth?.proc.exited;
      rmSync(dataDir, { recursive: true, force: true });
    });

    test("every sender retries its in-flight send with its nonce: 0 acknowledged lost, 0 duplicates", async () => {
      const port = String(freePort());
      const env = { ...(await store.env()), DATA_DIR: dataDir, PORT: port, JWT_SECRET: "fault-sigkill-secret-fault-sigkill-secret-01", ...UNLIMITED_SENDS };
      hearth = await startProcess(env);
      const server = { url: hearth.url };
      const proxy = startTcpProxy([Number(port)]);
      const owner = await register(server);
      const members = await Promise.all(Array.from({ length: SENDERS - 1 }, () => register(server)));
      const { channelId } = await serverWith(server, owner, members);

      let killedAt = 0;
      const senders = startSenders(proxy, channelId, [owner, ...members].map((u) => u.token), "kill");
      try {
        await eventually(() => senders.acknowledged.length >= BEFORE_KILL, "sends answered before the kill", { timeoutMs: 15_000 });
        proxy.swallowAnswers(true);
        await letTimePass(ANSWERS_LOST_MS, "sends stored whose answers are lost");
        hearth.proc.kill("SIGKILL");
        await hearth.proc.exited;
        killedAt = Date.now();
        proxy.swallowAnswers(false);
        const atKill = senders.acknowledged.length;
        hearth = await startProcess(env);
        await eventually(() => senders.acknowledged.length >= atKill + AFTER_RESTART, "sends answered after the restart", { timeoutMs: 15_000 });
        await senders.stop();
      } finally {
        await senders.stop();
        proxy.stop();
      }

      expect(senders.refused).toEqual([]);
      // Some sends were in flight at the kill and needed a retry after the restart.
      expect(senders.acknowledged.some((a) => a.tries > 1)).toBe(true);
      const stored = await channelMessages(server.url, owner.token, channelId);
      const storedIds = new Set(stored.map((m) => m.id));
      const lost = senders.acknowledged.filter((a) => !storedIds.has(a.id));
      expect(lost).toEqual([]);
      const byContent = new Map<string, number>();
      for (const m of stored) byContent.set(m.content, (byContent.get(m.content) ?? 0) + 1);
      const duplicates = [...byContent].filter(([, count]) => count > 1);
      expect(duplicates).toEqual([]);
      // Every stored message is one the senders had answered (each send was retried until it was).
      expect(stored.length).toBe(senders.acknowledged.length);
      // Sends stored before the kill whose answers were lost: their retries after the restart
      // were answered with the stored message (without the nonce each would be a duplicate).
      const replayed = senders.acknowledged.filter((a) => a.tries > 1 && idTime(a.id) < killedAt);
      expect(replayed.length).toBeGreaterThan(0);
    }, 60_000);
  });
}
