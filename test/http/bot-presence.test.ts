import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createBot, type TestBot } from "../helpers/bots.ts";
import { createServer } from "../helpers/community.ts";
import { recordEvents, startServer, waitForEvent, type ClientSocket, type TestServer, type TestUser } from "../helpers/server.ts";
import { eventually, quietWindow, until } from "../helpers/wait.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const BOT = "/api/v1/oauth2/bot";
const PUBLIC_USER_KEYS = ["avatar", "banner", "banner_offset", "bio", "created_at", "custom_status", "id", "is_bot", "status", "username"];

const call = (method: string, path: string, token: string | null, body?: unknown) => server.api(method, `${BOT}${path}`, { token, body });
const setPresence = (bot: TestBot, body: unknown) => call("PUT", "/presence", bot.token, body);
const userOf = (viewer: TestBot, userId: string) => call("GET", `/users/${userId}`, viewer.token);

/** An owner watching their server's room, the bot in that server, and a second bot that looks people up. */
async function setup() {
  const owner = await server.register();
  const serverId = await createServer(server, owner);
  const bot = await createBot(server, owner);
  const viewer = await createBot(server, owner);
  const added = await server.api("POST", `/api/v1/oauth2/applications/${bot.appId}/servers/${serverId}`, { token: owner.token, body: {} });
  expect(added.status).toBeLessThan(300);
  const watcher = await server.connect(owner.token);
  expect(await watcher.emitWithAck("server:join", serverId)).toMatchObject({ ok: true });
  return { owner, serverId, bot, viewer, watcher };
}

const statusOf = (socket: ClientSocket, userId: string, status?: string) =>
  waitForEvent(socket, "user:status", { filter: (p: any) => p.userId === userId && (status === undefined || p.status === status) });

/** Connects the bot and waits until the watcher hears it come online. */
async function connectSeen(bot: TestBot, watcher: ClientSocket): Promise<ClientSocket> {
  const online = statusOf(watcher, bot.botUserId, "online");
  const socket = await server.connect(bot.token);
  await online;
  return socket;
}

const PLAYING = { type: "playing", name: "Chess", details: "Ranked", state: "Move 12", started_at: 1_700_000_000 };

describe("bot presence: online while connected, offline within 3 s of its socket closing", () => {
  test("a bot starts offline, is online while connected, and offline soon after its last socket closes", async () => {
    const { bot, viewer, watcher } = await setup();
    expect((await userOf(viewer, bot.botUserId)).body.status).toBe("offline");
    const online = statusOf(watcher, bot.botUserId, "online");
    const socket = await server.connect(bot.token);
    expect(await online).toEqual({ userId: bot.botUserId, status: "online" });
    expect((await userOf(viewer, bot.botUserId)).body).toMatchObject({ status: "online", activity: null });
    const started = Date.now();
    const offline = statusOf(watcher, bot.botUserId, "offline");
    socket.close();
    expect(await offline).toEqual({ userId: bot.botUserId, status: "offline" });
    expect(Date.now() - started).toBeLessThan(3000);
    expect((await userOf(viewer, bot.botUserId)).body).toMatchObject({ status: "offline", activity: null });
    watcher.close();
  });
});

