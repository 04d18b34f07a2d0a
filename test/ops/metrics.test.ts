import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { countClusterError } from "../../src/ops/metrics.ts";
import { isLoopback, metricsAccess, METRICS_LOOPBACK_ONLY, METRICS_TOKEN_NEEDED } from "../../src/ops/metrics-access.ts";
import { community } from "../helpers/community.ts";
import { apiFrom } from "../helpers/from-address.ts";
import { parsePrometheus, valueOf, type Sample } from "../helpers/prometheus.ts";
import { expectError, startServer, waitForEvent, type TestServer } from "../helpers/server.ts";
import { eventually } from "../helpers/wait.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

async function scrape(target: TestServer = server): Promise<Sample[]> {
  const res = await target.api("GET", "/metrics");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  return parsePrometheus(res.body as string);
}

/** Sends `request` as raw bytes and answers the status line. */
async function rawStatus(request: string): Promise<string> {
  const { port } = new URL(server.url);
  let received = "";
  const done = Promise.withResolvers<string>();
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port: Number(port),
    socket: {
      data(_s, chunk) {
        received += chunk.toString();
      },
      close() {
        done.resolve(received.split("\r\n")[0]!);
      },
    },
  });
  socket.write(request);
  return done.promise;
}

/** Polls until `check` holds on a fresh scrape (figures read at scrape time may trail an event by a tick). */
async function until(check: (samples: Sample[]) => boolean): Promise<Sample[]> {
  return eventually(async () => {
    const samples = await scrape();
    return check(samples) ? samples : null;
  }, "the figure to move", { intervalMs: 20 });
}

