/**
 * Custom status (issue 43, point 3; docs/users.md#custom-status): a person's text, emoji and
 * expiry; shown to others with their presence only while online, idle or dnd; announced as
 * `user:status` with `customStatus`; cleared by itself when its time is up.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createBot } from "../helpers/bots.ts";
import { addMember, createServer } from "../helpers/community.ts";
import { expectError, recordEvents, startServer, waitForEvent, type ClientSocket, type TestServer, type TestUser } from "../helpers/server.ts";
import { PNG_1X1 } from "../helpers/images.ts";
import { eventually, quietWindow } from "../helpers/wait.ts";

let server: TestServer;
let alice: TestUser;
let mate: TestUser;
let stranger: TestUser;
let aliceSocket: ClientSocket;
let mateSocket: ClientSocket;
let serverId: string;

beforeAll(async () => {
  server = await startServer();
  [alice, mate, stranger] = [await server.register(), await server.register(), await server.register()];
  serverId = await createServer(server, alice);
  await addMember(server, serverId, mate);
  aliceSocket = await server.connect(alice.token);
  mateSocket = await server.connect(mate.token);
  expect(await mateSocket.emitWithAck("server:join", serverId)).toEqual({ ok: true, serverId });
  await eventually(async () => (await get(mate, `/api/v1/users/${alice.id}`)).body.status === "online", "alice online");
});
afterAll(async () => {
  await server.stop();
});

const get = (viewer: TestUser, path: string) => server.api("GET", path, { token: viewer.token });
const put = (user: TestUser | null, body: unknown) => server.api("PUT", "/api/v1/users/me/custom-status", { token: user?.token, body });
const clear = (user: TestUser | null) => server.api("DELETE", "/api/v1/users/me/custom-status", { token: user?.token });
const aliceStatus = (payload: any) => payload.userId === alice.id;

describe("PUT /api/v1/users/me/custom-status", () => {
  test("sets it: the text trimmed, the emoji, no expiry", async () => {
    const res = await put(alice, { text: "  Out for lunch  ", emoji: "🍕" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ text: "Out for lunch", emoji: "🍕", expires_at: null });
    expect((await get(alice, "/api/v1/users/me/info")).body.custom_status).toEqual(res.body);
  });

  test("expires_in gives an ISO expiry that far ahead; null emoji and expiry are none", async () => {
    const before = Date.now();
    const res = await put(alice, { text: "Focusing", expires_in: 1800 });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["text", "emoji", "expires_at"]);
    expect(res.body.emoji).toBeNull();
    const at = Date.parse(res.body.expires_at);
    expect(at).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 1800_000);
    expect(at).toBeLessThanOrEqual(before + 1800_000 + 2000);
    expect((await put(alice, { text: "Focusing", emoji: null, expires_in: null })).body).toEqual({ text: "Focusing", emoji: null, expires_at: null });
  });

  test("a custom emoji <:name:id> must name an emoji that exists; <a:...> and an upper-case id are stored as <:name:id>", async () => {
    const data = new FormData();
    data.append("emoji", new File([PNG_1X1], "party.png"));
    const uploaded = await server.api("POST", `/api/v1/servers/${serverId}/emojis`, { token: alice.token, raw: data });
    expect(uploaded.status).toBe(201);
    const { id, name } = uploaded.body.emoji;
    expect((await put(alice, { text: "Party", emoji: `<a:${name}:${id.toUpperCase()}>` })).body).toEqual({ text: "Party", emoji: `<:${name}:${id}>`, expires_at: null });
    const unknown = "<:party:00000000-0000-4000-8000-000000000000>";
    expectError(await put(alice, { text: "Party", emoji: unknown }), 400, "emoji: unknown custom emoji");
  });

  test("401 without a token", async () => {
    expectError(await put(null, { text: "hi" }), 401);
    expectError(await clear(null), 401);
  });

  test("400: empty, blank, 129 characters, a bad emoji, a bad expires_in", async () => {
    expectError(await put(alice, { text: "" }), 400, "text: must not be empty");
    expectError(await put(alice, { text: "   " }), 400, "text: must not be empty");
    expectError(await put(alice, {}), 400, /^text: /);
    expectError(await put(alice, { text: 5 }), 400, "text: must be a string");
    expectError(await put(alice, { text: "x".repeat(129) }), 400, "text: must be 1-128 characters");
    expect((await put(alice, { text: "x".repeat(128) })).status).toBe(200);
    expectError(await put(alice, { text: "hi", emoji: "ab" }), 400, /^emoji: must be one Unicode emoji/);
    expectError(await put(alice, { text: "hi", emoji: "🍕🍕" }), 400, /^emoji: must be one Unicode emoji/);
    expectError(await put(alice, { text: "hi", emoji: 3 }), 400, "emoji: must be a string");
    for (const expires_in of [59, 0, -5, 30 * 86400 + 1, 1.5, "1800"]) {
      expectError(await put(alice, { text: "hi", expires_in }), 400, /^expires_in: must be/);
    }
    expect((await put(alice, { text: "hi", expires_in: 30 * 86400 })).status).toBe(200);
  });

  test("403 for a bot: its status is its activity", async () => {
    const bot = await createBot(server, alice);
    const asBot = { token: bot.token } as TestUser;
    expectError(await put(asBot, { text: "hi" }), 403, "Bots set their status through PUT /api/v1/oauth2/bot/presence");
    expectError(await clear(asBot), 403);
  });
});

describe("who sees it", () => {
  test("a server-mate sees it in the user, the profile and the member list while online", async () => {
    const status = (await put(alice, { text: "Reading", emoji: "📚" })).body;
    expect((await get(mate, `/api/v1/users/${alice.id}`)).body.custom_status).toEqual(status);
    expect((await get(mate, `/api/v1/users/${alice.id}/profile`)).body.custom_status).toEqual(status);
    const members = (await get(mate, `/api/v1/servers/${serverId}/members`)).body;
    expect(members.find((m: { user_id: string }) => m.user_id === alice.id).custom_status).toEqual(status);
    expect(members.find((m: { user_id: string }) => m.user_id === mate.id).custom_status).toBeNull();
    expect((await get(mate, `/api/v1/servers/${serverId}/members/${alice.id}`)).body.custom_status).toEqual(status);
  });

  test("a friend sees it in GET /friends; a pending request does not carry it", async () => {
    const friend = await server.register();
    expect((await server.api("POST", "/api/v1/friends/request", { token: friend.token, body: { username: alice.username } })).status).toBe(201);
    const pending = (await get(alice, "/api/v1/friends/requests")).body.incoming[0];
    expect(pending.custom_status).toBeUndefined();
    expect((await server.api("POST", `/api/v1/friends/accept/${friend.id}`, { token: alice.token })).status).toBe(200);
    const status = (await put(alice, { text: "Friendly", emoji: "👋" })).body;
    const [entry] = (await get(friend, "/api/v1/friends")).body;
    expect(entry).toMatchObject({ user_id: alice.id, status: "online", custom_status: status });
    // Invisible: none, to friends too.
    await aliceSocket.emitWithAck("status:set", { status: "offline" });
    expect((await get(friend, "/api/v1/friends")).body[0]).toMatchObject({ status: "offline", custom_status: null });
    await aliceSocket.emitWithAck("status:set", { status: "online" });
  });

  test("a stranger does not (no presence for them)", async () => {
    expect((await get(stranger, `/api/v1/users/${alice.id}`)).body).toMatchObject({ status: "offline", custom_status: null });
    expect((await get(stranger, `/api/v1/users/${alice.id}/profile`)).body.custom_status).toBeNull();
  });

  test("invisible hides it from others, not from the user", async () => {
    const status = (await put(alice, { text: "Hidden" })).body;
    expect(await aliceSocket.emitWithAck("status:set", { status: "offline" })).toEqual({ ok: true, status: "offline" });
    expect((await get(mate, `/api/v1/users/${alice.id}`)).body).toMatchObject({ status: "offline", custom_status: null });
    const members = (await get(mate, `/api/v1/servers/${serverId}/members`)).body;
    expect(members.find((m: { user_id: string }) => m.user_id === alice.id)).toMatchObject({ status: "offline", custom_status: null });
    expect((await get(alice, `/api/v1/users/${alice.id}`)).body.custom_status).toEqual(status);
    expect((await get(alice, `/api/v1/servers/${serverId}/members/${alice.id}`)).body.custom_status).toEqual(status);
    expect((await get(alice, "/api/v1/users/me/info")).body.custom_status).toEqual(status);
    // Back online: announced with the custom status.
    const shown = waitForEvent(mateSocket, "user:status", { filter: (p: any) => aliceStatus(p) && p.status === "online" });
    await aliceSocket.emitWithAck("status:set", { status: "online" });
    expect(await shown).toEqual({ userId: alice.id, status: "online", customStatus: "Hidden", customStatusEmoji: null });
    expect((await get(mate, `/api/v1/users/${alice.id}`)).body.custom_status).toEqual(status);
  });
});

describe("user:status", () => {
  test("setting, changing and clearing reach a server-mate's socket", async () => {
    let next = waitForEvent(mateSocket, "user:status", { filter: aliceStatus });
    await put(alice, { text: "In a meeting", emoji: "📅" });
    expect(await next).toEqual({ userId: alice.id, status: "online", customStatus: "In a meeting", customStatusEmoji: "📅" });
    next = waitForEvent(mateSocket, "user:status", { filter: aliceStatus });
    await put(alice, { text: "Still in a meeting" });
    expect(await next).toEqual({ userId: alice.id, status: "online", customStatus: "Still in a meeting", customStatusEmoji: null });
    next = waitForEvent(mateSocket, "user:status", { filter: aliceStatus });
    const res = await clear(alice);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect(await next).toEqual({ userId: alice.id, status: "online", customStatus: null, customStatusEmoji: null });
    expect((await get(mate, `/api/v1/users/${alice.id}`)).body.custom_status).toBeNull();
    // Clearing again is no error and says nothing.
    const seen = recordEvents(mateSocket, "user:status");
    expect((await clear(alice)).status).toBe(200);
    await quietWindow();
    expect(seen.filter(aliceStatus)).toEqual([]);
  });

  test("nothing is announced while invisible", async () => {
    const hidden = waitForEvent(mateSocket, "user:status", { filter: aliceStatus });
    await aliceSocket.emitWithAck("status:set", { status: "offline" });
    expect(await hidden).toEqual({ userId: alice.id, status: "offline" });
    const seen = recordEvents(mateSocket, "user:status");
    await put(alice, { text: "Secret" });
    await clear(alice);
    await quietWindow();
    const shown = waitForEvent(mateSocket, "user:status", { filter: aliceStatus });
    await aliceSocket.emitWithAck("status:set", { status: "online" });
    expect(await shown).toEqual({ userId: alice.id, status: "online" });
    expect(seen.filter(aliceStatus)).toEqual([{ userId: alice.id, status: "online" }]);
  });

  test("the first socket going online announces it; the last going away says offline", async () => {
    const bob = await server.register();
    await addMember(server, serverId, bob);
    await put(bob, { text: "Back soon" });
    const online = waitForEvent(mateSocket, "user:status", { filter: (p: any) => p.userId === bob.id });
    const bobSocket = await server.connect(bob.token);
    expect(await online).toEqual({ userId: bob.id, status: "online", customStatus: "Back soon", customStatusEmoji: null });
    const offline = waitForEvent(mateSocket, "user:status", { filter: (p: any) => p.userId === bob.id });
    bobSocket.close();
    expect(await offline).toEqual({ userId: bob.id, status: "offline" });
    expect((await get(mate, `/api/v1/users/${bob.id}`)).body.custom_status).toBeNull();
  });
});

describe("expiry", () => {
  const now = () => Math.floor(Date.now() / 1000);

  test("a status past its time is never shown, even before the sweep", async () => {
    await server.app.store.users.setCustomStatus(alice.id, { text: "Old", emoji: null, expiresAt: now() - 5 });
    expect((await get(alice, "/api/v1/users/me/info")).body.custom_status).toBeNull();
    expect((await get(mate, `/api/v1/users/${alice.id}`)).body.custom_status).toBeNull();
    const members = (await get(mate, `/api/v1/servers/${serverId}/members`)).body;
    expect(members.find((m: { user_id: string }) => m.user_id === alice.id).custom_status).toBeNull();
  });

  test("the sweep clears expired rows once and announces them", async () => {
    await server.app.store.users.setCustomStatus(alice.id, { text: "Gone", emoji: null, expiresAt: now() - 1 });
    const cleared = waitForEvent(mateSocket, "user:status", { filter: aliceStatus });
    await server.app.domain.customStatuses.sweep();
    expect(await cleared).toEqual({ userId: alice.id, status: "online", customStatus: null, customStatusEmoji: null });
    const row = await server.app.store.users.findById(alice.id);
    expect([row!.custom_status_text, row!.custom_status_emoji, row!.custom_status_expires_at]).toEqual([null, null, null]);
    // A second sweep (another node's) finds nothing left to clear.
    expect(await server.app.store.users.clearExpiredCustomStatuses(now())).toEqual([]);
  });

  test("the timer clears it by itself, without a request", async () => {
    const at = now() + 1;
    await server.app.store.users.setCustomStatus(alice.id, { text: "Brief", emoji: null, expiresAt: at });
    const cleared = waitForEvent(mateSocket, "user:status", { filter: aliceStatus, timeout: 5000 });
    server.app.domain.customStatuses.watch(at);
    expect(await cleared).toEqual({ userId: alice.id, status: "online", customStatus: null, customStatusEmoji: null });
    expect((await get(alice, "/api/v1/users/me/info")).body.custom_status).toBeNull();
  });

  test("a status set through the route arms the timer for its expiry", async () => {
    await put(alice, { text: "Later", expires_in: 3600 });
    expect(await server.app.store.users.nextCustomStatusExpiry()).toBeGreaterThan(now() + 3500);
    await clear(alice);
  });
});
