import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DRAINING } from "../../src/ops/readiness.ts";
import { SHUTTING_DOWN } from "../../src/ops/drain.ts";
import { community } from "../helpers/community.ts";
import { parsePrometheus, valueOf } from "../helpers/prometheus.ts";
import { slowPost } from "../helpers/slow-request.ts";
import { expectError, startServer, type TestServer } from "../helpers/server.ts";
import { sleep } from "../helpers/wait.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

describe("/healthz and /readyz", () => {
  test("/healthz: 200 {status: ok}, no token", async () => {
    const res = await server.api("GET", "/healthz");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok" });
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  test("/readyz: 200 with each check once the database answers", async () => {
    const res = await server.api("GET", "/readyz");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ready", checks: { database: "ok", disk: "ok" } });
  });

  test("/readyz: 503 naming each registered check that fails or does not answer in time", async () => {
    const other = await startServer();
    try {
      other.app.readiness.add("refuses", () => Promise.reject(new Error("connection refused")));
      other.app.readiness.add("silent", () => new Promise(() => {}));
      const started = performance.now();
      const res = await other.api("GET", "/readyz");
      expectError(res, 503, "not ready: refuses: connection refused; silent: no answer within 2000 ms");
      // Bounded: the check that never answers does not hold the probe for longer than its timeout (generous bound).
      expect(performance.now() - started).toBeLessThan(10_000);
      // The liveness probe does not care.
      expect((await other.api("GET", "/healthz")).status).toBe(200);
    } finally {
      await other.stop();
    }
  });
});

describe("draining (app.stop(), as SIGTERM does)", () => {
  test("/readyz 503, new requests 503, a request in flight completes with its answer, then the node stops", async () => {
    const node = await startServer({ drainTimeoutMs: 20_000 });
    let stopped = false;
    try {
      const { owner, channelId } = await community(node);
      const inFlight = slowPost(node.url, `/api/v1/messages/${channelId}`, owner.token, { content: "sent while the node drains" });
      // Nothing tells when the server has read the head; a moment for it (its body never comes).
      await sleep(200);
      const stopping = node.app.stop().then(() => (stopped = true));

      expectError(await node.api("GET", "/readyz"), 503, DRAINING);
      const refused = await node.api("GET", "/api/v1");
      expectError(refused, 503, SHUTTING_DOWN);
      expect(refused.headers.get("retry-after")).toBe("1");
      expect((await node.api("GET", "/healthz")).status).toBe(200);
      const metrics = await node.api("GET", "/metrics");
      expect(valueOf(parsePrometheus(metrics.body), "hearth_draining")).toBe(1);
      // A new gateway session is refused too.
      await expect(node.connect(owner.token)).rejects.toThrow();
      expect(stopped).toBe(false);

      inFlight.finish();
      const answered = await inFlight.answer;
      expect(answered.status).toBe(201);
      expect(answered.body.content).toBe("sent while the node drains");
      await stopping;
    } finally {
      await node.stop(); // the same stop again (it runs once), then the test database goes
    }
  });
});