describe("PUT /presence", () => {
  test("sets status and activity: user:status to the audience, the activity on GET /users/:userId", async () => {
    const { bot, viewer, watcher } = await setup();
    const socket = await connectSeen(bot, watcher);
    const heard = statusOf(watcher, bot.botUserId, "dnd");
    const res = await setPresence(bot, { status: "dnd", activity: PLAYING });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "dnd", activity: PLAYING });
    expect(await heard).toEqual({ userId: bot.botUserId, status: "dnd", customStatus: null });
    const seen = await userOf(viewer, bot.botUserId);
    expect(seen.status).toBe(200);
    expect(Object.keys(seen.body).sort()).toEqual([...PUBLIC_USER_KEYS, "activity"].sort());
    expect(seen.body).toMatchObject({ id: bot.botUserId, username: bot.name, is_bot: 1, status: "dnd", activity: PLAYING });
    // The bot sees its own activity too; the shared user route is unchanged (no activity there).
    expect((await userOf(bot, bot.botUserId)).body.activity).toEqual(PLAYING);
    socket.close();
    watcher.close();
  });

  test("a custom activity travels as customStatus (its state, else its name); null clears; absent keeps", async () => {
    const { bot, viewer, watcher } = await setup();
    const socket = await connectSeen(bot, watcher);
    const events = recordEvents(watcher, "user:status");

    const custom = { type: "custom", name: "Custom Status", state: "Feeding the fire" };
    expect((await setPresence(bot, { status: "online", activity: custom })).body).toEqual({ status: "online", activity: custom });
    await setPresence(bot, { status: "online", activity: { type: "custom", name: "just a name" } });
    // Absent: the status changes, the activity stays.
    expect((await setPresence(bot, { status: "idle" })).body).toEqual({ status: "idle", activity: { type: "custom", name: "just a name" } });
    expect((await userOf(viewer, bot.botUserId)).body.activity).toEqual({ type: "custom", name: "just a name" });
    // Null: cleared.
    expect((await setPresence(bot, { status: "idle", activity: null })).body).toEqual({ status: "idle", activity: null });
    expect((await userOf(viewer, bot.botUserId)).body).toMatchObject({ status: "idle", activity: null });
    await until(() => events.length >= 4, "a user:status for each change");
    expect(events).toEqual([
      { userId: bot.botUserId, status: "online", customStatus: "Feeding the fire" },
      { userId: bot.botUserId, status: "online", customStatus: "just a name" },
      { userId: bot.botUserId, status: "idle", customStatus: "just a name" },
      { userId: bot.botUserId, status: "idle", customStatus: null },
    ]);
    socket.close();
    watcher.close();
  });

  test("invisible (offline while connected) hides the activity; it shows again when visible", async () => {
    const { bot, viewer, watcher } = await setup();
    const socket = await connectSeen(bot, watcher);
    await setPresence(bot, { status: "online", activity: PLAYING });
    const hidden = statusOf(watcher, bot.botUserId, "offline");
    expect((await setPresence(bot, { status: "offline" })).body).toEqual({ status: "offline", activity: PLAYING });
    expect(await hidden).toEqual({ userId: bot.botUserId, status: "offline", customStatus: null });
    expect((await userOf(viewer, bot.botUserId)).body).toMatchObject({ status: "offline", activity: null });
    await setPresence(bot, { status: "online" });
    expect((await userOf(viewer, bot.botUserId)).body).toMatchObject({ status: "online", activity: PLAYING });
    socket.close();
    watcher.close();
  });

  test("the activity is cleared when the last socket closes, and must be sent again after reconnecting", async () => {
    const { bot, viewer, watcher } = await setup();
    const online = statusOf(watcher, bot.botUserId, "online");
    const first = await server.connect(bot.token);
    const second = await server.connect(bot.token);
    await online;
    await setPresence(bot, { status: "online", activity: PLAYING });
    // One socket of two closes: still connected, activity kept.
    first.close();
    await eventually(async () => (await server.app.io.in(`user:${bot.botUserId}`).fetchSockets()).length === 1, "the server to see the first socket close");
    expect((await userOf(viewer, bot.botUserId)).body).toMatchObject({ status: "online", activity: PLAYING });
    const offline = statusOf(watcher, bot.botUserId, "offline");
    second.close();
    await offline;
    expect((await userOf(viewer, bot.botUserId)).body).toMatchObject({ status: "offline", activity: null });
    const onlineAgain = statusOf(watcher, bot.botUserId, "online");
    const again = await server.connect(bot.token);
    await onlineAgain;
    expect((await userOf(viewer, bot.botUserId)).body).toMatchObject({ status: "online", activity: null });
    await setPresence(bot, { status: "online", activity: PLAYING });
    expect((await userOf(viewer, bot.botUserId)).body.activity).toEqual(PLAYING);
    again.close();
    watcher.close();
  });

  test("a bot that is not connected: the status is remembered for its next connection, the activity is dropped", async () => {
    const { bot, viewer, watcher } = await setup();
    const events = recordEvents(watcher, "user:status");
    const res = await setPresence(bot, { status: "idle", activity: PLAYING });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "offline", activity: null });
    await quietWindow();
    // Nothing about the bot (the watcher's own "online" may still be on its way: its presence is written after it connects).
    expect(events.filter((event) => event.userId === bot.botUserId)).toEqual([]);
    const idle = statusOf(watcher, bot.botUserId, "idle");
    const socket = await server.connect(bot.token);
    expect(await idle).toEqual({ userId: bot.botUserId, status: "idle" });
    expect((await userOf(viewer, bot.botUserId)).body).toMatchObject({ status: "idle", activity: null });
    socket.close();
    watcher.close();
  });

  test("bad bodies are 400 naming the field", async () => {
    const { bot } = await setup();
    const long = "x".repeat(129);
    const cases: [unknown, string?][] = [
      [{}, "status: is required"],
      [{ status: "away" }, "status: must be one of online, idle, dnd, offline"],
      [{ status: "online", activity: "Chess" }, "activity: must be an object or null"],
      [{ status: "online", activity: { type: "streaming", name: "x" } }, "activity.type: must be one of playing, listening, watching, competing, custom"],
      [{ status: "online", activity: { type: "playing" } }],
      [{ status: "online", activity: { type: "playing", name: "" } }],
      [{ status: "online", activity: { type: "playing", name: long } }],
      [{ status: "online", activity: { type: "playing", name: "x", details: long } }],
      [{ status: "online", activity: { type: "playing", name: "x", state: long } }],
      [{ status: "online", activity: { type: "playing", name: "x", state: 5 } }],
      [{ status: "online", activity: { type: "playing", name: "x", started_at: -1 } }],
      [{ status: "online", activity: { type: "playing", name: "x", started_at: 1.5 } }],
      [{ status: "online", activity: { type: "playing", name: "x", started_at: "2024" } }],
    ];
    for (const [body, error] of cases) {
      const res = await setPresence(bot, body);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
      expect(Object.keys(res.body)).toEqual(["error"]);
      if (error) expect(res.body.error).toBe(error);
    }
  });
});

describe("GET /users/:userId", () => {
  test("the public user plus activity (null for a user without one)", async () => {
    const owner: TestUser = await server.register();
    const bot = await createBot(server, owner);
    const res = await userOf(bot, owner.id);
    expect(res.status).toBe(200);
    const publicUser = await server.api("GET", `/api/v1/users/${owner.id}`, { token: owner.token });
    expect(res.body).toEqual({ ...publicUser.body, activity: null });
  });
});
