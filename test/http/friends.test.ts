import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { TokenService } from "../../src/domain/accounts/tokens.ts";
import { jwtCodec } from "../../src/http/jwt-codec.ts";
import { recordEvents, startServer, waitForEvent, type TestServer, type TestUser, expectError } from "../helpers/server.ts";
import { eventually, quietWindow } from "../helpers/wait.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";
const FRIEND_KEYS = ["avatar", "custom_status", "is_bot", "since", "status", "user_id", "username"];
const REQUEST_KEYS = ["avatar", "created_at", "direction", "is_bot", "status", "user_id", "username"];
const PUBLIC_KEYS = ["avatar", "banner", "banner_offset", "bio", "created_at", "custom_status", "id", "is_bot", "status", "username"];
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A connected socket whose presence write (a round trip after the handshake, on PostgreSQL too) is done. */
async function connectOnline(user: TestUser) {
  const socket = await server.connect(user.token);
  await eventually(async () => (await server.app.store.users.findById(user.id))?.status === "online", "the presence write");
  return socket;
}

type Caller = TestUser | { token: string } | null;
const call = (method: string, path: string, user: Caller, body?: unknown) =>
  server.api(method, `/api/v1/friends${path}`, { token: user?.token, body });


/** A unique lowercase tag, so searches only see this test's users. */
const tag = () => `f${Math.random().toString(36).slice(2, 9)}`;

async function befriend(a: TestUser, b: TestUser) {
  expect((await call("POST", "/request", a, { username: b.username })).status).toBe(201);
  expect((await call("POST", `/accept/${a.id}`, b)).status).toBe(200);
}

/** A bot user straight through the store (applications are another feature), with a working token. */
async function createBot(name: string) {
  const created = await server.app.store.users.create({ username: name, email: null, passwordHash: null, isBot: true });
  if (!created.ok) throw new Error("bot create failed");
  const token = await new TokenService(jwtCodec(server.config.jwtSecret!), "30d").sign({ userId: created.user.id, version: 0 }, false);
  return { id: created.user.id, username: name, token };
}

describe("authentication", () => {
  test.each([
    ["GET", ""],
    ["GET", "/requests"],
    ["GET", "/search?q=abc"],
    ["POST", "/request"],
    ["POST", `/accept/${UNKNOWN}`],
    ["DELETE", `/${UNKNOWN}`],
  ])("%s %s without a token is 401", async (method, path) => {
    expectError(await call(method, path, null, method === "POST" ? { username: "whoever" } : undefined), 401, "Unauthorized");
    expectError(await call(method, path, { token: "not.a.jwt" }), 401, "Unauthorized");
  });

  test("an anonymous invalid body is 401, not 400", async () => {
    expectError(await call("POST", "/request", null, { username: 5 }), 401);
  });
});

