import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { addMember, createServer } from "../helpers/community.ts";
import { onPostgres } from "../helpers/database.ts";
import { GIF_1X1, PNG_1X1 } from "../helpers/images.ts";
import { recordEvents, startServer, waitForEvent, type TestServer, type TestUser } from "../helpers/server.ts";
import { eventually, quietWindow } from "../helpers/wait.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";
const MESSAGE_KEYS = [
  "attachments", "avatar", "channel_id", "content", "conversation_id", "created_at", "embeds", "id", "is_bot", "reply_to",
  "updated_at", "user_id", "username",
];
const CANNOT = { error: "You can only message users who share a server with you or are your friends" };

const call = (method: string, path: string, user: TestUser | null, body?: unknown) =>
  server.api(method, `/api/v1/dm${path}`, { token: user?.token, body });

/** Two users who share a server, plus a stranger. */
async function pair() {
  const a = await server.register();
  const b = await server.register();
  const stranger = await server.register();
  const serverId = await createServer(server, a);
  await addMember(server, serverId, b);
  return { a, b, stranger, serverId };
}

async function befriend(x: TestUser, y: TestUser) {
  await server.app.store.friends.request(x.id, y.id);
  await server.app.store.friends.accept(y.id, x.id);
}

async function send(from: TestUser, to: TestUser, content: string) {
  const res = await call("POST", `/${to.id}/messages`, from, { content });
  if (res.status !== 201) throw new Error(`send failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

function filesForm(files: { bytes: Uint8Array; name: string; type?: string }[], content?: string): FormData {
  const form = new FormData();
  for (const f of files) form.append("files", new File([f.bytes], f.name, { type: f.type ?? "application/octet-stream" }));
  if (content !== undefined) form.append("content", content);
  return form;
}

describe("opening and listing DMs", () => {
  test("POST /channels/:targetUserId creates once (201) then answers the same DM (200)", async () => {
    const { a, b } = await pair();
    const created = await call("POST", `/channels/${b.id}`, a);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String), type: "dm", name: null, icon: null, owner_id: null, last_message_at: null,
      recipients: [{ id: b.id, username: b.username, avatar: null, status: "offline", is_bot: 0 }],
    });
    const again = await call("POST", `/channels/${a.id}`, b);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(created.body.id);
    expect(again.body.recipients.map((r: { id: string }) => r.id)).toEqual([a.id]);
  });

  test("friends may DM without a shared server; strangers get 403", async () => {
    const { a, stranger } = await pair();
    expect(await call("POST", `/channels/${stranger.id}`, a)).toMatchObject({ status: 403, body: CANNOT });
    expect(await call("POST", `/${stranger.id}/messages`, a, { content: "hi" })).toMatchObject({ status: 403, body: CANNOT });
    await befriend(a, stranger);
    expect((await call("POST", `/channels/${stranger.id}`, a)).status).toBe(201);
    expect((await call("POST", `/${stranger.id}/messages`, a, { content: "hi" })).status).toBe(201);
  });

  test("401, 404 on unknown and non-UUID users, 400 on yourself", async () => {
    const { a } = await pair();
    expect((await call("POST", `/channels/${UNKNOWN}`, null)).status).toBe(401);
    expect((await call("GET", "/channels", null)).status).toBe(401);
    expect(await call("POST", `/channels/${UNKNOWN}`, a)).toMatchObject({ status: 404, body: { error: "User not found" } });
    expect((await call("POST", "/channels/not-a-uuid", a)).status).toBe(404);
    expect((await call("GET", "/not-a-uuid/messages", a)).status).toBe(404);
    expect((await call("POST", `/channels/${a.id}`, a)).status).toBe(400);
  });

  test("GET /channels lists DMs and groups, newest activity first", async () => {
    const { a, b, serverId } = await pair();
    const c = await server.register();
    await addMember(server, serverId, c);
    await call("POST", `/channels/${b.id}`, a);
    await call("POST", `/channels/${c.id}`, a);
    let list = (await call("GET", "/channels", a)).body;
    expect(list.map((d: any) => d.recipients[0].id)).toEqual([c.id, b.id]);
    await send(a, b, "bump");
    list = (await call("GET", "/channels", a)).body;
    expect(list.map((d: any) => d.recipients[0].id)).toEqual([b.id, c.id]);
    expect(list[0].last_message_at).toEqual(expect.any(Number));
    const group = await server.api("POST", "/api/v1/dm/groups", { token: a.token, body: { member_ids: [b.id, c.id] } });
    list = (await call("GET", "/channels", a)).body;
    expect(list[0]).toMatchObject({ id: group.body.id, type: "group", owner_id: a.id });
    expect(list).toHaveLength(3);
  });
});

describe("sending and reading", () => {
  test("POST /:targetUserId/messages answers the message and pushes dm:new to both users", async () => {
    const { a, b } = await pair();
    const [sa, sb] = await Promise.all([server.connect(a.token), server.connect(b.token)]);
    const gotA = waitForEvent(sa, "dm:new");
    const gotB = waitForEvent(sb, "dm:new");
    const res = await call("POST", `/${b.id}/messages`, a, { content: "hello there" });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(MESSAGE_KEYS);
    expect(res.body).toMatchObject({
      content: "hello there", user_id: a.id, username: a.username, avatar: null, is_bot: 0, embeds: [], attachments: [],
      reply_to: null, updated_at: null,
    });
    expect(res.body.channel_id).toBe(res.body.conversation_id);
    expect(await gotB).toEqual(res.body);
    expect(await gotA).toEqual(res.body);
  });

  test("reply_to must be a message of the same conversation", async () => {
    const { a, b, serverId } = await pair();
    const first = await send(a, b, "first");
    const reply = await call("POST", `/${a.id}/messages`, b, { content: "re", reply_to: first.id });
    expect(reply.status).toBe(201);
    expect(reply.body.reply_to).toBe(first.id);
    const c = await server.register();
    await addMember(server, serverId, c);
    const other = await send(a, c, "elsewhere");
    expect((await call("POST", `/${b.id}/messages`, a, { content: "x", reply_to: other.id })).status).toBe(400);
  });

  test("bad bodies are 400 naming the field", async () => {
    const { a, b } = await pair();
    expect(await call("POST", `/${b.id}/messages`, a, {})).toMatchObject({ status: 400, body: { error: "content: is required" } });
    expect((await call("POST", `/${b.id}/messages`, a, { content: "" })).status).toBe(400);
    expect((await call("POST", `/${b.id}/messages`, a, { content: "   " })).status).toBe(400);
    expect((await call("POST", `/${b.id}/messages`, a, { content: "x".repeat(4001) })).status).toBe(400);
    expect((await call("POST", `/${b.id}/messages`, a, { content: 5 })).status).toBe(400);
    expect((await call("POST", `/${b.id}/messages`, a, { content: "x", reply_to: "nope" })).status).toBe(400);
    expect((await call("POST", `/${b.id}/messages`, null, { content: "x" })).status).toBe(401);
    expect((await call("POST", `/${UNKNOWN}/messages`, a, { content: "x" })).status).toBe(404);
  });

  test("a user who muted the sender still receives the DM but gets no dm:new", async () => {
    const { a, b } = await pair();
    const muted = await server.api("POST", `/api/v1/users/me/muted-users/${a.id}`, { token: b.token });
    expect(muted.status).toBe(201);
    const [sa, sb] = await Promise.all([server.connect(a.token), server.connect(b.token)]);
    const seenByB = recordEvents(sb, "dm:new");
    const gotA = waitForEvent(sa, "dm:new");
    const message = await send(a, b, "you muted me");
    await gotA;
    await quietWindow(); // b's socket: nothing later on it to wait for
    expect(seenByB).toEqual([]);
    const history = (await call("GET", `/${a.id}/messages`, b)).body;
    expect(history.map((m: { id: string }) => m.id)).toEqual([message.id]);
  });

  test("120 DMs page back with before, newest first, without gaps or duplicates", async () => {
    const { a, b } = await pair();
    const sent: string[] = [];
    for (let i = 0; i < 120; i++) sent.push((await send(i % 2 ? b : a, i % 2 ? a : b, `message ${i}`)).id);
    const seen: string[] = [];
    let before: string | undefined;
    for (;;) {
      const res = await call("GET", `/${b.id}/messages?limit=50${before ? `&before=${before}` : ""}`, a);
      expect(res.status).toBe(200);
      if (res.body.length === 0) break;
      seen.push(...res.body.map((m: { id: string }) => m.id));
      before = res.body.at(-1).id;
    }
    expect(seen).toEqual([...sent].reverse());
    expect((await call("GET", `/${b.id}/messages`, a)).body).toHaveLength(50);
  });

  test("around returns up to limit messages centred on the id", async () => {
    const { a, b } = await pair();
    const ids: string[] = [];
    for (let i = 0; i < 11; i++) ids.push((await send(a, b, `m${i}`)).id);
    const res = await call("GET", `/${b.id}/messages?around=${ids[5]}&limit=5`, a);
    expect(res.body.map((m: { id: string }) => m.id)).toEqual([ids[7], ids[6], ids[5], ids[4], ids[3]]);
    const edge = await call("GET", `/${b.id}/messages?around=${ids[0]}&limit=4`, a);
    expect(edge.body.map((m: { id: string }) => m.id)).toEqual([ids[3], ids[2], ids[1], ids[0]]);
  });

  test("GET messages: empty before the first message, 400 on bad queries", async () => {
    const { a, b } = await pair();
    expect(await call("GET", `/${b.id}/messages`, a)).toMatchObject({ status: 200, body: [] });
    for (const q of ["limit=0", "limit=101", "limit=abc", "before=nope", "around=nope", `before=${UNKNOWN}&around=${UNKNOWN}`]) {
      expect((await call("GET", `/${b.id}/messages?${q}`, a)).status).toBe(400);
    }
    expect((await call("GET", `/${b.id}/messages?limit=100`, a)).status).toBe(200);
    expect((await call("GET", `/${b.id}/messages`, null)).status).toBe(401);
  });

  test("POST /:targetUserId/read sets the marker (latest by default), never backwards", async () => {
    const { a, b } = await pair();
    expect((await call("POST", `/${b.id}/read`, a)).status).toBe(404);
    const first = await send(b, a, "one");
    const second = await send(b, a, "two");
    expect((await call("POST", `/${b.id}/read`, a)).body).toEqual({ conversation_id: first.conversation_id, last_read_message_id: second.id });
    // An older message leaves the marker where it is (docs/read-states.md).
    expect((await call("POST", `/${b.id}/read`, a, { message_id: first.id })).body.last_read_message_id).toBe(second.id);
    expect((await call("POST", `/${b.id}/read`, a, { message_id: UNKNOWN })).status).toBe(404);
    expect((await call("POST", `/${b.id}/read`, a, { message_id: "x" })).status).toBe(400);
    expect((await call("POST", `/${b.id}/read`, null)).status).toBe(401);
  });
});

describe("editing and deleting", () => {
  test("the author edits (dm:update); others get 403", async () => {
    const { a, b } = await pair();
    const message = await send(a, b, "typo");
    const sb = await server.connect(b.token);
    const got = waitForEvent(sb, "dm:update");
    const res = await call("PUT", `/${b.id}/messages/${message.id}`, a, { content: "fixed" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: message.id, content: "fixed", updated_at: expect.any(Number) });
    expect(await got).toEqual(res.body);
    expect((await call("PUT", `/${a.id}/messages/${message.id}`, b, { content: "hijack" })).status).toBe(403);
    expect((await call("PUT", `/${b.id}/messages/${message.id}`, a, { content: "" })).status).toBe(400);
    expect((await call("PUT", `/${b.id}/messages/${UNKNOWN}`, a, { content: "x" })).status).toBe(404);
    expect((await call("PUT", `/${b.id}/messages/nope`, a, { content: "x" })).status).toBe(404);
    expect((await call("PUT", `/${b.id}/messages/${message.id}`, null, { content: "x" })).status).toBe(401);
  });

  test("the author deletes (dm:deleted); others get 403; a stranger's DM is 404", async () => {
    const { a, b, stranger } = await pair();
    const message = await send(a, b, "oops");
    expect((await call("DELETE", `/${a.id}/messages/${message.id}`, b)).status).toBe(403);
    expect((await call("DELETE", `/${a.id}/messages/${message.id}`, stranger)).status).toBe(404);
    const sb = await server.connect(b.token);
    const got = waitForEvent(sb, "dm:deleted");
    expect(await call("DELETE", `/${b.id}/messages/${message.id}`, a)).toMatchObject({ status: 200, body: { success: true } });
    expect(await got).toEqual({ conversationId: message.conversation_id, messageId: message.id });
    expect((await call("GET", `/${b.id}/messages`, a)).body).toEqual([]);
    expect((await call("DELETE", `/${b.id}/messages/${message.id}`, a)).status).toBe(404);
  });
});

describe("uploads and GIFs", () => {
  test("files are stored, typed by their bytes, served back, and removed with the message", async () => {
    const { a, b } = await pair();
    const sb = await server.connect(b.token);
    const got = waitForEvent(sb, "dm:new");
    const text = new TextEncoder().encode("plain notes");
    const form = filesForm([
      { bytes: PNG_1X1, name: "photo.txt", type: "text/plain" },
      { bytes: text, name: "../../notes.png", type: "image/png" },
    ], "two files");
    const res = await server.api("POST", `/api/v1/dm/${b.id}/upload`, { token: a.token, raw: form });
    expect(res.status).toBe(201);
    expect(res.body.content).toBe("two files");
    expect(res.body.attachments).toHaveLength(2);
    const [image, other] = res.body.attachments;
    expect(image).toEqual({ id: expect.any(String), filename: expect.stringMatching(/^\/uploads\/attachments\/[0-9a-f-]{36}\.png$/), original_name: "photo.txt", mime_type: "image/png", size: PNG_1X1.byteLength, width: 1, height: 1 });
    expect(other).toMatchObject({ original_name: "notes.png", mime_type: "application/octet-stream", size: text.byteLength, width: null, height: null });
    expect(other.filename).toMatch(/\.bin$/);
    expect((await got).attachments).toEqual(res.body.attachments);

    const served = await fetch(server.url + image.filename);
    expect(served.headers.get("content-type")).toBe("image/png");
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(PNG_1X1);
    const download = await fetch(server.url + other.filename);
    expect(download.headers.get("content-type")).toBe("application/octet-stream");
    expect(await download.text()).toBe("plain notes");

    const onDisk = (p: string) => join(server.dataDir, p);
    expect(existsSync(onDisk(image.filename))).toBe(true);
    await call("DELETE", `/${b.id}/messages/${res.body.id}`, a);
    expect(existsSync(onDisk(image.filename))).toBe(false);
    expect(existsSync(onDisk(other.filename))).toBe(false);
  });

  test("upload limits: 1-10 files, 25 MB each, multipart only; failures leave no files", async () => {
    const { a, b, stranger } = await pair();
    const up = (user: TestUser | null, target: string, raw: FormData) =>
      server.api("POST", `/api/v1/dm/${target}/upload`, { token: user?.token, raw });
    expect((await up(a, b.id, filesForm([], "no files"))).status).toBe(400);
    const eleven = filesForm(Array.from({ length: 11 }, (_, i) => ({ bytes: GIF_1X1, name: `${i}.gif` })));
    expect((await up(a, b.id, eleven)).status).toBe(400);
    const big = filesForm([{ bytes: new Uint8Array(25 * 1024 * 1024 + 1), name: "big.bin" }]);
    expect((await up(a, b.id, big)).status).toBe(413);
    expect((await up(null, b.id, filesForm([{ bytes: GIF_1X1, name: "a.gif" }]))).status).toBe(401);
    expect((await up(a, stranger.id, filesForm([{ bytes: GIF_1X1, name: "a.gif" }]))).status).toBe(403);
    expect((await call("POST", `/${b.id}/upload`, a, { content: "json" })).status).toBe(400);
    const dir = join(server.dataDir, "uploads", "attachments");
    const count = () => (existsSync(dir) ? [...new Bun.Glob("*").scanSync(dir)].length : 0);
    const before = count();
    const mixed = filesForm([{ bytes: GIF_1X1, name: "small.gif" }, { bytes: new Uint8Array(25 * 1024 * 1024 + 1), name: "big.bin" }]);
    expect((await up(a, b.id, mixed)).status).toBe(413);
    expect(count()).toBe(before);
    expect((await call("GET", `/${b.id}/messages`, a)).body).toEqual([]);
  });

  test("POST /:targetUserId/gif stores the URL as the content", async () => {
    const { a, b } = await pair();
    const res = await call("POST", `/${b.id}/gif`, a, { url: "https://media.example.com/cat.gif" });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ content: "https://media.example.com/cat.gif", attachments: [], embeds: [] });
    expect((await call("POST", `/${b.id}/gif`, a, { url: "javascript:alert(1)" })).status).toBe(400);
    expect((await call("POST", `/${b.id}/gif`, a, { url: "not a url" })).status).toBe(400);
    expect((await call("POST", `/${b.id}/gif`, a, {})).status).toBe(400);
    expect((await call("POST", `/${b.id}/gif`, null, { url: "https://x.test/a.gif" })).status).toBe(401);
  });
});

describe("search", () => {
  test("finds matching words only, within the conversation", async () => {
    const { a, b, serverId } = await pair();
    const hit = await send(a, b, "the quick brown fox");
    await send(b, a, "lazy dog sleeps");
    const c = await server.register();
    await addMember(server, serverId, c);
    await send(a, c, "another fox elsewhere");
    const res = await call("GET", `/${b.id}/search?q=fox`, a);
    expect(res.status).toBe(200);
    expect(res.body.map((m: { id: string }) => m.id)).toEqual([hit.id]);
    expect(Object.keys(res.body[0]).sort()).toEqual(MESSAGE_KEYS);
    expect((await call("GET", `/${b.id}/search?q=quick%20fox`, a)).body).toHaveLength(1);
    expect((await call("GET", `/${b.id}/search?q=cat`, a)).body).toEqual([]);
  });

  // SQLite indexes DM sends in batches (dm_messages_fts_pending, src/store/search-backlog.ts): an
  // edit or a delete may come before or after its message reached the index; the index must end up
  // right either way (FTS5's integrity check compares it with the dm_messages table).
  const pending = async () =>
    (await server.app.store.db.get(server.app.store.db.prepare<{ n: number }, []>("SELECT count(*) AS n FROM dm_messages_fts_pending")))!.n;
  const integrityCheck = () => server.app.store.db.exec("INSERT INTO dm_messages_fts (dm_messages_fts, rank) VALUES ('integrity-check', 1)");
  const found = async (a: TestUser, b: TestUser, q: string) =>
    ((await call("GET", `/${b.id}/search?q=${encodeURIComponent(q)}`, a)).body as { content: string }[]).map((m) => m.content);

  test.skipIf(onPostgres)("edits and deletes before and after the search index caught up leave it right", async () => {
    const { a, b } = await pair();
    await server.app.store.dms.searchBacklog.index();
    const early = await send(a, b, "early words");
    const gone = await send(a, b, "vanishing words");
    expect(await pending()).toBeGreaterThanOrEqual(2); // not indexed yet (they wait for a moment or a search)
    expect((await call("PUT", `/${b.id}/messages/${early.id}`, a, { content: "edited while pending" })).status).toBe(200);
    expect((await call("DELETE", `/${b.id}/messages/${gone.id}`, a)).status).toBe(200);
    expect(await found(a, b, "words")).toEqual([]);
    expect(await found(a, b, "pending")).toEqual(["edited while pending"]);
    expect(await pending()).toBe(0);
    expect((await call("PUT", `/${b.id}/messages/${early.id}`, a, { content: "edited once indexed" })).status).toBe(200);
    expect(await found(a, b, "pending")).toEqual([]);
    expect(await found(a, b, "indexed")).toEqual(["edited once indexed"]);
    await integrityCheck();
    expect((await call("DELETE", `/${b.id}/messages/${early.id}`, a)).status).toBe(200);
    expect(await found(a, b, "indexed")).toEqual([]);
    await integrityCheck();
  });

  test.skipIf(onPostgres)("without a search, sent messages reach the index a moment later, in one go", async () => {
    const { a, b } = await pair();
    await Promise.all(Array.from({ length: 20 }, (_, i) => send(a, b, `batch word ${i}`)));
    // Counted, not timed: the backlog empties by itself (INDEX_DELAY_MS), well within 10 s.
    await eventually(async () => (await pending()) === 0, "the index backlog to empty", { timeoutMs: 10_000, intervalMs: 50 });
    await integrityCheck();
    expect((await call("GET", `/${b.id}/search?q=batch%20word&limit=100`, a)).body).toHaveLength(20);
  });

  test("FTS syntax in q never errors", async () => {
    const { a, b } = await pair();
    await send(a, b, "alpha OR beta");
    for (const q of ['"', '"alpha', "*", "alpha*", "OR", "alpha OR", "NEAR(", "NEAR(alpha beta", "content:alpha", "(", ")", "-alpha", "^", "AND NOT"]) {
      const res = await call("GET", `/${b.id}/search?q=${encodeURIComponent(q)}`, a);
      expect(res.status).toBe(200);
      expect(Array.isArray(res.body)).toBe(true);
    }
    expect((await call("GET", `/${b.id}/search?q=${encodeURIComponent('"alpha')}`, a)).body).toHaveLength(1);
  });

  test("limits and bad queries", async () => {
    const { a, b } = await pair();
    for (let i = 0; i < 30; i++) await send(a, b, `needle ${i}`);
    expect((await call("GET", `/${b.id}/search?q=needle`, a)).body).toHaveLength(25);
    expect((await call("GET", `/${b.id}/search?q=needle&limit=100`, a)).body).toHaveLength(30);
    expect((await call("GET", `/${b.id}/search?q=needle&limit=0`, a)).status).toBe(400);
    expect((await call("GET", `/${b.id}/search?q=needle&limit=101`, a)).status).toBe(400);
    expect((await call("GET", `/${b.id}/search`, a)).status).toBe(400);
    expect((await call("GET", `/${b.id}/search?q=`, a)).status).toBe(400);
    expect((await call("GET", `/${b.id}/search?q=x`, null)).status).toBe(401);
    expect((await call("GET", `/${UNKNOWN}/search?q=x`, a)).status).toBe(404);
  });
});

describe("pins and reactions", () => {
  test("pin, list, unpin, with dm:pin", async () => {
    const { a, b } = await pair();
    const m1 = await send(a, b, "pin me");
    const sb = await server.connect(b.token);
    const got = waitForEvent(sb, "dm:pin");
    expect((await call("POST", `/${b.id}/pins/${m1.id}`, a)).body).toEqual({ conversationId: m1.conversation_id, messageId: m1.id, pinned: true });
    expect(await got).toEqual({ conversationId: m1.conversation_id, messageId: m1.id, pinned: true });
    const pins = await call("GET", `/${a.id}/pins`, b);
    expect(pins.body.map((m: { id: string }) => m.id)).toEqual([m1.id]);
    expect(Object.keys(pins.body[0]).sort()).toEqual(MESSAGE_KEYS);
    const unpinned = waitForEvent(sb, "dm:pin", { filter: (p: { pinned: boolean }) => !p.pinned });
    expect((await call("DELETE", `/${b.id}/pins/${m1.id}`, a)).body.pinned).toBe(false);
    await unpinned;
    expect((await call("GET", `/${a.id}/pins`, b)).body).toEqual([]);
    expect((await call("POST", `/${b.id}/pins/${UNKNOWN}`, a)).status).toBe(404);
    expect((await call("POST", `/${b.id}/pins/${m1.id}`, null)).status).toBe(401);
    expect((await call("GET", `/${b.id}/pins`, null)).status).toBe(401);
  });

  test("PUT reactions toggles and emits dm:reaction", async () => {
    const { a, b } = await pair();
    const m = await send(a, b, "react");
    const sa = await server.connect(a.token);
    const added = waitForEvent(sa, "dm:reaction");
    const path = `/${a.id}/messages/${m.id}/reactions`;
    const payload = { conversationId: m.conversation_id, messageId: m.id, emoji: "👍", userId: b.id };
    expect((await call("PUT", path, b, { emoji: "👍" })).body).toEqual({ ...payload, action: "added" });
    expect(await added).toEqual({ ...payload, action: "added" });
    const removed = waitForEvent(sa, "dm:reaction");
    expect((await call("PUT", path, b, { emoji: "👍" })).body.action).toBe("removed");
    expect((await removed).action).toBe("removed");
    expect((await call("PUT", path, b, {})).status).toBe(400);
    expect((await call("PUT", path, null, { emoji: "👍" })).status).toBe(401);
    expect((await call("PUT", `/${a.id}/messages/${UNKNOWN}/reactions`, b, { emoji: "👍" })).status).toBe(404);
  });
});

describe("typing", () => {
  test("dm:typing:start/stop reach the other member only", async () => {
    const { a, b, stranger } = await pair();
    const m = await send(a, b, "hi");
    const [sa, sb, ss] = await Promise.all([server.connect(a.token), server.connect(b.token), server.connect(stranger.token)]);
    const seenByA = recordEvents(sa, "dm:typing:start");
    const got = waitForEvent(sb, "dm:typing:start");
    const ack = await sa.emitWithAck("dm:typing:start", { conversationId: m.conversation_id });
    expect(ack).toEqual({ ok: true, conversationId: m.conversation_id });
    expect(await got).toEqual({ userId: a.id, username: a.username, conversationId: m.conversation_id });
    const stop = waitForEvent(sb, "dm:typing:stop");
    await sa.emitWithAck("dm:typing:stop", { conversationId: m.conversation_id });
    expect((await stop).userId).toBe(a.id);
    expect(await ss.emitWithAck("dm:typing:start", { conversationId: m.conversation_id })).toEqual({ ok: false, error: "Conversation not found" });
    expect((await sa.emitWithAck("dm:typing:start", { conversationId: "nope" })).ok).toBe(false);
    expect((await sa.emitWithAck("dm:typing:start", null)).ok).toBe(false);
    await quietWindow();
    expect(seenByA).toEqual([]);
  });
});
