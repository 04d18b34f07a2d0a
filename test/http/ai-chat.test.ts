import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { API_KEY, PROVIDER_SECRET_PAYLOAD, enableAi, newConversation, openTurn, sendTurn, startFakeProvider } from "../helpers/ai.ts";
import { PNG_1X1 } from "../helpers/images.ts";
import { expectError, startServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { eventually } from "../helpers/wait.ts";

// Sending a turn as server-sent events, its gates, provider failures and cancelling (docs/ai.md).
const TIMEOUT_MS = 300;
let server: TestServer;
let provider: ReturnType<typeof startFakeProvider>;
let admin: TestUser;
const answers: string[] = [];
const MODELS = ["fast", "slow", "stall", "hang", "error500", "busy429", "malformed", "midstream-error", "truncated", "image", "json", "crlf", "echo"];

beforeAll(async () => {
  server = await startServer({ aiProviderTimeoutMs: TIMEOUT_MS });
  provider = startFakeProvider();
  admin = await server.register();
  await enableAi(server, admin, provider.baseUrl, MODELS);
  // A second key whose server refuses connections.
  const closed = Bun.serve({ port: 0, fetch: () => new Response() });
  const closedPort = closed.port;
  await closed.stop(true);
  await server.api("POST", "/api/v1/admin/ai/keys", {
    token: admin.token,
    body: { name: "Gone", base_url: `http://127.0.0.1:${closedPort}/v1`, api_key: API_KEY, models: ["refused"] },
  });
});
afterAll(async () => {
  // No answer in this file, stream or JSON, carried the key or the provider's own words.
  for (const text of answers) {
    expect(text).not.toContain(API_KEY);
    expect(text).not.toContain(PROVIDER_SECRET_PAYLOAD);
  }
  await server.stop();
  provider.stop();
});

async function turn(user: TestUser | null, body: unknown, prefix?: string) {
  const res = await sendTurn(server, user, body, prefix);
  answers.push(res.text);
  return res;
}
const history = async (user: TestUser, id: string) => {
  const res = await server.api("GET", `/api/v1/ai/conversations/${id}/messages?limit=100`, { token: user.token });
  answers.push(JSON.stringify(res.body));
  // Messages as JSON; the tests match their fields.
  return res.body as any[];
};
const setSettings = (body: Record<string, unknown>) => server.api("PATCH", "/api/v1/admin/ai/settings", { token: admin.token, body });
const cancel = async (user: TestUser | null, body: unknown) => {
  const res = await server.api("POST", "/api/v1/ai/chat/cancel", { token: user?.token ?? null, body });
  answers.push(JSON.stringify(res.body));
  return res;
};
const usage = (user: TestUser) => server.app.store.aiConversations.usage(user.id, new Date().toISOString().slice(0, 10));
const lastRequest = () => provider.requests.at(-1)!;
const upload = async (user: TestUser, bytes: Uint8Array | string, name: string) => {
  const form = new FormData();
  form.append("file", new File([bytes], name));
  const res = await server.api("POST", "/api/v1/ai/uploads", { token: user.token, raw: form });
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { url: string; name: string };
};

describe("POST /ai/chat", () => {
  test("streams start, deltas and done as text/event-stream; both messages are stored", async () => {
    const user = await server.register();
    const id = await newConversation(server, user);
    const res = await turn(user, { conversation_id: id, content: "Say hello" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    const streamId = res.headers.get("x-stream-id")!;
    expect(streamId).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.events.map((e) => e.event)).toEqual(["start", "delta", "delta", "delta", "delta", "done"]);

    const [start, ...rest] = res.events;
    const stored = await history(user, id);
    expect(stored.map((m) => [m.role, m.content, m.status, m.model_id])).toEqual([
      ["user", "Say hello", "complete", "fast"],
      ["assistant", "Hello, world!", "complete", "fast"],
    ]);
    expect(start!.data).toEqual({ stream_id: streamId, conversation_id: id, model_id: "fast", user_message: stored[0] });
    expect(rest.slice(0, 4).map((e) => e.data)).toEqual([{ content: "Hello" }, { content: ", " }, { content: "world" }, { content: "!" }]);
    expect(rest[4]!.data).toEqual({ stream_id: streamId, conversation_id: id, status: "complete", message: stored[1] });

    // What the provider was sent: the OpenAI request, with the key as a bearer token.
    const sent = lastRequest();
    expect(sent.path).toBe("/v1/chat/completions");
    expect(sent.authorization).toBe(`Bearer ${API_KEY}`);
    expect(sent.body).toEqual({ model: "fast", stream: true, messages: [{ role: "user", content: "Say hello" }] });
  });

  test("under /api/ai too; later turns carry the conversation's history", async () => {
    const user = await server.register();
    const id = await newConversation(server, user);
    expect((await turn(user, { conversation_id: id, content: "first" }, "/api/ai")).events.at(-1)!.event).toBe("done");
    const second = await turn(user, { conversation_id: id, content: "second", model_id: "echo" });
    expect(second.events.filter((e) => e.event === "delta").map((e) => e.data.content)).toEqual(["messages=3"]);
    expect(lastRequest().body.messages).toEqual([
      { role: "user", content: "first" },
      { role: "assistant", content: "Hello, world!" },
      { role: "user", content: "second" },
    ]);
  });

  test("model: the turn's, else the conversation's, else the platform default, else the first", async () => {
    const user = await server.register();
    const id = await newConversation(server, user, { model_id: "json" });
    await turn(user, { conversation_id: id, content: "a" });
    expect(lastRequest().body.model).toBe("json");
    await turn(user, { conversation_id: id, content: "b", model_id: "crlf" });
    expect(lastRequest().body.model).toBe("crlf");
    const plain = await newConversation(server, user);
    await setSettings({ default_model: "echo" });
    try {
      await turn(user, { conversation_id: plain, content: "c" });
      expect(lastRequest().body.model).toBe("echo");
    } finally {
      await setSettings({ default_model: null });
    }
    await turn(user, { conversation_id: plain, content: "d" });
    expect(lastRequest().body.model).toBe("fast");
  });

  test("attachments: an image goes as an image part, a text file inline; later turns name them only", async () => {
    const user = await server.register();
    const id = await newConversation(server, user);
    const image = await upload(user, PNG_1X1, "dot.png");
    const notes = await upload(user, "remember the milk", "notes.txt");
    const res = await turn(user, { conversation_id: id, content: "Look", attachments: [{ url: image.url }, { url: notes.url }] });
    expect(res.status).toBe(200);
    expect(lastRequest().body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "Look\n\n--- notes.txt ---\nremember the milk" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${Buffer.from(PNG_1X1).toString("base64")}` } },
        ],
      },
    ]);
    const [userMessage] = await history(user, id);
    expect(userMessage.attachments.map((a: { url: string; name: string; mime_type: string }) => [a.url, a.name, a.mime_type])).toEqual([
      [image.url, "dot.png", "image/png"],
      [notes.url, "notes.txt", "text/plain"],
    ]);
    // Attachments alone are a turn.
    expect((await turn(user, { conversation_id: id, attachments: [{ url: notes.url }] })).status).toBe(200);
    expect(lastRequest().body.messages[0]).toEqual({ role: "user", content: "Look\n[attached: dot.png]\n[attached: notes.txt]" });
    expect(lastRequest().body.messages.at(-1)).toEqual({ role: "user", content: "--- notes.txt ---\nremember the milk" });
  });

  test("someone else's upload, or any other URL, is not an attachment (400)", async () => {
    const user = await server.register();
    const other = await server.register();
    const theirs = await upload(other, PNG_1X1, "theirs.png");
    const id = await newConversation(server, user);
    for (const url of [theirs.url, "/uploads/avatars/x.png", "https://example.test/cat.png"]) {
      expectError(await turn(user, { conversation_id: id, content: "hi", attachments: [{ url }] }), 400, "attachments.0.url: not one of your AI uploads");
    }
    expect(await history(user, id)).toEqual([]);
  });

  test.each([
    [{}, "conversation_id: is required"],
    [{ conversation_id: 5, content: "x" }, "conversation_id: must be a string"],
    [{ conversation_id: "ID", content: 5 }, "content: must be a string"],
    [{ conversation_id: "ID", content: "x".repeat(16_001) }, "content: must be at most 16000 characters"],
    [{ conversation_id: "ID" }, "content: is required when there are no attachments"],
    [{ conversation_id: "ID", content: "   " }, "content: is required when there are no attachments"],
    [{ conversation_id: "ID", content: "x", model_id: "nope" }, "model_id: unknown or disabled model"],
    [{ conversation_id: "ID", content: "x", model_id: 1 }, "model_id: must be a string"],
    [{ conversation_id: "ID", content: "x", attachments: "a" }, "attachments: must be an array"],
    [{ conversation_id: "ID", content: "x", attachments: [{}] }, "attachments.0.url: is required"],
    [{ conversation_id: "ID", content: "x", attachments: Array.from({ length: 11 }, () => ({ url: "u" })) }, "attachments: must hold at most 10 files"],
  ])("bad input %j is a JSON 400 before any stream; nothing is stored or counted", async (body, message) => {
    const user = await server.register();
    const id = await newConversation(server, user);
    const res = await turn(user, JSON.parse(JSON.stringify(body).replace('"ID"', JSON.stringify(id))));
    expectError(res, 400, message);
    expect(await history(user, id)).toEqual([]);
    expect(await usage(user)).toBe(0);
  });

  test("a second turn while a reply is streaming in the same conversation is 409", async () => {
    const user = await server.register();
    const id = await newConversation(server, user);
    const open = await openTurn(server, user, { conversation_id: id, content: "go", model_id: "slow" });
    await open.next("delta");
    expectError(await turn(user, { conversation_id: id, content: "again" }), 409, "A reply is still being written in this conversation: wait for it or cancel it");
    // Another conversation is fine meanwhile.
    expect((await turn(user, { conversation_id: await newConversation(server, user), content: "elsewhere" })).status).toBe(200);
    expect((await cancel(user, { stream_id: open.streamId })).status).toBe(200);
    expect((await open.next("done")).data.status).toBe("cancelled");
  });

  test("two turns racing into one conversation: one streams, the other is 409", async () => {
    const user = await server.register();
    const id = await newConversation(server, user);
    const send = () =>
      fetch(`${server.url}/api/v1/ai/chat`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${user.token}` },
        body: JSON.stringify({ conversation_id: id, content: "race", model_id: "slow" }),
      });
    const [a, b] = await Promise.all([send(), send()]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const streaming = a.status === 200 ? a : b;
    const refused = a.status === 200 ? b : a;
    answers.push(await refused.text());
    expect((await cancel(user, { stream_id: streaming.headers.get("x-stream-id") })).status).toBe(200);
    answers.push(await streaming.text());
    expect((await history(user, id)).map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(await usage(user)).toBe(1);
  });

  test("a generated image arrives as an image event, is kept for its owner, and stored with the reply", async () => {
    const user = await server.register();
    const id = await newConversation(server, user);
    const res = await turn(user, { conversation_id: id, content: "draw", model_id: "image" });
    expect(res.events.map((e) => e.event)).toEqual(["start", "delta", "image", "done"]);
    const url = res.events[2]!.data.url as string;
    expect(res.events[2]!.data).toEqual({ url });
    expect(url).toMatch(new RegExp(`^/uploads/ai/${user.id}/[0-9a-f-]{36}\\.png$`));
    const file = await fetch(server.url + url, { headers: { authorization: `Bearer ${user.token}` } });
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(PNG_1X1);
    expect((await history(user, id))[1]).toMatchObject({ content: "Here:", images: [{ url }], status: "complete" });
  });

  test("a provider that ignores stream:true (one JSON answer) and one with \\r\\n line ends both work", async () => {
    const user = await server.register();
    const id = await newConversation(server, user);
    const json = await turn(user, { conversation_id: id, content: "a", model_id: "json" });
    expect(json.events.filter((e) => e.event === "delta").map((e) => e.data.content)).toEqual(["Whole answer"]);
    const crlf = await turn(user, { conversation_id: id, content: "b", model_id: "crlf" });
    expect(crlf.events.filter((e) => e.event === "delta").map((e) => e.data.content)).toEqual(["Hello", ", world"]);
    expect(crlf.events.at(-1)!.data.message.content).toBe("Hello, world");
  });
});

describe("gates (JSON errors before the stream starts)", () => {
  test("the platform flag: 403, nothing stored", async () => {
    const user = await server.register();
    const id = await newConversation(server, user);
    await setSettings({ enabled: false });
    try {
      expectError(await turn(user, { conversation_id: id, content: "hi" }), 403, "The AI assistant is turned off on this platform");
      expectError(await turn(user, { conversation_id: id, content: "hi" }, "/api/ai"), 403, "The AI assistant is turned off on this platform");
    } finally {
      await setSettings({ enabled: true });
    }
    expect(await history(user, id)).toEqual([]);
  });

  test("premium only: 403 for others, premium users pass", async () => {
    const user = await server.register();
    const plus = await server.register();
    await server.app.store.users.setPremium(plus.id, true);
    const id = await newConversation(server, user);
    const plusId = await newConversation(server, plus);
    await setSettings({ plus_only: true });
    try {
      expectError(await turn(user, { conversation_id: id, content: "hi" }), 403, "The AI assistant is available to premium (Plus) members only");
      expect((await turn(plus, { conversation_id: plusId, content: "hi" })).status).toBe(200);
    } finally {
      await setSettings({ plus_only: false });
    }
  });

  test("the daily quota: 429 with Retry-After until midnight UTC, per user; 0 is no limit", async () => {
    const user = await server.register();
    const other = await server.register();
    const id = await newConversation(server, user);
    await setSettings({ daily_msg_limit: 2 });
    try {
      expect((await turn(user, { conversation_id: id, content: "1" })).status).toBe(200);
      expect((await turn(user, { conversation_id: id, content: "2" })).status).toBe(200);
      const refused = await turn(user, { conversation_id: id, content: "3" });
      expectError(refused, 429, "You have used all 2 AI messages for today. Your limit resets at midnight UTC.");
      const retryAfter = Number(refused.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(86_400);
      expect((await history(user, id)).map((m) => m.content)).toEqual(["1", "Hello, world!", "2", "Hello, world!"]);
      expect((await turn(other, { conversation_id: await newConversation(server, other), content: "mine" })).status).toBe(200);
      await setSettings({ daily_msg_limit: 0 });
      expect((await turn(user, { conversation_id: id, content: "unlimited" })).status).toBe(200);
      expect(await usage(user)).toBe(3);
    } finally {
      await setSettings({ daily_msg_limit: 50 });
    }
  });

  test("at least one enabled key: 503 when none serves a model", async () => {
    const fresh = await startServer();
    try {
      const first = await fresh.register();
      await fresh.api("PATCH", "/api/v1/admin/ai/settings", { token: first.token, body: { enabled: true } });
      const id = (await fresh.api("POST", "/api/v1/ai/conversations", { token: first.token, body: {} })).body.id;
      const send = () => sendTurn(fresh, first, { conversation_id: id, content: "hi" });
      expectError(await send(), 503, "The AI assistant is unavailable right now: no AI provider is set up");
      const key = await fresh.api("POST", "/api/v1/admin/ai/keys", { token: first.token, body: { name: "k", base_url: provider.baseUrl, models: ["fast"], enabled: false } });
      expectError(await send(), 503);
      await fresh.api("PATCH", `/api/v1/admin/ai/keys/${key.body.id}`, { token: first.token, body: { enabled: true } });
      expect((await send()).status).toBe(200);
      // A local server without a key gets no Authorization header.
      expect(lastRequest().authorization).toBeNull();
    } finally {
      await fresh.stop();
    }
  });
});

describe("provider failures end the stream with an error event", () => {
  const cases: [string, string, string][] = [
    ["error500", "The AI provider could not answer right now. Please try again later.", ""],
    ["busy429", "The AI provider is busy right now. Please try again in a moment.", ""],
    ["malformed", "The AI provider's reply broke off or could not be read. Please try again.", "Half"],
    ["midstream-error", "The AI provider could not answer right now. Please try again later.", "Half"],
    ["truncated", "The AI provider's reply broke off or could not be read. Please try again.", "Cut"],
    ["hang", "The AI provider took too long to answer. Please try again.", ""],
    ["stall", "The AI provider took too long to answer. Please try again.", "partial"],
    ["refused", "The AI provider cannot be reached right now. Please try again later.", ""],
  ];
  test.each(cases)("%s: a friendly error event; the turn and the partial reply (status error) are stored", async (model, message, partial) => {
    const user = await server.register();
    const id = await newConversation(server, user);
    const res = await turn(user, { conversation_id: id, content: "hi", model_id: model });
    expect(res.status).toBe(200);
    const names = res.events.map((e) => e.event);
    expect(names[0]).toBe("start");
    expect(names.at(-1)).toBe("error");
    expect(names.filter((n) => n === "done")).toEqual([]);
    const stored = await history(user, id);
    expect(stored.map((m) => [m.role, m.content, m.status])).toEqual([
      ["user", "hi", "complete"],
      ["assistant", partial, "error"],
    ]);
    expect(res.events.at(-1)!.data).toEqual({ error: message, stream_id: res.headers.get("x-stream-id"), message: stored[1] });
    // A provider that wrote nothing gives the turn back to the quota.
    expect(await usage(user)).toBe(partial === "" ? 0 : 1);
    // The conversation goes on afterwards.
    expect((await turn(user, { conversation_id: id, content: "again" })).events.at(-1)!.event).toBe("done");
    // Empty failed replies are not sent to the provider as context.
    expect(lastRequest().body.messages.filter((m) => m.role === "assistant").map((m) => m.content)).toEqual(partial ? [partial] : []);
  });

  test("a timeout aborts the provider request", async () => {
    const user = await server.register();
    const id = await newConversation(server, user);
    const started = Date.now();
    await turn(user, { conversation_id: id, content: "hi", model_id: "stall" });
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS * 10);
    await lastRequest().aborted;
    expect(lastRequest().wasAborted()).toBe(true);
  });
});

describe("POST /ai/chat/cancel", () => {
  test("aborts the provider request, ends the stream with done (cancelled) and keeps the partial reply", async () => {
    const user = await server.register();
    const id = await newConversation(server, user);
    const open = await openTurn(server, user, { conversation_id: id, content: "count", model_id: "slow" });
    const start = await open.next("start");
    expect(start.data.stream_id).toBe(open.streamId);
    await open.next("delta");
    await open.next("delta");
    const providerRequest = lastRequest();

    const res = await cancel(user, { stream_id: open.streamId });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    await providerRequest.aborted;
    const done = await open.next("done");
    expect(done.data.status).toBe("cancelled");
    expect(done.data.message).toMatchObject({ role: "assistant", status: "cancelled" });
    expect(done.data.message.content).toMatch(/^(tick ){2,}$/);

    // Stored before the cancel answered.
    const stored = await history(user, id);
    expect(stored.map((m) => [m.role, m.status])).toEqual([["user", "complete"], ["assistant", "cancelled"]]);
    expect(stored[1].content).toBe(done.data.message.content);
    // A cancelled turn still counts.
    expect(await usage(user)).toBe(1);
    // Finished streams are gone.
    expectError(await cancel(user, { stream_id: open.streamId }), 404, "Stream not found");
  });

  test("the reader going away cancels the same way", async () => {
    const user = await server.register();
    const id = await newConversation(server, user);
    const open = await openTurn(server, user, { conversation_id: id, content: "count", model_id: "slow" });
    await open.next("delta");
    const providerRequest = lastRequest();
    open.close();
    await providerRequest.aborted;
    await eventually(async () => (await history(user, id)).length >= 2, "the cancelled answer stored");
    const stored = await history(user, id);
    expect(stored[1]).toMatchObject({ role: "assistant", status: "cancelled" });
    expect(stored[1].content).toMatch(/^(tick )+$/);
  });

  test("someone else's stream, an unknown id and a malformed id are 404; a bad body is 400", async () => {
    const user = await server.register();
    const other = await server.register();
    const open = await openTurn(server, user, { conversation_id: await newConversation(server, user), content: "x", model_id: "slow" });
    await open.next("delta");
    expectError(await cancel(other, { stream_id: open.streamId }), 404, "Stream not found");
    expectError(await cancel(user, { stream_id: "01a20805-7d72-77cc-b541-8c28e661b52b" }), 404, "Stream not found");
    expectError(await cancel(user, { stream_id: "nope" }), 404, "Stream not found");
    expectError(await cancel(user, {}), 400, "stream_id: is required");
    expectError(await cancel(user, { stream_id: 7 }), 400, "stream_id: must be a string");
    expectError(await cancel(null, { stream_id: open.streamId }), 401);
    // Still streaming for its owner.
    expect((await cancel(user, { stream_id: open.streamId })).status).toBe(200);
  });

  test("deleting a conversation ends its stream first", async () => {
    const user = await server.register();
    const id = await newConversation(server, user);
    const open = await openTurn(server, user, { conversation_id: id, content: "x", model_id: "slow" });
    await open.next("delta");
    expect((await server.api("DELETE", `/api/v1/ai/conversations/${id}`, { token: user.token })).status).toBe(200);
    const done = await open.next("done");
    expect(done.data.status).toBe("cancelled");
    expect(await server.app.store.aiConversations.page(id, null, 10)).toEqual([]);
  });
});

describe("shutdown", () => {
  test("a stopping server ends open streams at once (done, cancelled) instead of waiting out the drain", async () => {
    const own = await startServer({ aiProviderTimeoutMs: TIMEOUT_MS });
    const first = await own.register();
    await enableAi(own, first, provider.baseUrl, ["slow"]);
    const id = await newConversation(own, first);
    const open = await openTurn(own, first, { conversation_id: id, content: "x" });
    await open.next("delta");
    const providerRequest = lastRequest();
    const started = Date.now();
    await own.stop();
    expect(Date.now() - started).toBeLessThan(1500);
    await providerRequest.aborted;
    expect((await open.next("done")).data).toMatchObject({ status: "cancelled", message: { status: "cancelled" } });
  });
});