describe("POST /api/v1/friends/request", () => {
  test("creates an outgoing request (case-insensitive name) and tells the target", async () => {
    const [alice, bob] = [await server.register(), await server.register()];
    const bobSocket = await connectOnline(bob);
    const heard = waitForEvent(bobSocket, "friend:request");
    const res = await call("POST", "/request", alice, { username: `  ${bob.username.toUpperCase()} ` });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(REQUEST_KEYS);
    // Bob is online, but a pending request shares no presence (docs/friends.md#presence).
    expect(res.body).toMatchObject({ user_id: bob.id, username: bob.username, avatar: null, status: "offline", is_bot: 0, direction: "outgoing" });
    expect(Math.abs(res.body.created_at - nowSeconds())).toBeLessThan(10);
    expect(await heard).toEqual({ from: { id: alice.id, username: alice.username, avatar: null } });

    const aliceSide = await call("GET", "/requests", alice);
    expect(aliceSide.status).toBe(200);
    expect(aliceSide.body).toEqual({ incoming: [], outgoing: [res.body] });
    const bobSide = await call("GET", "/requests", bob);
    expect(bobSide.body.outgoing).toEqual([]);
    expect(bobSide.body.incoming).toHaveLength(1);
    expect(Object.keys(bobSide.body.incoming[0]).sort()).toEqual(REQUEST_KEYS);
    expect(bobSide.body.incoming[0]).toMatchObject({ user_id: alice.id, username: alice.username, direction: "incoming", created_at: res.body.created_at });
    // Still pending: nobody is a friend yet.
    expect((await call("GET", "", alice)).body).toEqual([]);
    expect((await call("GET", "", bob)).body).toEqual([]);
    bobSocket.close();
  });

  test("refuses yourself (400), unknown users (404), bots (400) and repeats (409)", async () => {
    const [alice, bob] = [await server.register(), await server.register()];
    const bot = await createBot(`bot_${tag()}`);
    expectError(await call("POST", "/request", alice, { username: alice.username }), 400, "You cannot send a friend request to yourself");
    expectError(await call("POST", "/request", alice, { username: `${tag()}_nobody` }), 404, "User not found");
    expectError(await call("POST", "/request", alice, { username: bot.username }), 400, "Bots cannot be added as friends");
    expect((await call("POST", "/request", alice, { username: bob.username })).status).toBe(201);
    expectError(await call("POST", "/request", alice, { username: bob.username }), 409, "You already sent a friend request to this user");
    expect((await call("POST", `/accept/${alice.id}`, bob)).status).toBe(200);
    expectError(await call("POST", "/request", alice, { username: bob.username }), 409, "You are already friends with this user");
    expectError(await call("POST", "/request", bob, { username: alice.username }), 409, "You are already friends with this user");
  });

  test("validates the body", async () => {
    const alice = await server.register();
    expectError(await call("POST", "/request", alice, {}), 400, "username: is required");
    expectError(await call("POST", "/request", alice, { username: 5 }), 400, "username: must be a string");
    expectError(await call("POST", "/request", alice, { username: "x" }), 400, "username: must be 2-32 characters");
    expectError(await call("POST", "/request", alice, { username: "has space" }), 400);
    expectError(await call("POST", "/request", alice, []), 400, "body: must be a JSON object");
    const raw = await server.api("POST", "/api/v1/friends/request", {
      token: alice.token, raw: "{nope", headers: { "content-type": "application/json" },
    });
    expect(raw.status).toBe(400);
  });

  test("asking someone who already asked you accepts their request (200, the friend)", async () => {
    const [alice, bob] = [await server.register(), await server.register()];
    const aliceSocket = await connectOnline(alice);
    expect((await call("POST", "/request", alice, { username: bob.username })).status).toBe(201);
    const accepted = waitForEvent(aliceSocket, "friend:accepted");
    const res = await call("POST", "/request", bob, { username: alice.username });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(FRIEND_KEYS);
    expect(res.body).toMatchObject({ user_id: alice.id, username: alice.username, status: "online", is_bot: 0 });
    expect(await accepted).toEqual({ userId: bob.id, username: bob.username });
    expect((await call("GET", "", alice)).body.map((f: any) => f.user_id)).toEqual([bob.id]);
    expect((await call("GET", "/requests", bob)).body).toEqual({ incoming: [], outgoing: [] });
    aliceSocket.close();
  });

  test("a bot caller cannot make friends (403)", async () => {
    const bot = await createBot(`bot_${tag()}`);
    const alice = await server.register();
    expectError(await call("POST", "/request", bot, { username: alice.username }), 403, "Bots cannot have friends");
    expectError(await call("POST", `/accept/${alice.id}`, bot), 403, "Bots cannot have friends");
    expect((await call("GET", "", bot)).body).toEqual([]);
  });
});

describe("POST /api/v1/friends/accept/:friendId", () => {
  test("accepts an incoming request and tells the requester", async () => {
    const [alice, bob] = [await server.register(), await server.register()];
    const aliceSocket = await connectOnline(alice);
    await call("POST", "/request", alice, { username: bob.username });
    const accepted = waitForEvent(aliceSocket, "friend:accepted");
    const res = await call("POST", `/accept/${alice.id}`, bob);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(FRIEND_KEYS);
    expect(res.body).toMatchObject({ user_id: alice.id, username: alice.username, avatar: null, status: "online", is_bot: 0 });
    expect(Math.abs(res.body.since - nowSeconds())).toBeLessThan(10);
    expect(await accepted).toEqual({ userId: bob.id, username: bob.username });

    const aliceFriends = await call("GET", "", alice);
    expect(aliceFriends.status).toBe(200);
    expect(aliceFriends.body).toHaveLength(1);
    expect(Object.keys(aliceFriends.body[0]).sort()).toEqual(FRIEND_KEYS);
    expect(aliceFriends.body[0]).toMatchObject({ user_id: bob.id, username: bob.username, status: "offline", since: res.body.since });
    expect((await call("GET", "", bob)).body).toEqual([res.body]);
    expectError(await call("POST", `/accept/${alice.id}`, bob), 409, "You are already friends with this user");
    aliceSocket.close();
  });

  test("404 without a request or user, 400 for your own outgoing request", async () => {
    const [alice, bob, carol] = [await server.register(), await server.register(), await server.register()];
    await call("POST", "/request", alice, { username: bob.username });
    expectError(await call("POST", `/accept/${bob.id}`, alice), 400, "You cannot accept your own friend request");
    expectError(await call("POST", `/accept/${carol.id}`, alice), 404, "Friend request not found");
    expectError(await call("POST", `/accept/${UNKNOWN}`, alice), 404, "User not found");
    expectError(await call("POST", "/accept/not-a-uuid", alice), 404, "User not found");
    expectError(await call("POST", `/accept/${alice.id}`, alice), 404);
  });

  test("the friends list is sorted by name", async () => {
    const t = tag();
    const me = await server.register(`${t}_me`);
    const zed = await server.register(`${t}_Zed`);
    const amy = await server.register(`${t}_amy`);
    await befriend(me, zed);
    await befriend(amy, me);
    expect((await call("GET", "", me)).body.map((f: any) => f.username)).toEqual([amy.username, zed.username]);
  });
});

