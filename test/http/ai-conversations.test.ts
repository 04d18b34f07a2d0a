import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { API_KEY, enableAi, newConversation, sendTurn, startFakeProvider } from "../helpers/ai.ts";
import { createBot, type TestBot } from "../helpers/bots.ts";
import { PNG_1X1 } from "../helpers/images.ts";
import { expectError, startServer, type TestServer, type TestUser } from "../helpers/server.ts";

// The AI assistant's config, conversations, history and uploads (docs/ai.md).
let server: TestServer;
let provider: ReturnType<typeof startFakeProvider>;
let admin: TestUser;
let bot: TestBot;
const responses: string[] = [];
beforeAll(async () => {
  server = await startServer();
  provider = startFakeProvider();
  admin = await server.register();
  bot = await createBot(server, admin);
  await enableAi(server, admin, provider.baseUrl, ["fast", { id: "vision-1", name: "Vision One", flags: ["vision"] }]);
});
afterAll(async () => {
  for (const text of responses) expect(text).not.toContain(API_KEY);
  await server.stop();
  provider.stop();
});

const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";
const CONFIG_KEYS = ["enabled", "plus_only", "allowed", "has_plus", "default_model", "models", "welcome", "daily_msg_limit", "max_upload_mb"];
const CONVERSATION_KEYS = ["created_at", "id", "model_id", "title", "updated_at"];
const UPLOAD_KEYS = ["created_at", "id", "mime_type", "name", "size", "url"];

async function ai(method: string, path: string, who: { token: string } | null, body?: unknown, prefix = "/api/v1/ai") {
  const res = await server.api(method, `${prefix}${path}`, { token: who?.token ?? null, body });
  responses.push(JSON.stringify(res.body));
  return res;
}
async function upload(who: { token: string } | null, form: FormData, prefix = "/api/v1/ai") {
  const res = await server.api("POST", `${prefix}/uploads`, { token: who?.token ?? null, raw: form });
  responses.push(JSON.stringify(res.body));
  return res;
}
const fileForm = (bytes: Uint8Array | string, name: string, field = "file") => {
  const form = new FormData();
  form.append(field, new File([bytes], name));
  return form;
};
const setSettings = (body: Record<string, unknown>) => server.api("PATCH", "/api/v1/admin/ai/settings", { token: admin.token, body });

describe("user tokens only", () => {
  const routes: [string, string, unknown][] = [
    ["GET", "/config", undefined],
    ["GET", "/conversations", undefined],
    ["POST", "/conversations", {}],
    ["PATCH", `/conversations/${UNKNOWN}`, { title: "x" }],
    ["DELETE", `/conversations/${UNKNOWN}`, undefined],
    ["GET", `/conversations/${UNKNOWN}/messages`, undefined],
    ["POST", "/uploads", undefined],
    ["POST", "/chat", { conversation_id: UNKNOWN, content: "hi" }],
    ["POST", "/chat/cancel", { stream_id: UNKNOWN }],
  ];
  for (const prefix of ["/api/v1/ai", "/api/ai"]) {
    test.each(routes)(`${prefix}: %s %s is 401 without a token and 403 for a bot, before the body is read`, async (method, path, body) => {
      expectError(await ai(method, path, null, body, prefix), 401, "Unauthorized");
      expectError(await ai(method, path, { token: "garbage" }, body, prefix), 401, "Unauthorized");
      expectError(await ai(method, path, bot, body, prefix), 403, "The AI assistant needs a user token: bots cannot use it");
      if (method !== "GET" && method !== "DELETE") {
        expectError(await ai(method, path, bot, { conversation_id: 5, title: 7, stream_id: 1 }, prefix), 403);
      }
    });
  }

  test("a bot's upload is refused before its body is read", async () => {
    expectError(await upload(bot, fileForm(PNG_1X1, "a.png")), 403, "The AI assistant needs a user token: bots cannot use it");
    expectError(await upload(bot, fileForm(PNG_1X1, "a.png"), "/api/ai"), 403);
    expectError(await upload(null, fileForm(PNG_1X1, "a.png")), 401);
  });
});

