import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import type { Logger } from "../../src/log.ts";
import { API_KEY, sendTurn, startFakeProvider } from "../helpers/ai.ts";
import { createBot } from "../helpers/bots.ts";
import { expectError, startServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { freshDatabase } from "../helpers/database.ts";

// /api/v1/admin/ai (docs/ai.md#administration): AI settings and provider keys.
let server: TestServer;
let admin: TestUser;
const responses: string[] = [];
beforeAll(async () => {
  server = await startServer();
  admin = await server.register(); // the first human account is the administrator
});
afterAll(() => {
  // No answer of any route in this file ever held the key.
  for (const text of responses) expect(text).not.toContain(API_KEY);
  return server.stop();
});

const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";
const KEY_KEYS = ["base_url", "created_at", "enabled", "id", "key_hint", "models", "name", "updated_at"];
const SETTINGS = { enabled: false, plus_only: false, daily_msg_limit: 50, max_upload_mb: 10, welcome: "Hi! I'm the Hearth assistant. Ask me anything.", default_model: null };

async function call(method: string, path: string, token: string | null, body?: unknown) {
  const res = await server.api(method, `/api/v1/admin/ai${path}`, { token, body });
  responses.push(JSON.stringify(res.body));
  return res;
}
// Platform log entries as JSON; the tests match their fields.
const latestLog = async (limit = 1) => {
  const res = await server.api("GET", `/api/v1/admin/log?limit=${limit}`, { token: admin.token });
  responses.push(JSON.stringify(res.body));
  return res.body.entries as Record<string, any>[];
};
const newKey = async (body: Record<string, unknown> = {}) => {
  const res = await call("POST", "/keys", admin.token, { name: "OpenAI", base_url: "https://api.example.test/v1/", api_key: API_KEY, models: ["gpt-x"], ...body });
  if (res.status !== 201) throw new Error(`key: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};

describe("who may call /api/v1/admin/ai", () => {
  const routes: [string, string, unknown][] = [
    ["GET", "/settings", undefined],
    ["PATCH", "/settings", { enabled: true }],
    ["GET", "/keys", undefined],
    ["POST", "/keys", { name: "k", base_url: "http://localhost:1/v1", models: ["m"] }],
    ["GET", `/keys/${UNKNOWN}`, undefined],
    ["PATCH", `/keys/${UNKNOWN}`, { enabled: false }],
    ["DELETE", `/keys/${UNKNOWN}`, undefined],
  ];

  test.each(routes)("%s %s: 401 without a token, 403 for a user and a bot, even with a bad body", async (method, path, body) => {
    expectError(await call(method, path, null, body), 401, "Unauthorized");
    const user = await server.register();
    expectError(await call(method, path, user.token, body), 403, "Platform administrators only (MANAGE_SETTINGS)");
    if (method !== "GET" && method !== "DELETE") expectError(await call(method, path, user.token, { enabled: "nope" }), 403);
    const bot = await createBot(server, admin);
    expectError(await call(method, path, bot.token, body), 403, "Platform administrators only (MANAGE_SETTINGS)");
  });
});

describe("AI settings", () => {
  test("GET answers the defaults; PATCH changes some, answers all, and logs what changed", async () => {
    const fresh = await startServer();
    try {
      const first = await fresh.register();
      const res = await fresh.api("GET", "/api/v1/admin/ai/settings", { token: first.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(SETTINGS);
    } finally {
      await fresh.stop();
    }

    const patched = await call("PATCH", "/settings", admin.token, { enabled: true, daily_msg_limit: 5, welcome: "Hello there", default_model: "gpt-x" });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...SETTINGS, enabled: true, daily_msg_limit: 5, welcome: "Hello there", default_model: "gpt-x" });
    const [entry] = await latestLog();
    expect(entry).toMatchObject({
      actor: { id: admin.id, username: admin.username },
      action: "AI_SETTINGS_UPDATE",
      target_type: null,
      target_id: null,
      changes: {
        enabled: { old: false, new: true },
        daily_msg_limit: { old: 50, new: 5 },
        welcome: { old: SETTINGS.welcome, new: "Hello there" },
        default_model: { old: null, new: "gpt-x" },
      },
    });
    expect((await call("GET", "/settings", admin.token)).body).toEqual(patched.body);

    // The same values again change nothing and log nothing.
    const before = (await latestLog())[0]!.id;
    expect((await call("PATCH", "/settings", admin.token, { enabled: true })).status).toBe(200);
    expect((await call("PATCH", "/settings", admin.token, {})).status).toBe(200);
    expect((await latestLog())[0]!.id).toBe(before);

    // Back to the defaults for the other tests; clearing default_model with null.
    const reset = await call("PATCH", "/settings", admin.token, { ...SETTINGS });
    expect(reset.body).toEqual(SETTINGS);
    expect((await latestLog())[0]!.changes.default_model).toEqual({ old: "gpt-x", new: null });
  });

  test.each([
    [{ enabled: "yes" }, "enabled: must be a boolean"],
    [{ plus_only: 1 }, "plus_only: must be a boolean"],
    [{ daily_msg_limit: -1 }, "daily_msg_limit: must be between 0 and 1000000"],
    [{ daily_msg_limit: 1.5 }, "daily_msg_limit: must be an integer"],
    [{ max_upload_mb: 0 }, "max_upload_mb: must be between 1 and 100"],
    [{ max_upload_mb: 101 }, "max_upload_mb: must be between 1 and 100"],
    [{ welcome: "x".repeat(2001) }, "welcome: must be at most 2000 characters"],
    [{ default_model: "has space" }, "default_model: must not contain spaces"],
    [{ default_model: 5 }, "default_model: must be a string"],
  ])("PATCH with a bad value (case %#) is 400 naming the field, and changes nothing", async (body, message) => {
    expectError(await call("PATCH", "/settings", admin.token, body), 400, message);
    expect((await call("GET", "/settings", admin.token)).body).toEqual(SETTINGS);
  });

  test("malformed JSON is 400", async () => {
    const res = await server.api("PATCH", "/api/v1/admin/ai/settings", { token: admin.token, raw: "{nope", headers: { "content-type": "application/json" } });
    expectError(res, 400, "body: malformed JSON");
  });
});

describe("AI keys", () => {
  test("create: 201 with the key's view (never the key), models normalized, logged without the key", async () => {
    const res = await call("POST", "/keys", admin.token, {
      name: "  Hosted  ",
      base_url: "https://api.example.test/v1//",
      api_key: API_KEY,
      models: ["gpt-x", { id: "vision-1", name: "Vision One", flags: ["vision", "vision"] }],
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(KEY_KEYS);
    expect(res.body).toMatchObject({
      name: "Hosted",
      base_url: "https://api.example.test/v1",
      enabled: true,
      key_hint: `…${API_KEY.slice(-4)}`,
      models: [
        { id: "gpt-x", name: "gpt-x", flags: [] },
        { id: "vision-1", name: "Vision One", flags: ["vision"] },
      ],
    });
    expect(typeof res.body.id).toBe("string");
    expect(res.body.created_at).toBe(res.body.updated_at);
    const [entry] = await latestLog();
    expect(entry).toMatchObject({
      actor: { id: admin.id },
      action: "AI_KEY_CREATE",
      target_type: "ai_key",
      target_id: res.body.id,
      changes: { name: "Hosted", base_url: "https://api.example.test/v1", enabled: true, has_api_key: true },
    });
    expect(JSON.stringify(entry)).not.toContain(API_KEY.slice(4));

    const listed = await call("GET", "/keys", admin.token);
    expect(listed.status).toBe(200);
    expect(listed.body.find((k: { id: string }) => k.id === res.body.id)).toEqual(res.body);
    expect((await call("GET", `/keys/${res.body.id}`, admin.token)).body).toEqual(res.body);
  });

  test("a key for a local server may have no api_key (no hint) and start disabled; a short key shows no characters", async () => {
    const local = await call("POST", "/keys", admin.token, { name: "llama.cpp", base_url: "http://127.0.0.1:8080/v1", models: ["local"], enabled: false });
    expect(local.status).toBe(201);
    expect(local.body).toMatchObject({ key_hint: null, enabled: false });
    const short = await call("POST", "/keys", admin.token, { name: "short", base_url: "http://127.0.0.1:8080/v1", api_key: "abc123", models: ["m"] });
    expect(short.body.key_hint).toBe("…");
  });

  test("update: changed fields are answered and logged as {old, new}; a new key is logged as \"changed\" only", async () => {
    const key = await newKey();
    const res = await call("PATCH", `/keys/${key.id}`, admin.token, { name: "Renamed", enabled: false, api_key: `${API_KEY}-2`, models: ["a", "b"] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: key.id, name: "Renamed", enabled: false, key_hint: "…89-2", models: [{ id: "a" }, { id: "b" }] });
    const [entry] = await latestLog();
    expect(entry).toMatchObject({
      action: "AI_KEY_UPDATE",
      target_type: "ai_key",
      target_id: key.id,
      changes: {
        name: { old: "OpenAI", new: "Renamed" },
        enabled: { old: true, new: false },
        models: { old: [{ id: "gpt-x", name: "gpt-x", flags: [] }], new: [{ id: "a", name: "a", flags: [] }, { id: "b", name: "b", flags: [] }] },
        api_key: "changed",
      },
    });
    expect(entry!.changes.base_url).toBeUndefined();
    expect(JSON.stringify(entry)).not.toContain("MUST-NEVER-LEAK");

    // Nothing different: answered, not logged.
    const before = (await latestLog())[0]!.id;
    expect((await call("PATCH", `/keys/${key.id}`, admin.token, { name: "Renamed" })).status).toBe(200);
    expect((await latestLog())[0]!.id).toBe(before);
    // An empty api_key removes the key.
    expect((await call("PATCH", `/keys/${key.id}`, admin.token, { api_key: "" })).body.key_hint).toBeNull();
  });

  test("delete: {success: true}, logged, then 404", async () => {
    const key = await newKey({ name: "Doomed" });
    const res = await call("DELETE", `/keys/${key.id}`, admin.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect((await latestLog())[0]).toMatchObject({ action: "AI_KEY_DELETE", target_type: "ai_key", target_id: key.id, changes: { name: "Doomed" } });
    expectError(await call("DELETE", `/keys/${key.id}`, admin.token), 404, "AI key not found");
    expectError(await call("GET", `/keys/${key.id}`, admin.token), 404, "AI key not found");
  });

  test.each([
    ["GET", UNKNOWN],
    ["PATCH", UNKNOWN],
    ["DELETE", UNKNOWN],
    ["GET", "not-a-uuid"],
    ["PATCH", "not-a-uuid"],
    ["DELETE", "not-a-uuid"],
  ])("%s an unknown key %s is 404", async (method, id) => {
    expectError(await call(method, `/keys/${id}`, admin.token, method === "PATCH" ? { enabled: true } : undefined), 404, "AI key not found");
  });

  const valid = { name: "k", base_url: "https://api.example.test/v1", api_key: API_KEY, models: ["m"] };
  test.each([
    [{ ...valid, name: undefined }, "name: is required"],
    [{ ...valid, name: "   " }, "name: must be 1-100 characters"],
    [{ ...valid, base_url: undefined }, "base_url: is required"],
    [{ ...valid, base_url: "ftp://example.test" }, /^base_url: must be an http\(s\) URL without credentials/],
    [{ ...valid, base_url: "not a url" }, /^base_url: must be an http\(s\) URL/],
    [{ ...valid, base_url: "https://user:secret@example.test/v1" }, /^base_url: must be an http\(s\) URL without credentials/],
    [{ ...valid, api_key: 12 }, "api_key: must be a string"],
    [{ ...valid, models: undefined }, "models: is required"],
    [{ ...valid, models: [] }, "models: must list at least one model"],
    [{ ...valid, models: "m" }, "models: must be an array"],
    [{ ...valid, models: ["m", "m"] }, "models: must not list a model twice"],
    [{ ...valid, models: ["has space"] }, /^models\.0: must be a model id/],
    [{ ...valid, models: [{ id: "m", flags: ["BAD FLAG"] }] }, /^models\.0: must be a model id/],
    [{ ...valid, enabled: "yes" }, "enabled: must be a boolean"],
  ])("create with a bad field (case %#) is 400 naming the field; the key is not echoed", async (body, message) => {
    const res = await call("POST", "/keys", admin.token, body);
    expectError(res, 400, message);
  });

  test("update with a bad field is 400 and changes nothing", async () => {
    const key = await newKey();
    expectError(await call("PATCH", `/keys/${key.id}`, admin.token, { models: [] }), 400, "models: must list at least one model");
    expectError(await call("PATCH", `/keys/${key.id}`, admin.token, { base_url: "javascript:alert(1)" }), 400, /^base_url:/);
    expect((await call("GET", `/keys/${key.id}`, admin.token)).body).toEqual(key);
  });
});

describe("keys never reach the log", () => {
  test("key create, update and a failing provider turn log nothing that holds the key", async () => {
    const lines: string[] = [];
    const capture = (level: string) => (message: string, fields?: Record<string, unknown>) => lines.push(`${level} ${message} ${JSON.stringify(fields ?? {})}`);
    const logger: Logger = { debug: capture("debug"), info: capture("info"), warn: capture("warn"), error: capture("error") };
    const dataDir = mkdtempSync(join(tmpdir(), "hearth-ai-log-"));
    const provider = startFakeProvider();
    const database = await freshDatabase();
    const config = {
      ...loadConfig({}),
      port: 0,
      host: "127.0.0.1",
      dataDir,
      databaseFile: ":memory:",
      databaseUrl: database.env.DATABASE_URL,
      jwtSecret: "test-secret-test-secret-test-secret-0123456789",
      logLevel: "debug" as const,
      passwordHashing: { memoryCost: 1024, timeCost: 1 },
      aiProviderTimeoutMs: 300,
    };
    const app = await createApp(config, { logger });
    try {
      const call = async (method: string, path: string, token: string | null, body?: unknown) => {
        const res = await fetch(app.url + path, {
          method,
          headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await res.text();
        expect(text).not.toContain(API_KEY);
        return { status: res.status, body: text ? JSON.parse(text) : null };
      };
      const reg = await call("POST", "/api/v1/auth/register", null, { username: "logadmin", email: "log@example.test", password: "password-123" });
      const token = reg.body.token as string;
      await call("PATCH", "/api/v1/admin/ai/settings", token, { enabled: true });
      const key = await call("POST", "/api/v1/admin/ai/keys", token, { name: "k", base_url: provider.baseUrl, api_key: API_KEY, models: ["error500", "hang"] });
      await call("PATCH", `/api/v1/admin/ai/keys/${key.body.id}`, token, { api_key: API_KEY });
      await call("POST", "/api/v1/admin/ai/keys", token, { name: "bad", base_url: "nope", api_key: API_KEY, models: ["x"] });
      const conversation = await call("POST", "/api/v1/ai/conversations", token, {});
      for (const model of ["error500", "hang"]) {
        const turn = await fetch(`${app.url}/api/v1/ai/chat`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
          body: JSON.stringify({ conversation_id: conversation.body.id, content: "hi", model_id: model }),
        });
        const text = await turn.text();
        expect(text).toContain("event: error");
        expect(text).not.toContain(API_KEY);
      }
      // The provider did receive the key, so the check above is meaningful.
      expect(provider.requests[0]!.authorization).toBe(`Bearer ${API_KEY}`);
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) expect(line).not.toContain(API_KEY);
      // The operator learns which key and model failed, and how.
      expect(lines).toContain(`warn AI provider failed ${JSON.stringify({ kind: "http", status: 500, key_id: key.body.id, model: "error500" })}`);
      expect(lines).toContain(`warn AI provider failed ${JSON.stringify({ kind: "timeout", status: null, key_id: key.body.id, model: "hang" })}`);
    } finally {
      await app.stop();
      await database.drop();
      provider.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test("a turn's answer never carries the key or the provider's payload", async () => {
    // Covered per failure in ai-chat.test.ts; here the admin views of a key used by a turn.
    const provider = startFakeProvider();
    try {
      const key = await newKey({ base_url: provider.baseUrl, models: ["fast"] });
      await call("PATCH", "/settings", admin.token, { enabled: true });
      const conversation = await server.api("POST", "/api/v1/ai/conversations", { token: admin.token, body: {} });
      const turn = await sendTurn(server, admin, { conversation_id: conversation.body.id, content: "hi", model_id: "fast" });
      expect(turn.status).toBe(200);
      expect(turn.text).not.toContain(API_KEY);
      expect((await call("GET", `/keys/${key.id}`, admin.token)).body.key_hint).toBe(`…${API_KEY.slice(-4)}`);
    } finally {
      await call("PATCH", "/settings", admin.token, { enabled: false });
      provider.stop();
    }
  });
});