describe("DELETE /api/v1/friends/:friendId", () => {
  test("removes a friend on both sides and tells the other", async () => {
    const [alice, bob] = [await server.register(), await server.register()];
    await befriend(alice, bob);
    const bobSocket = await server.connect(bob.token);
    const removed = waitForEvent(bobSocket, "friend:removed");
    const res = await call("DELETE", `/${bob.id}`, alice);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect(await removed).toEqual({ userId: alice.id });
    expect((await call("GET", "", alice)).body).toEqual([]);
    expect((await call("GET", "", bob)).body).toEqual([]);
    expectError(await call("DELETE", `/${bob.id}`, alice), 404, "Friend or friend request not found");
    bobSocket.close();
  });

  test("cancels an outgoing request and rejects an incoming one", async () => {
    const [alice, bob, carol] = [await server.register(), await server.register(), await server.register()];
    const bobSocket = await server.connect(bob.token);
    const aliceSocket = await server.connect(alice.token);
    await call("POST", "/request", alice, { username: bob.username });
    const cancelled = waitForEvent(bobSocket, "friend:removed");
    expect((await call("DELETE", `/${bob.id}`, alice)).status).toBe(200);
    expect(await cancelled).toEqual({ userId: alice.id });
    expect((await call("GET", "/requests", bob)).body).toEqual({ incoming: [], outgoing: [] });

    await call("POST", "/request", alice, { username: carol.username });
    await call("POST", "/request", bob, { username: alice.username });
    const rejected = waitForEvent(bobSocket, "friend:removed");
    expect((await call("DELETE", `/${bob.id}`, alice)).status).toBe(200);
    expect(await rejected).toEqual({ userId: alice.id });
    const left = await call("GET", "/requests", alice);
    expect(left.body.incoming).toEqual([]);
    expect(left.body.outgoing.map((r: any) => r.user_id)).toEqual([carol.id]);
    // After a rejection, a fresh request works again.
    expect((await call("POST", "/request", bob, { username: alice.username })).status).toBe(201);
    for (const s of [bobSocket, aliceSocket]) s.close();
  });

  test("404 for unknown users, non-UUIDs and strangers", async () => {
    const [alice, stranger] = [await server.register(), await server.register()];
    expectError(await call("DELETE", `/${UNKNOWN}`, alice), 404, "User not found");
    expectError(await call("DELETE", "/not-a-uuid", alice), 404, "User not found");
    expectError(await call("DELETE", `/${stranger.id}`, alice), 404, "Friend or friend request not found");
  });
});