describe("GET /ai/config", () => {
  test("exactly the spec's fields, in order, for a user; the same under /api/ai", async () => {
    const user = await server.register();
    const res = await ai("GET", "/config", user);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(CONFIG_KEYS);
    expect(res.body).toEqual({
      enabled: true,
      plus_only: false,
      allowed: true,
      has_plus: false,
      default_model: "fast",
      models: [
        { id: "fast", name: "fast", flags: [] },
        { id: "vision-1", name: "Vision One", flags: ["vision"] },
      ],
      welcome: "Hi! I'm the Hearth assistant. Ask me anything.",
      daily_msg_limit: 50,
      max_upload_mb: 10,
    });
    expect((await ai("GET", "/config", user, undefined, "/api/ai")).body).toEqual(res.body);
  });

  test("follows the settings: plus_only, has_plus, default_model, disabled, and keys", async () => {
    const user = await server.register();
    const plus = await server.register();
    await server.app.store.users.setPremium(plus.id, true);
    await setSettings({ plus_only: true, default_model: "vision-1", welcome: "Welcome!", daily_msg_limit: 0, max_upload_mb: 3 });
    try {
      expect((await ai("GET", "/config", user)).body).toMatchObject({ plus_only: true, allowed: false, has_plus: false, default_model: "vision-1", welcome: "Welcome!", daily_msg_limit: 0, max_upload_mb: 3 });
      expect((await ai("GET", "/config", plus)).body).toMatchObject({ plus_only: true, allowed: true, has_plus: true });
      // A default model no enabled key serves falls back to the first one.
      await setSettings({ default_model: "gone" });
      expect((await ai("GET", "/config", plus)).body.default_model).toBe("fast");
      await setSettings({ enabled: false });
      expect((await ai("GET", "/config", plus)).body).toMatchObject({ enabled: false, allowed: false });
    } finally {
      await setSettings({ enabled: true, plus_only: false, default_model: null, welcome: "Hi! I'm the Hearth assistant. Ask me anything.", daily_msg_limit: 50, max_upload_mb: 10 });
    }
  });

  test("with every key disabled there are no models and nobody is allowed", async () => {
    const fresh = await startServer();
    try {
      const first = await fresh.register();
      await fresh.api("PATCH", "/api/v1/admin/ai/settings", { token: first.token, body: { enabled: true } });
      const key = await fresh.api("POST", "/api/v1/admin/ai/keys", { token: first.token, body: { name: "k", base_url: provider.baseUrl, models: ["fast"], enabled: false } });
      const res = await fresh.api("GET", "/api/v1/ai/config", { token: first.token });
      expect(res.body).toMatchObject({ enabled: true, allowed: false, default_model: null, models: [] });
      await fresh.api("PATCH", `/api/v1/admin/ai/keys/${key.body.id}`, { token: first.token, body: { enabled: true } });
      expect((await fresh.api("GET", "/api/v1/ai/config", { token: first.token })).body).toMatchObject({ allowed: true, default_model: "fast" });
    } finally {
      await fresh.stop();
    }
  });
});

