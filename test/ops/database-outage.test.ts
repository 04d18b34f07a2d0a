/**
 * PostgreSQL out of reach (docs/operations.md, "Failure modes"): while a throwaway cluster of
 * its own is stopped, REST answers `503 {"error": "Database unavailable"}` with Retry-After, a
 * gateway ack says the same, /readyz fails, the log says it once (not a stack per request) and
 * the counter and gauge show it; once the cluster is back everything answers by itself and the
 * log says so once. Skipped where Debian's postgresql is not installed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Logger } from "../../src/log.ts";
import { createDatabase, postgresBinDir, startCluster, type Cluster } from "../../scripts/pg-cluster.ts";
import { startServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { eventually } from "../helpers/wait.ts";
import { community } from "../helpers/community.ts";

const installed = postgresBinDir() !== null;

describe.skipIf(!installed)("PostgreSQL stopped and started again", () => {
  let cluster: Cluster;
  let server: TestServer;
  let user: TestUser;
  let channelId: string;
  const lines: { level: string; message: string }[] = [];
  const capture = (level: string) => (message: string, fields?: object) => {
    lines.push({ level, message });
    if (process.env.DEBUG_OUTAGE) console.log(level, message, fields);
  };
  const logger: Logger = { debug: capture("debug"), info: capture("info"), warn: capture("warn"), error: capture("error") };

  beforeAll(async () => {
    cluster = await startCluster();
    const url = await createDatabase(cluster.url, "outage");
    server = await startServer({ databaseUrl: url }, { logger });
    const place = await community(server);
    user = place.owner;
    channelId = place.channelId;
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await cluster?.stop();
  });

  test("503 with Retry-After, a refused ack, /readyz failing and one warning while it is down; all answers again once it is back", async () => {
    expect((await server.api("GET", "/api/v1/users/me/info", { token: user.token })).status).toBe(200);
    const socket = await server.connect(user.token);
    cluster.halt();

    for (let i = 0; i < 5; i++) {
      const res = await server.api("POST", `/api/v1/messages/${channelId}`, { token: user.token, body: { content: `during ${i}` } });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ error: "Database unavailable" });
      expect(res.headers.get("retry-after")).toBe("5");
    }
    expect((await server.api("GET", `/api/v1/messages/${channelId}`, { token: user.token })).status).toBe(503);
    expect(await socket.emitWithAck("channel:join", channelId)).toEqual({ ok: false, error: "Database unavailable" });
    expect((await server.api("GET", "/readyz")).status).toBe(503);
    const metrics = String((await server.api("GET", "/metrics")).body);
    expect(metrics).toMatch(/^hearth_db_available 0$/m);
    expect(Number(/^hearth_db_unavailable_errors_total (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(6);
    expect(lines.filter((l) => l.message.startsWith("database unavailable"))).toHaveLength(1);
    expect(lines.filter((l) => l.level === "error")).toEqual([]);

    cluster.resume();
    const sent = await eventually(
      async () => {
        const res = await server.api("POST", `/api/v1/messages/${channelId}`, { token: user.token, body: { content: "after" } });
        return res.status === 201 ? res : null;
      },
      "a send answered once the database is back",
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    expect(sent.body.content).toBe("after");
    await eventually(async () => (await server.api("GET", "/readyz")).status === 200, "ready again", { timeoutMs: 10_000, intervalMs: 200 });
    expect(String((await server.api("GET", "/metrics")).body)).toMatch(/^hearth_db_available 1$/m);
    expect(lines.filter((l) => l.message.startsWith("database reachable again"))).toHaveLength(1);
    expect(lines.filter((l) => l.message.startsWith("database unavailable"))).toHaveLength(1);
    // Nothing sent during the outage was stored: those sends were answered 503.
    const page = (await server.api("GET", `/api/v1/messages/${channelId}`, { token: user.token })).body as { content: string }[];
    expect(page.filter((m) => m.content.startsWith("during"))).toEqual([]);
    socket.close();
  }, 60_000);
});
