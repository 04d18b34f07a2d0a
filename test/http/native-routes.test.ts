import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Logger, LogFields } from "../../src/log.ts";
import { startServer, type TestServer, type TestUser } from "../helpers/server.ts";

// The hot GET routes served by Bun's router directly (src/http/native-routes.ts) answer exactly
// as Elysia does: the same requests against a server with them (the default) and one without
// give the same statuses, headers, bodies, request log lines and /metrics counts.

interface Side {
  server: TestServer;
  lines: LogFields[];
  owner: TestUser;
  outsider: TestUser;
  channelId: string;
}

function capturingLogger(lines: LogFields[]): Logger {
  const ignore = () => {};
  return { debug: ignore, info: (message, fields) => void (message === "request" && lines.push({ ...fields })), warn: ignore, error: ignore };
}

async function side(nativeRoutes: boolean): Promise<Side> {
  const lines: LogFields[] = [];
  const server = await startServer({}, { nativeRoutes, logger: capturingLogger(lines) });
  const owner = await server.register();
  const outsider = await server.register();
  const created = await server.api("POST", "/api/v1/servers", { token: owner.token, body: { name: "Native" } });
  const channelId = (await server.app.store.channels.listByServer(created.body.id))[0]!.id;
  for (let i = 0; i < 3; i++) await server.api("POST", `/api/v1/messages/${channelId}`, { token: owner.token, body: { content: `hello ${i}` } });
  return { server, lines, owner, outsider, channelId };
}

let native: Side;
let elysia: Side;
beforeAll(async () => {
  [native, elysia] = await Promise.all([side(true), side(false)]);
});
afterAll(async () => {
  await Promise.all([native.server.stop(), elysia.server.stop()]);
});

/** One answer, with what differs between two servers (ids, times, names) replaced. */
async function answer(s: Side, method: string, path: string, token: string | null) {
  const headers: Record<string, string> = token === null ? {} : { authorization: `Bearer ${token}` };
  const response = await fetch(s.server.url + path.replace("CHANNEL", s.channelId), { method, headers });
  const text = await response.text();
  // A rate-limit window's end is a time of its own server.
  const shown = [...response.headers]
    .filter(([name]) => name !== "date")
    .map(([name, value]) => [name, name.startsWith("x-ratelimit-reset") ? "TIME" : value])
    .sort(([a], [b]) => a!.localeCompare(b!));
  const body = text
    .replaceAll(s.owner.username, "OWNER")
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "ID")
    .replace(/"(created_at|updated_at)":\d+/g, '"$1":0');
  return { method, path, status: response.status, headers: shown, body };
}

const cases = (s: Side): [string, string, string | null][] => [
  ["GET", "/api/v1/users/me/info", s.owner.token],
  ["GET", "/api/v1/users/me/info?ignored=1", s.owner.token],
  ["GET", "/api/v1/users/me/info/", s.owner.token],
  ["HEAD", "/api/v1/users/me/info", s.owner.token],
  ["GET", "/api/v1/users/me/info", null],
  ["GET", "/api/v1/users/me/info", "not-a-token"],
  ["GET", "/api/v1/messages/CHANNEL", s.owner.token],
  ["GET", "/api/v1/messages/CHANNEL?limit=2", s.owner.token],
  ["HEAD", "/api/v1/messages/CHANNEL?limit=2", s.owner.token],
  ["GET", "/api/v1/messages/CHANNEL?limit=abc", s.owner.token],
  ["GET", "/api/v1/messages/CHANNEL?limit=0", s.owner.token],
  ["GET", "/api/v1/messages/CHANNEL?limit=101", s.owner.token],
  ["GET", "/api/v1/messages/CHANNEL?limit=2&limit=3", s.owner.token],
  ["GET", "/api/v1/messages/CHANNEL?before=nope", s.owner.token],
  ["GET", "/api/v1/messages/CHANNEL?limit=abc", null],
  ["GET", "/api/v1/messages/CHANNEL", s.outsider.token],
  ["GET", "/api/v1/messages/0198c0de-0000-7000-8000-000000000000", s.owner.token],
  ["GET", "/api/v1/messages/not-an-id", s.owner.token],
  // Another method of the same path stays Elysia's (a channel id is no message id).
  ["DELETE", "/api/v1/messages/CHANNEL", s.owner.token],
];

