/**
 * The single binary in cluster mode (docs/operations.md, "Running several nodes"): two copies,
 * each alone in its folder, on the throwaway PostgreSQL database and Redis that
 * scripts/test-binary.ts started. What only this mode loads (cluster/cluster.ts, imported
 * lazily; ioredis; Bun's PostgreSQL client; the PostgreSQL migrations) must be in the file.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { freePort } from "../../scripts/pg-cluster.ts";
import { migrations } from "../../src/store/postgres/migrations.ts";
import { startProcess, type HearthProcess } from "../helpers/process.ts";
import { waitForEvent } from "../helpers/server.ts";
import { api, binaryFolder, connect, logLines, type ClientSocket } from "./binary.ts";

const DATABASE_URL = process.env.HEARTH_BINARY_DATABASE_URL ?? "";
const REDIS_URL = process.env.HEARTH_BINARY_REDIS_URL ?? "";
if (!DATABASE_URL || !REDIS_URL) throw new Error("the binary suites run under npm run test:binary (scripts/test-binary.ts)");

const folders: string[] = [];
const nodes: HearthProcess[] = [];
const sockets: ClientSocket[] = [];

async function node(): Promise<HearthProcess> {
  const { folder, binary, dataDir } = binaryFolder();
  folders.push(folder);
  const started = await startProcess(
    {
      DATA_DIR: dataDir,
      PORT: String(freePort()),
      DATABASE_URL,
      REDIS_URL,
      JWT_SECRET: "binary-cluster-secret-binary-cluster-secret-01",
      SECRETS_KEY: "b".repeat(64),
    },
    { command: [binary], cwd: folder },
  );
  nodes.push(started);
  return started;
}

beforeAll(async () => {
  // One after the other: the first applies the migrations.
  await node();
  await node();
});

afterAll(async () => {
  for (const socket of sockets) socket.close();
  for (const started of nodes) if (started.proc.exitCode === null) started.proc.kill("SIGKILL");
  await Promise.all(nodes.map((started) => started.proc.exited));
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

test("two binaries on PostgreSQL and Redis: ready, migrated, a message sent on one reaches a socket on the other, both drain", async () => {
  const [a, b] = nodes as [HearthProcess, HearthProcess];
  for (const started of nodes) expect((await api(started.url, "GET", "/readyz")).status).toBe(200);
  const sql = new Bun.SQL(DATABASE_URL);
  try {
    expect((await sql`SELECT count(*)::int AS n FROM schema_migrations`)[0]).toEqual({ n: migrations.length });
  } finally {
    await sql.close();
  }

  const registered = await api(a.url, "POST", "/api/v1/auth/register", { body: { username: "cluster_owner", email: "cluster@example.test", password: "cluster-owner-password" } });
  expect(registered.status).toBe(201);
  const token: string = registered.body.token;
  const server = await api(a.url, "POST", "/api/v1/servers", { token, body: { name: "Binary cluster" } });
  expect(server.status).toBe(201);
  const channels = await api(b.url, "GET", `/api/v1/channels/${server.body.id}`, { token });
  const channelId: string = channels.body.channels.find((c: { type: string }) => c.type === "text").id;

  const onB = await connect(b.url, token, sockets);
  expect(await onB.emitWithAck("channel:join", channelId)).toEqual({ ok: true, channelId });
  const received = waitForEvent(onB, "message:new", { timeout: 10_000 });
  const sent = await api(a.url, "POST", `/api/v1/messages/${channelId}`, { token, body: { content: "across the binaries" } });
  expect(sent.status).toBe(201);
  expect(await received).toMatchObject({ id: sent.body.id, content: "across the binaries" });

  for (const started of nodes) {
    started.proc.kill("SIGTERM");
    expect(await started.proc.exited).toBe(0);
    const messages = logLines(started.output()).map((line) => line.msg);
    expect(messages).toContain("stop: left the cluster");
    expect(messages.at(-1)).toBe("stopped");
  }
});