describe("conversations", () => {
  test("create: 201 with {id, title, model_id, created_at, updated_at}; list newest first; only the owner's", async () => {
    const user = await server.register();
    const other = await server.register();
    const a = await ai("POST", "/conversations", user, {});
    expect(a.status).toBe(201);
    expect(Object.keys(a.body).sort()).toEqual(CONVERSATION_KEYS);
    expect(a.body).toMatchObject({ title: null, model_id: null });
    const b = await ai("POST", "/conversations", user, { title: "  Trip plans ", model_id: "vision-1" });
    expect(b.body).toMatchObject({ title: "Trip plans", model_id: "vision-1" });
    await ai("POST", "/conversations", other, { title: "Not yours" });

    const list = await ai("GET", "/conversations", user);
    expect(list.status).toBe(200);
    expect(list.body.map((c: { id: string }) => c.id)).toEqual([b.body.id, a.body.id]);
    expect(list.body[0]).toEqual(b.body);
    // The same conversations under /api/ai.
    expect((await ai("GET", "/conversations", user, undefined, "/api/ai")).body).toEqual(list.body);
  });

  test("a turn moves its conversation to the top and names an untitled one after its first line", async () => {
    const user = await server.register();
    const first = await newConversation(server, user);
    const second = await newConversation(server, user, { title: "Kept" });
    await sendTurn(server, user, { conversation_id: first, content: "\n  What is the tallest mountain in the whole wide world, really?  \nMore text" });
    await sendTurn(server, user, { conversation_id: second, content: "hello" });
    await sendTurn(server, user, { conversation_id: first, content: "and the second?" });
    const list = (await ai("GET", "/conversations", user)).body;
    expect(list.map((c: { id: string }) => c.id)).toEqual([first, second]);
    expect(list[0].title).toBe("What is the tallest mountain in the whole wide world, reall…");
    expect([...list[0].title].length).toBe(60);
    expect(list[1].title).toBe("Kept");
  });

  test("rename and set the model; null clears them; an empty body changes nothing", async () => {
    const user = await server.register();
    const id = await newConversation(server, user, { title: "Old" });
    const renamed = await ai("PATCH", `/conversations/${id}`, user, { title: "New", model_id: "vision-1" });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id, title: "New", model_id: "vision-1" });
    expect((await ai("PATCH", `/conversations/${id}`, user, {})).body).toMatchObject({ title: "New", model_id: "vision-1" });
    expect((await ai("PATCH", `/conversations/${id}`, user, { title: "", model_id: null })).body).toMatchObject({ title: null, model_id: null });
    expect((await ai("PATCH", `/conversations/${id}`, user, { title: "Again" }, "/api/ai")).body.title).toBe("Again");
  });

  test("delete: {success: true}; the history goes with it; then 404", async () => {
    const user = await server.register();
    const id = await newConversation(server, user);
    await sendTurn(server, user, { conversation_id: id, content: "hi" });
    const res = await ai("DELETE", `/conversations/${id}`, user);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect(await server.app.store.aiConversations.page(id, null, 10)).toEqual([]);
    expectError(await ai("DELETE", `/conversations/${id}`, user), 404, "Conversation not found");
    expectError(await ai("GET", `/conversations/${id}/messages`, user), 404, "Conversation not found");
    expect((await ai("GET", "/conversations", user)).body).toEqual([]);
  });

  test("another user's conversation, an unknown id and a malformed id are 404 on every route", async () => {
    const owner = await server.register();
    const other = await server.register();
    const id = await newConversation(server, owner, { title: "Private" });
    for (const target of [id, UNKNOWN, "not-a-uuid"]) {
      expectError(await ai("PATCH", `/conversations/${target}`, other, { title: "Mine now" }), 404, "Conversation not found");
      expectError(await ai("DELETE", `/conversations/${target}`, other), 404, "Conversation not found");
      expectError(await ai("GET", `/conversations/${target}/messages`, other), 404, "Conversation not found");
      const turn = await sendTurn(server, other, { conversation_id: target, content: "hi" });
      expectError(turn, 404, "Conversation not found");
    }
    expect((await ai("GET", "/conversations", owner)).body[0]).toMatchObject({ id, title: "Private" });
  });

  test.each([
    ["POST", { title: 5 }, "title: must be a string"],
    ["POST", { title: "x".repeat(101) }, "title: must be at most 100 characters"],
    ["POST", { model_id: "unknown-model" }, "model_id: unknown or disabled model"],
    ["POST", { model_id: 3 }, "model_id: must be a string"],
    ["PATCH", { title: ["x"] }, "title: must be a string"],
    ["PATCH", { model_id: "unknown-model" }, "model_id: unknown or disabled model"],
    ["PATCH", { model_id: "" }, "model_id: must not be empty"],
  ])("%s with %j is 400", async (method, body, message) => {
    const user = await server.register();
    const path = method === "POST" ? "/conversations" : `/conversations/${await newConversation(server, user)}`;
    expectError(await ai(method, path, user, body), 400, message);
  });

  test("a body that is not a JSON object is 400", async () => {
    const user = await server.register();
    const res = await server.api("POST", "/api/v1/ai/conversations", { token: user.token, raw: "[1]", headers: { "content-type": "application/json" } });
    expectError(res, 400, "body: must be a JSON object");
  });

  test("creating is gated (off, premium only); listing, renaming and deleting stay open", async () => {
    const user = await server.register();
    const id = await newConversation(server, user);
    await setSettings({ enabled: false });
    try {
      expectError(await ai("POST", "/conversations", user, {}), 403, "The AI assistant is turned off on this platform");
      expect((await ai("GET", "/conversations", user)).status).toBe(200);
      expect((await ai("PATCH", `/conversations/${id}`, user, { title: "Still mine" })).status).toBe(200);
      expect((await ai("GET", `/conversations/${id}/messages`, user)).status).toBe(200);
      await setSettings({ enabled: true, plus_only: true });
      expectError(await ai("POST", "/conversations", user, {}), 403, "The AI assistant is available to premium (Plus) members only");
      await server.app.store.users.setPremium(user.id, true);
      expect((await ai("POST", "/conversations", user, {})).status).toBe(201);
      expect((await ai("DELETE", `/conversations/${id}`, user)).status).toBe(200);
    } finally {
      await setSettings({ enabled: true, plus_only: false });
    }
  });
});