describe("GET /api/v1/friends/search", () => {
  test("finds the user whose whole username is q, any case, with the caller's relationship", async () => {
    const t = tag();
    const me = await server.register(`${t}_me`);
    const friend = await server.register(`${t}_friend`);
    const incoming = await server.register(`${t}_incoming`);
    const outgoing = await server.register(`${t}_outgoing`);
    const none = await server.register(`x${t}_none`);
    await befriend(me, friend);
    await call("POST", "/request", incoming, { username: me.username });
    await call("POST", "/request", me, { username: outgoing.username });

    const found = async (q: string) => (await call("GET", `/search?q=${q}`, me)).body.map((u: any) => [u.username, u.relationship]);
    const res = await call("GET", `/search?q=${friend.username.toUpperCase()}`, me);
    expect(res.status).toBe(200);
    for (const entry of res.body) expect(Object.keys(entry).sort()).toEqual([...PUBLIC_KEYS, "relationship"].sort());
    expect(res.body).toEqual([{ ...(await server.api("GET", `/api/v1/users/${friend.id}`, { token: me.token })).body, relationship: "friend" }]);
    expect(await found(incoming.username)).toEqual([[incoming.username, "incoming"]]);
    expect(await found(outgoing.username)).toEqual([[outgoing.username, "outgoing"]]);
    expect(await found(` ${none.username.toUpperCase()} `)).toEqual([[none.username, "none"]]);
    // Part of a name finds nobody (issue 39: a search is not a way to list accounts).
    expect(await found(t)).toEqual([]);
    expect(await found(`${t}_inc`)).toEqual([]);
    expect(await found(`${t}_nothing`)).toEqual([]);
  });

  test("leaves out the caller and bots", async () => {
    const t = tag();
    const me = await server.register(`${t}_me`);
    await createBot(`${t}_bot`);
    expect((await call("GET", `/search?q=${me.username}`, me)).body).toEqual([]);
    expect((await call("GET", `/search?q=${t}_bot`, me)).body).toEqual([]);
  });

  test("q is required, 1-32 characters", async () => {
    const me = await server.register();
    expectError(await call("GET", "/search", me), 400, "q: is required");
    expectError(await call("GET", "/search?q=", me), 400, "q: must be 1-32 characters");
    expectError(await call("GET", "/search?q=%20%20", me), 400, "q: must be 1-32 characters");
    expectError(await call("GET", `/search?q=${"a".repeat(33)}`, me), 400, "q: must be 1-32 characters");
    expect((await call("GET", `/search?q=${"a".repeat(32)}`, me)).status).toBe(200);
    // Characters that mean something to LIKE are plain text here.
    expect((await call("GET", "/search?q=%25", me)).body).toEqual([]);
  });
});

describe("presence between friends", () => {
  test("a friend's user:status reaches you after acceptance, and not before or after removal", async () => {
    const [alice, bob] = [await server.register(), await server.register()];
    const aliceSocket = await server.connect(alice.token);
    const seen = recordEvents(aliceSocket, "user:status");
    const bobSocket = await server.connect(bob.token);
    expect(await bobSocket.emitWithAck("status:set", { status: "idle" })).toEqual({ ok: true, status: "idle" });
    await call("POST", "/request", bob, { username: alice.username });
    await bobSocket.emitWithAck("status:set", { status: "online" });

    await call("POST", `/accept/${bob.id}`, alice);
    const dnd = waitForEvent(aliceSocket, "user:status", { filter: (p) => p.userId === bob.id });
    await bobSocket.emitWithAck("status:set", { status: "dnd" });
    expect(await dnd).toEqual({ userId: bob.id, status: "dnd" });
    // In order on Alice's socket: a status from before the acceptance would have come first.
    expect(seen.filter((p) => p.userId === bob.id)).toEqual([{ userId: bob.id, status: "dnd" }]);
    const offline = waitForEvent(aliceSocket, "user:status", { filter: (p) => p.userId === bob.id && p.status === "offline" });
    bobSocket.close();
    await offline;
    const bobBack = await server.connect(bob.token);
    // And the other way round: Bob hears Alice.
    const aliceIdle = waitForEvent(bobBack, "user:status", { filter: (p) => p.userId === alice.id });
    await aliceSocket.emitWithAck("status:set", { status: "idle" });
    expect(await aliceIdle).toEqual({ userId: alice.id, status: "idle" });

    await call("DELETE", `/${alice.id}`, bob);
    seen.length = 0;
    await bobBack.emitWithAck("status:set", { status: "idle" });
    await quietWindow();
    expect(seen.filter((p) => p.userId === bob.id)).toEqual([]);
    for (const s of [aliceSocket, bobBack]) s.close();
  });
});

describe("mutual_friends on /users/:id/profile", () => {
  test("lists the friends the viewer and the user share, and none on your own profile", async () => {
    const t = tag();
    const viewer = await server.register(`${t}_viewer`);
    const target = await server.register(`${t}_target`);
    const [carol, dave, erin] = [await server.register(`${t}_carol`), await server.register(`${t}_dave`), await server.register(`${t}_erin`)];
    await befriend(viewer, carol);
    await befriend(dave, viewer);
    await befriend(target, carol);
    await befriend(target, dave);
    await befriend(target, erin);
    await call("POST", "/request", viewer, { username: erin.username }); // pending: not a friend yet

    const profile = async (of: TestUser, by: TestUser) =>
      (await server.api("GET", `/api/v1/users/${of.id}/profile`, { token: by.token })).body;
    expect((await profile(target, viewer)).mutual_friends).toEqual([
      { id: carol.id, username: carol.username, avatar: null },
      { id: dave.id, username: dave.username, avatar: null },
    ]);
    expect((await profile(viewer, target)).mutual_friends.map((f: any) => f.id)).toEqual([carol.id, dave.id]);
    expect((await profile(viewer, viewer)).mutual_friends).toEqual([]);
    expect((await profile(erin, viewer)).mutual_friends).toEqual([]);
  });
});