describe("/metrics", () => {
  test("is the Prometheus text format, every line of it, with the process figures and Hearth's own", async () => {
    const res = await server.api("GET", "/metrics");
    expect(res.status).toBe(200);
    const samples = parsePrometheus(res.body as string);
    const names = new Set(samples.map((s) => s.name));
    for (const name of [
      "process_cpu_seconds_total",
      "process_resident_memory_bytes",
      "nodejs_eventloop_lag_seconds",
      "hearth_gateway_connections",
      "hearth_gateway_broadcasts_total",
      "hearth_audio_frames_relayed_total",
      "hearth_audio_frames_dropped_total",
      "hearth_write_batch_pending",
      "hearth_db_info",
      "hearth_db_pool_max_connections",
      "hearth_cluster_errors_total",
      "hearth_draining",
    ]) {
      expect(names.has(name)).toBe(true);
    }
    expect(valueOf(samples, "hearth_draining")).toBe(0);
    expect(valueOf(samples, "hearth_db_info", { backend: server.config.databaseUrl ? "postgres" : "sqlite" })).toBe(1);
    expect(valueOf(samples, "hearth_db_pool_max_connections")).toBe(server.config.databaseUrl ? 11 : 1);
  });

  test("PostgreSQL: the pool's connections in use and the operations waiting for one, counted live; none of it on SQLite", async () => {
    const names = new Set((await scrape()).map((sample) => sample.name));
    if (!server.config.databaseUrl) {
      expect(names.has("hearth_db_pool_in_use_connections")).toBe(false);
      expect(names.has("hearth_db_pool_waiting_operations")).toBe(false);
      return;
    }
    const { db } = server.app.store;
    const sleep = db.prepare<unknown, []>("SELECT pg_sleep(0.6)");
    // Three more than the pool holds (max 10): ten run, three wait.
    const running = Array.from({ length: 13 }, () => db.get(sleep));
    const busy = await until((samples) => valueOf(samples, "hearth_db_pool_in_use_connections", { connection: "pool" }) === 10);
    expect(valueOf(busy, "hearth_db_pool_waiting_operations")).toBe(3);
    await Promise.all(running);
    const idle = await until((samples) => valueOf(samples, "hearth_db_pool_in_use_connections", { connection: "pool" }) === 0);
    expect(valueOf(idle, "hearth_db_pool_waiting_operations")).toBe(0);
    expect(valueOf(idle, "hearth_db_pool_in_use_connections", { connection: "writer" })).toBe(0);
  });

  test("rejects what is not the exposition format (the checker itself)", () => {
    expect(() => parsePrometheus("# TYPE a counter\na 1\n")).not.toThrow();
    expect(() => parsePrometheus("a 1\n")).toThrow("no TYPE line");
    expect(() => parsePrometheus('# TYPE a counter\na{x="1} 1\n')).toThrow("not a valid sample");
    expect(() => parsePrometheus("# TYPE a counter\na one\n")).toThrow("not a valid sample");
    expect(() => parsePrometheus("# TYPE a gauge\na{1x=\"y\"} 1\n")).toThrow("not a valid sample");
  });

  test("counts requests by route pattern and status, with their latency; every unknown path shares one label", async () => {
    const { owner, serverId } = await community(server);
    const route = { method: "GET", route: "/api/v1/servers/:id" };
    const before = await scrape();
    expect((await server.api("GET", `/api/v1/servers/${serverId}`, { token: owner.token })).status).toBe(200);
    expect((await server.api("GET", `/api/v1/servers/${serverId}`, { token: owner.token })).status).toBe(200);
    expect((await server.api("GET", `/api/v1/servers/${serverId}`)).status).toBe(401);
    for (const path of ["/nowhere-one", "/nowhere-two/deeper"]) expect((await server.api("POST", path)).status).toBe(404);
    for (const path of ["/api/v1/no-such-thing-1", "/api/v1/no-such-thing-2"]) expect((await server.api("GET", path)).status).toBe(404);
    const after = await scrape();

    const moved = (name: string, labels: Record<string, string>) => valueOf(after, name, labels) - valueOf(before, name, labels);
    expect(moved("hearth_http_requests_total", { ...route, status: "200" })).toBe(2);
    expect(moved("hearth_http_requests_total", { ...route, status: "401" })).toBe(1);
    expect(moved("hearth_http_request_duration_seconds_count", route)).toBe(3);
    expect(moved("hearth_http_request_duration_seconds_bucket", { ...route, le: "+Inf" })).toBe(3);
    expect(moved("hearth_http_request_duration_seconds_sum", route)).toBeGreaterThan(0);
    // Unknown paths: POSTs match no route at all; GETs fall to the web app's catch-all pattern.
    expect(moved("hearth_http_requests_total", { method: "POST", route: "(unmatched)", status: "404" })).toBe(2);
    expect(moved("hearth_http_requests_total", { method: "GET", route: "/*", status: "404" })).toBe(2);
    const text = (await server.api("GET", "/metrics")).body as string;
    for (const raw of [serverId, "nowhere", "no-such-thing"]) expect(text).not.toContain(raw);
    // Every latency series is a proper histogram: cumulative buckets in order, +Inf equal to _count.
    const buckets = after.filter((s) => s.name === "hearth_http_request_duration_seconds_bucket");
    const series = new Set(buckets.map((s) => `${s.labels.method} ${s.labels.route}`));
    expect(series.size).toBeGreaterThan(3);
    for (const key of series) {
      const [method, route] = key.split(" ") as [string, string];
      const own = buckets.filter((s) => s.labels.method === method && s.labels.route === route);
      const bounds = own.map((s) => (s.labels.le === "+Inf" ? Infinity : Number(s.labels.le)));
      expect(bounds).toEqual([...bounds].sort((x, y) => x - y));
      expect(bounds.at(-1)).toBe(Infinity);
      const counts = own.map((s) => s.value);
      expect(counts).toEqual([...counts].sort((x, y) => x - y));
      expect(counts.at(-1)).toBe(valueOf(after, "hearth_http_request_duration_seconds_count", { method, route }));
    }
  });

  test("methods beyond the usual seven share the label OTHER (Bun drops made-up ones before any route)", async () => {
    const before = await scrape();
    // Sent as written on the wire (fetch does not keep every method).
    for (const method of ["PROPFIND", "MKCOL"]) expect(await rawStatus(`${method} /nowhere HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)).toBe("HTTP/1.1 404 Not Found");
    expect(await rawStatus("BREW /nowhere HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")).not.toMatch(/^HTTP\/1\.1 [23]/);
    const after = await scrape();
    const methods = new Set(after.filter((s) => s.name === "hearth_http_requests_total").map((s) => s.labels.method));
    for (const method of ["PROPFIND", "MKCOL", "BREW"]) expect(methods.has(method)).toBe(false);
    const others = (s: Sample[]) => s.filter((x) => x.name === "hearth_http_requests_total" && x.labels.method === "OTHER").reduce((n, x) => n + x.value, 0);
    expect(others(after) - others(before)).toBe(2);
  });

  test("gateway connections by transport, and a message:new delivered natively", async () => {
    const { owner, member, channelId } = await community(server);
    const before = await scrape();
    const overWebsocket = await server.connect(member.token);
    const overPolling = await server.connect(owner.token, { transports: ["polling"] });
    for (const socket of [overWebsocket, overPolling]) expect((await socket.emitWithAck("channel:join", channelId)).ok).toBe(true);
    const during = await scrape();
    const connections = (s: Sample[], transport: string) => valueOf(s, "hearth_gateway_connections", { transport });
    expect(connections(during, "websocket") - connections(before, "websocket")).toBe(1);
    expect(connections(during, "polling") - connections(before, "polling")).toBe(1);
    expect(valueOf(during, "hearth_gateway_connections_opened_total") - valueOf(before, "hearth_gateway_connections_opened_total")).toBe(2);

    const atWebsocket = waitForEvent(overWebsocket, "message:new");
    const atPolling = waitForEvent(overPolling, "message:new");
    const sent = await server.api("POST", `/api/v1/messages/${channelId}`, { token: owner.token, body: { content: "counted" } });
    expect(sent.status).toBe(201);
    expect((await atWebsocket).id).toBe(sent.body.id);
    expect((await atPolling).id).toBe(sent.body.id);
    const after = await scrape();
    const broadcasts = (s: Sample[], path: string) => valueOf(s, "hearth_gateway_broadcasts_total", { path });
    expect(broadcasts(after, "native_publish") - broadcasts(during, "native_publish")).toBeGreaterThanOrEqual(1);
    expect(broadcasts(after, "socketio_polling") - broadcasts(during, "socketio_polling")).toBeGreaterThanOrEqual(1);
    // The send went through the group commit: one more batch, of at least one write.
    expect(valueOf(after, "hearth_write_batch_size_count") - valueOf(during, "hearth_write_batch_size_count")).toBeGreaterThanOrEqual(1);
    expect(valueOf(after, "hearth_write_batch_size_sum") - valueOf(during, "hearth_write_batch_size_sum")).toBeGreaterThanOrEqual(1);
    expect(valueOf(after, "hearth_write_batch_commit_seconds_count") - valueOf(during, "hearth_write_batch_commit_seconds_count")).toBeGreaterThanOrEqual(1);

    overWebsocket.close();
    overPolling.close();
    const closed = await until((s) => connections(s, "websocket") === connections(before, "websocket") && connections(s, "polling") === connections(before, "polling"));
    expect(connections(closed, "websocket")).toBe(connections(before, "websocket"));
  });

  test("an audio frame relayed natively and to a long-polling member", async () => {
    const { owner, member, bot, voiceId } = await community(server, { voice: true, bot: true });
    const sender = await server.connect(bot.token);
    const overWebsocket = await server.connect(owner.token);
    const overPolling = await server.connect(member.token, { transports: ["polling"] });
    for (const socket of [sender, overWebsocket, overPolling]) expect((await socket.emitWithAck("voice:join", { channelId: voiceId })).ok).toBe(true);
    const before = await scrape();
    const heard = [waitForEvent(overWebsocket, "bot:audio-data"), waitForEvent(overPolling, "bot:audio-data")];
    expect(await sender.emitWithAck("bot:audio-data", { channelId: voiceId, pcm: new Uint8Array(3840) })).toEqual({ ok: true });
    await Promise.all(heard);
    const after = await scrape();
    const relayed = (s: Sample[], path: string) => valueOf(s, "hearth_audio_frames_relayed_total", { relay: "room", path });
    expect(relayed(after, "native") - relayed(before, "native")).toBe(1);
    expect(relayed(after, "polling") - relayed(before, "polling")).toBe(1);
    for (const socket of [sender, overWebsocket, overPolling]) socket.close();
  });

  test("Redis and adapter errors: countClusterError moves hearth_cluster_errors_total", async () => {
    const before = await scrape();
    countClusterError("redis");
    countClusterError("adapter");
    countClusterError("adapter");
    const after = await scrape();
    expect(valueOf(after, "hearth_cluster_errors_total", { source: "redis" }) - valueOf(before, "hearth_cluster_errors_total", { source: "redis" })).toBe(1);
    expect(valueOf(after, "hearth_cluster_errors_total", { source: "adapter" }) - valueOf(before, "hearth_cluster_errors_total", { source: "adapter" })).toBe(2);
  });
});

describe("who may read /metrics", () => {
  test("any loopback address may, with no token (127.0.0.2 is loopback too)", async () => {
    const res = await apiFrom(server.url, "127.0.0.2", "GET", "/metrics");
    expect(res.status).toBe(200);
    expect(parsePrometheus(res.body).length).toBeGreaterThan(0);
  });

  test("a request that came through a proxy is not loopback: 403 without METRICS_TOKEN", async () => {
    for (const header of ["x-forwarded-for", "forwarded", "x-real-ip"]) {
      const value = header === "forwarded" ? "for=203.0.113.9" : "203.0.113.9";
      expectError(await server.api("GET", "/metrics", { headers: { [header]: value } }), 403, METRICS_LOOPBACK_ONLY);
    }
  });

  test("with METRICS_TOKEN: the right bearer token from anywhere; none or a wrong one from elsewhere is 401", async () => {
    const token = "metrics-token-0123456789";
    const guarded = await startServer({ metricsToken: token });
    try {
      const proxied = { "x-forwarded-for": "203.0.113.9" };
      const missing = await guarded.api("GET", "/metrics", { headers: proxied });
      expectError(missing, 401, METRICS_TOKEN_NEEDED);
      expect(missing.headers.get("www-authenticate")).toBe("Bearer");
      expectError(await guarded.api("GET", "/metrics", { headers: { ...proxied, authorization: `Bearer ${token}x` } }), 401, METRICS_TOKEN_NEEDED);
      expectError(await guarded.api("GET", "/metrics", { headers: { ...proxied, authorization: token } }), 401, METRICS_TOKEN_NEEDED);
      const right = await guarded.api("GET", "/metrics", { headers: { ...proxied, authorization: `Bearer ${token}` } });
      expect(right.status).toBe(200);
      expect(parsePrometheus(right.body).length).toBeGreaterThan(0);
      // Loopback callers still need no token.
      expect((await guarded.api("GET", "/metrics")).status).toBe(200);
    } finally {
      await guarded.stop();
    }
  });

  // A real non-loopback peer needs a second interface, and test servers listen on 127.0.0.1
  // only: the decision for such an address is checked here, on the function the route calls.
  test("non-loopback peer addresses: 403 without a token configured, 401 without the right one", () => {
    const none = new Headers();
    for (const address of ["10.1.2.3", "192.168.0.7", "::ffff:192.168.0.7", "2001:db8::1", "128.0.0.1", "unknown"]) {
      expect(isLoopback(address)).toBe(false);
      expect(metricsAccess(address, none, undefined)).toEqual({ ok: false, status: 403, error: METRICS_LOOPBACK_ONLY });
      expect(metricsAccess(address, none, "secret-secret-secret")).toEqual({ ok: false, status: 401, error: METRICS_TOKEN_NEEDED });
      expect(metricsAccess(address, new Headers({ authorization: "Bearer secret-secret-secret" }), "secret-secret-secret")).toEqual({ ok: true });
    }
    for (const address of ["127.0.0.1", "127.9.8.7", "::1", "::ffff:127.0.0.1"]) {
      expect(isLoopback(address)).toBe(true);
      expect(metricsAccess(address, none, undefined)).toEqual({ ok: true });
    }
  });
});