describe("GET /ai/conversations/:id/messages", () => {
  test("oldest first, each turn and reply with its exact shape; paged by before and limit", async () => {
    const user = await server.register();
    const id = await newConversation(server, user);
    for (const content of ["one", "two", "three"]) await sendTurn(server, user, { conversation_id: id, content });
    const res = await ai("GET", `/conversations/${id}/messages`, user);
    expect(res.status).toBe(200);
    expect(res.body.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
      ["user", "one"], ["assistant", "Hello, world!"],
      ["user", "two"], ["assistant", "Hello, world!"],
      ["user", "three"], ["assistant", "Hello, world!"],
    ]);
    expect(res.body[1]).toEqual({
      id: res.body[1].id,
      conversation_id: id,
      role: "assistant",
      content: "Hello, world!",
      model_id: "fast",
      status: "complete",
      attachments: [],
      images: [],
      created_at: res.body[1].created_at,
    });
    const page = await ai("GET", `/conversations/${id}/messages?limit=2`, user);
    expect(page.body.map((m: { content: string }) => m.content)).toEqual(["three", "Hello, world!"]);
    const older = await ai("GET", `/conversations/${id}/messages?limit=3&before=${page.body[0].id}`, user);
    expect(older.body.map((m: { content: string }) => m.content)).toEqual(["Hello, world!", "two", "Hello, world!"]);
    expect((await ai("GET", `/conversations/${id}/messages`, user, undefined, "/api/ai")).body).toEqual(res.body);
  });

  test.each([
    ["limit=0", "limit: must be a whole number between 1 and 100"],
    ["limit=101", "limit: must be a whole number between 1 and 100"],
    ["limit=abc", "limit: must be a whole number between 1 and 100"],
    ["before=nope", "before: must be a message id"],
  ])("?%s is 400", async (query, message) => {
    const user = await server.register();
    const id = await newConversation(server, user);
    expectError(await ai("GET", `/conversations/${id}/messages?${query}`, user), 400, message);
  });
});