describe("native GET routes", () => {
  test("answer every case as Elysia does: status, headers, body", async () => {
    const got = { native: [] as unknown[], elysia: [] as unknown[] };
    for (const [method, path, token] of cases(native)) got.native.push(await answer(native, method, path, token));
    for (const [method, path, token] of cases(elysia)) got.elysia.push(await answer(elysia, method, path, token));
    expect(got.native).toEqual(got.elysia);
    // The cases say what they should (a test that holds both to the same wrong answer would not do).
    const statuses = got.native.map((x) => (x as { status: number }).status);
    expect(statuses).toEqual([200, 200, 200, 200, 401, 401, 200, 200, 200, 400, 400, 400, 400, 400, 401, 403, 404, 404, 404]);
    expect(JSON.parse((got.native[9] as { body: string }).body)).toEqual({ error: "limit: must be a whole number between 1 and 100" });
    expect(JSON.parse((got.native[6] as { body: string }).body)).toHaveLength(3);
    // Counted against the caller's reads bucket, errors after the count included (src/http/rest-rate-limits.ts).
    const headersOf = (i: number) => Object.fromEntries((got.native[i] as { headers: [string, string][] }).headers);
    expect(headersOf(0)).toMatchObject({ "x-ratelimit-bucket": "reads", "x-ratelimit-limit": "500", "x-ratelimit-reset": "TIME" });
    expect(headersOf(9)["x-ratelimit-bucket"]).toBe("reads");
    expect(headersOf(4)["x-ratelimit-bucket"]).toBeUndefined();
  });

  test("the same request log lines and /metrics counts", async () => {
    // Elysia writes its line after the answer is sent.
    await Bun.sleep(50);
    const lines = (s: Side) =>
      s.lines
        .filter((line) => line.route === "/api/v1/users/me/info" || line.route === "/api/v1/messages/:id")
        .map(({ ms, ...line }): LogFields => ({ ...line, ms: typeof ms }));
    expect(lines(native)).toEqual(lines(elysia));
    expect(lines(native)).toContainEqual({ method: "GET", route: "/api/v1/messages/:id", status: 400, ms: "number" });
    const counts = async (s: Side) =>
      (await (await fetch(`${s.server.url}/metrics`)).text())
        .split("\n")
        .filter((line) => line.startsWith("hearth_http_requests_total") && /route="\/api\/v1\/(users\/me\/info|messages\/:id)"/.test(line));
    expect(await counts(native)).toEqual(await counts(elysia));
    expect(await counts(native)).toContain('hearth_http_requests_total{method="GET",route="/api/v1/users/me/info",status="401"} 2');
  });

  test("a revoked token is refused at once (the account's token version is read on every request)", async () => {
    const user = await native.server.register();
    const changed = await native.server.api("PUT", "/api/v1/users/me/password", { token: user.token, body: { currentPassword: user.password, newPassword: "another-password-1" } });
    expect(changed.status).toBe(200);
    expect((await answer(native, "GET", "/api/v1/users/me/info", user.token)).status).toBe(401);
    expect((await answer(native, "GET", "/api/v1/users/me/info", changed.body.token)).status).toBe(200);
  });

  test("with CORS origins configured, Elysia serves them with the CORS headers", async () => {
    const server = await startServer({ corsOrigins: ["https://app.example"] });
    try {
      const user = await server.register();
      const response = await fetch(`${server.url}/api/v1/users/me/info`, { headers: { authorization: `Bearer ${user.token}`, origin: "https://app.example" } });
      expect(response.status).toBe(200);
      expect(response.headers.get("access-control-allow-origin")).toBe("https://app.example");
    } finally {
      await server.stop();
    }
  });

  test("while draining they are refused like every other route", async () => {
    const s = await side(true);
    s.server.app.readiness.startDraining();
    const refused = await answer(s, "GET", "/api/v1/users/me/info", s.owner.token);
    expect(refused.status).toBe(503);
    expect((await answer(s, "GET", "/api/v1/messages/CHANNEL", s.owner.token)).status).toBe(503);
    await s.server.stop();
  });
});
