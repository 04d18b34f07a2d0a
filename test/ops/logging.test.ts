/**
 * The log as a host reads it (docs/operations.md, "Logging"): with LOG_FORMAT=json nothing but
 * JSON objects on stdout, one a line; text on request; probes and scrapes (/healthz, /readyz,
 * /metrics) not logged at info, other requests logged; and /metrics gives no heap figure it
 * cannot know (prom-client's process_heap_bytes reads VmData, gigabytes of reserved address
 * space under Bun).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startProcess, type HearthProcess } from "../helpers/process.ts";
import { eventually } from "../helpers/wait.ts";

describe("the server process's log", () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), "hearth-logging-"));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  async function run(env: Record<string, string>, work: (server: HearthProcess) => Promise<void>) {
    const server = await startProcess({ DATA_DIR: dataDir, DATABASE_URL: "", ...env });
    try {
      await work(server);
    } finally {
      server.proc.kill("SIGTERM");
      await server.proc.exited;
    }
  }

  test("LOG_FORMAT=json: stdout is JSON lines only; probes and scrapes are not logged at info, other requests are", async () => {
    await run({ LOG_FORMAT: "json" }, async (server) => {
      for (const path of ["/healthz", "/readyz", "/metrics", "/healthz"]) expect((await fetch(server.url + path)).status).toBe(200);
      expect((await fetch(`${server.url}/api/v1`)).status).toBe(200);
      await eventually(() => server.output().includes('"route":"/api/v1/"'), () => `the /api/v1 request logged: ${server.output()}`, { timeoutMs: 3000 });
      const lines = server.output().trimEnd().split("\n");
      const entries = lines.map((line) => JSON.parse(line) as { level: string; msg: string; route?: string });
      expect(entries.filter((entry) => entry.msg === "request").map((entry) => entry.route)).toEqual(["/api/v1/"]);
    });
  });

  test("a request's line names its client: the peer, or with TRUST_PROXY the client the proxy names", async () => {
    await run({ LOG_FORMAT: "json", TRUST_PROXY: "loopback" }, async (server) => {
      expect((await fetch(`${server.url}/api/v1/stats`)).status).toBe(200);
      expect((await fetch(`${server.url}/api/v1/platform/config`, { headers: { "x-forwarded-for": "203.0.113.7" } })).status).toBe(200);
      await eventually(() => server.output().includes('"route":"/api/v1/platform/config"'), () => `both requests logged: ${server.output()}`, { timeoutMs: 3000 });
      const entries = server.output().trimEnd().split("\n").map((line) => JSON.parse(line) as { msg: string; route?: string; client?: string });
      const clientOf = (route: string) => entries.find((entry) => entry.msg === "request" && entry.route === route)?.client;
      expect(clientOf("/api/v1/stats")).toBe("127.0.0.1");
      expect(clientOf("/api/v1/platform/config")).toBe("203.0.113.7");
    });
  });

  test("LOG_FORMAT=json with LOG_LEVEL=debug: the probes are there, at debug", async () => {
    await run({ LOG_FORMAT: "json", LOG_LEVEL: "debug" }, async (server) => {
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
      await eventually(() => server.output().includes('"route":"/readyz"'), "the probe logged at debug");
      const probe = server.output().split("\n").find((line) => line.includes('"route":"/readyz"'))!;
      expect(JSON.parse(probe)).toMatchObject({ level: "debug", msg: "request", method: "GET", status: 200 });
    });
  });

  test("LOG_FORMAT=text: readable lines", async () => {
    await run({ LOG_FORMAT: "text" }, async (server) => {
      const first = server.output().split("\n")[0]!;
      expect(first).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z INFO  Hearth listening on http:\/\/127\.0\.0\.1:\d+ /);
    });
  });

  test("/metrics has the heap JSC reports and no process_heap_bytes", async () => {
    await run({}, async (server) => {
      const text = await (await fetch(`${server.url}/metrics`)).text();
      expect(text).not.toContain("process_heap_bytes");
      const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1]);
      const heap = value("nodejs_heap_size_used_bytes");
      const resident = value("process_resident_memory_bytes");
      expect(heap).toBeGreaterThan(1_000_000);
      // The heap lives in resident memory: it cannot be larger (VmData was 50x it).
      expect(heap).toBeLessThan(resident);
    });
  });
});