describe("POST /ai/uploads", () => {
  test("an image: 201 with {id, url, name, mime_type, size, created_at}, stored per user, served to its owner only", async () => {
    const user = await server.register();
    const other = await server.register();
    const res = await upload(user, fileForm(PNG_1X1, "cat.png"));
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(UPLOAD_KEYS);
    expect(res.body).toMatchObject({ name: "cat.png", mime_type: "image/png", size: PNG_1X1.byteLength });
    expect(res.body.url).toMatch(new RegExp(`^/uploads/ai/${user.id}/[0-9a-f-]{36}\\.png$`));
    expect(existsSync(join(server.dataDir, res.body.url.slice(1)))).toBe(true);

    const mine = await fetch(server.url + res.body.url, { headers: { authorization: `Bearer ${user.token}` } });
    expect(mine.status).toBe(200);
    expect(mine.headers.get("content-type")).toBe("image/png");
    expect(new Uint8Array(await mine.arrayBuffer())).toEqual(PNG_1X1);
    expectError(await server.api("GET", res.body.url, { token: other.token }), 404, "File not found");
    expectError(await server.api("GET", res.body.url, {}), 401);
    expectError(await server.api("GET", res.body.url, { token: bot.token }), 403);
    expectError(await server.api("GET", `/uploads/ai/${user.id}/../../hearth.db`, { token: user.token }), 404);
  });

  test("a UTF-8 text file is accepted (served as a download); under /api/ai too", async () => {
    const user = await server.register();
    const res = await upload(user, fileForm("name,age\nada,36\n", "people.csv"), "/api/ai");
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: "people.csv", mime_type: "text/plain", size: 16 });
    expect(res.body.url).toEndWith(".csv");
    const served = await fetch(server.url + res.body.url, { headers: { authorization: `Bearer ${user.token}` } });
    expect(served.headers.get("content-type")).toBe("application/octet-stream");
    expect(served.headers.get("content-disposition")).toBe("attachment");
  });

  test.each([
    ["binary", () => fileForm(new Uint8Array([0, 1, 2, 0xff, 0xfe]), "blob.bin"), 400, "file: must be an image (PNG, JPEG, WEBP or GIF) or a UTF-8 text file"],
    ["empty", () => fileForm("", "empty.txt"), 400, "file: the file is empty"],
    ["no file field", () => fileForm(PNG_1X1, "a.png", "other"), 400, "file: a file is required"],
    ["a text field", () => {
      const form = new FormData();
      form.append("file", "just text");
      return form;
    }, 400, "file: a file is required"],
  ])("%s is refused", async (_label, form, status, message) => {
    const user = await server.register();
    expectError(await upload(user, form()), status, message);
  });

  test("not multipart is 400", async () => {
    const user = await server.register();
    expectError(await ai("POST", "/uploads", user, { file: "x" }), 400, "Expected a multipart/form-data body");
  });

  test("the cap is the max_upload_mb setting: 413 past it", async () => {
    const user = await server.register();
    await setSettings({ max_upload_mb: 1 });
    try {
      const big = new Uint8Array(1024 * 1024 + 1);
      big.set(PNG_1X1);
      expectError(await upload(user, fileForm(big, "big.png")), 413, "Upload too large: the limit is 1 MB");
      const fits = new Uint8Array(1024 * 1024);
      fits.set(PNG_1X1);
      expect((await upload(user, fileForm(fits, "fits.png"))).status).toBe(201);
    } finally {
      await setSettings({ max_upload_mb: 10 });
    }
  });

  test("uploading is gated: off, then premium only", async () => {
    const user = await server.register();
    await setSettings({ enabled: false });
    try {
      expectError(await upload(user, fileForm(PNG_1X1, "a.png")), 403, "The AI assistant is turned off on this platform");
      await setSettings({ enabled: true, plus_only: true });
      expectError(await upload(user, fileForm(PNG_1X1, "a.png")), 403, "The AI assistant is available to premium (Plus) members only");
    } finally {
      await setSettings({ enabled: true, plus_only: false });
    }
  });
});
