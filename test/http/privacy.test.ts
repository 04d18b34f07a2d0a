import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addBot } from "../helpers/bots.ts";
import { addMember, community, createServer } from "../helpers/community.ts";
import { recordEvents, startServer, waitForEvent, type TestServer, type TestUser, expectError } from "../helpers/server.ts";
import { quietWindow } from "../helpers/wait.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const DEFAULTS = { dms_from: "server_members", friend_requests_from: "everyone" };
const FRIENDS_ONLY = "This user only accepts direct messages from friends";
const CANNOT_MESSAGE = "You can only message users who share a server with you or are your friends";
const NOBODY = "This user is not accepting friend requests";
const MUTUAL = "This user only accepts friend requests from people they share a server or a friend with";

const privacy = (method: "GET" | "PATCH", user: { token: string } | null, body?: unknown) =>
  server.api(method, "/api/v1/users/me/privacy", { token: user?.token, body });
const api = (method: string, path: string, user: { token: string }, body?: unknown) => server.api(method, `/api/v1${path}`, { token: user.token, body });

async function setPrivacy(user: TestUser, body: Record<string, string>) {
  const res = await privacy("PATCH", user, body);
  expect(res.status).toBe(200);
}

async function befriend(a: TestUser, b: TestUser) {
  expect((await api("POST", "/friends/request", a, { username: b.username })).status).toBe(201);
  expect((await api("POST", `/friends/accept/${a.id}`, b)).status).toBe(200);
}

/** Two users in one server, neither friends nor in another server. */
async function serverMates() {
  const c = await community(server);
  return { ...c, stranger: c.member, target: c.owner };
}

describe("GET and PATCH /api/v1/users/me/privacy", () => {
  test("a new account has the defaults, today's rules", async () => {
    const user = await server.register();
    const res = await privacy("GET", user);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(DEFAULTS);
  });

  test("PATCH changes only the fields it names and answers the whole settings, which persist", async () => {
    const user = await server.register();
    const first = await privacy("PATCH", user, { dms_from: "friends" });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ dms_from: "friends", friend_requests_from: "everyone" });
    const second = await privacy("PATCH", user, { friend_requests_from: "mutual" });
    expect(second.body).toEqual({ dms_from: "friends", friend_requests_from: "mutual" });
    expect((await privacy("PATCH", user, {})).body).toEqual({ dms_from: "friends", friend_requests_from: "mutual" });
    expect((await privacy("GET", user)).body).toEqual({ dms_from: "friends", friend_requests_from: "mutual" });
    // Another account's settings are its own.
    expect((await privacy("GET", await server.register())).body).toEqual(DEFAULTS);
    const back = await privacy("PATCH", user, { dms_from: "server_members", friend_requests_from: "nobody" });
    expect(back.body).toEqual({ dms_from: "server_members", friend_requests_from: "nobody" });
  });

  test("401 without a valid token, before the body is read", async () => {
    expectError(await privacy("GET", null), 401, "Unauthorized");
    expectError(await privacy("PATCH", null, { dms_from: "friends" }), 401, "Unauthorized");
    expectError(await privacy("PATCH", { token: "not.a.jwt" }, { dms_from: "nope" }), 401, "Unauthorized");
  });

  test("400 on unknown values or a body that is not an object; nothing is changed", async () => {
    const user = await server.register();
    expectError(await privacy("PATCH", user, { dms_from: "everyone" }), 400, "dms_from: must be one of server_members, friends");
    expectError(await privacy("PATCH", user, { friend_requests_from: "friends" }), 400, "friend_requests_from: must be one of everyone, mutual, nobody");
    expectError(await privacy("PATCH", user, { dms_from: "friends", friend_requests_from: 3 }), 400, /^friend_requests_from: /);
    expectError(await privacy("PATCH", user, ["friends"]), 400, /must be a JSON object/);
    expect((await privacy("GET", user)).body).toEqual(DEFAULTS);
  });
});

describe("dms_from", () => {
  test("opening a DM: friends-only refuses a server mate, admits a friend; the default admits both", async () => {
    const { stranger, target } = await serverMates();
    expect((await api("POST", `/dm/channels/${target.id}`, stranger)).status).toBe(201);

    const { stranger: other, target: picky } = await serverMates();
    await setPrivacy(picky, { dms_from: "friends" });
    expectError(await api("POST", `/dm/channels/${picky.id}`, other), 403, FRIENDS_ONLY);
    expectError(await api("POST", `/dm/${picky.id}/messages`, other, { content: "hi" }), 403, FRIENDS_ONLY);
    expect(await api("GET", "/dm/channels", picky)).toMatchObject({ status: 200, body: [] });

    const friend = await server.register();
    await befriend(friend, picky);
    expect((await api("POST", `/dm/channels/${picky.id}`, friend)).status).toBe(201);
    expect((await api("POST", `/dm/${picky.id}/messages`, friend, { content: "hi" })).status).toBe(201);
  });

  test("someone sharing no server hears the general refusal, not the setting", async () => {
    const [stranger, picky] = [await server.register(), await server.register()];
    await setPrivacy(picky, { dms_from: "friends" });
    expectError(await api("POST", `/dm/channels/${picky.id}`, stranger), 403, CANNOT_MESSAGE);
  });

  test("the choice applies to an existing conversation: the stranger can no longer send, the other way still can", async () => {
    const { stranger, target } = await serverMates();
    expect((await api("POST", `/dm/${target.id}/messages`, stranger, { content: "before" })).status).toBe(201);
    await setPrivacy(target, { dms_from: "friends" });
    const socket = await server.connect(target.token);
    const heard = recordEvents(socket, "dm:new");
    expectError(await api("POST", `/dm/${target.id}/messages`, stranger, { content: "after" }), 403, FRIENDS_ONLY);
    // Calling is messaging: the stranger cannot ring them either.
    const caller = await server.connect(stranger.token);
    const dmId = (await api("POST", `/dm/channels/${target.id}`, stranger)).body.id;
    expect(await caller.emitWithAck("dm:call-start", { conversationId: dmId })).toEqual({ ok: false, error: FRIENDS_ONLY });
    // The conversation stays, with its history, and opening it answers it as before.
    const opened = await api("POST", `/dm/channels/${target.id}`, stranger);
    expect(opened.status).toBe(200);
    expect((await api("GET", `/dm/${target.id}/messages`, stranger)).body.map((m: { content: string }) => m.content)).toEqual(["before"]);
    // The one who chose friends-only may still write to the stranger, whose setting is the default.
    const strangerSocket = await server.connect(stranger.token);
    const reply = waitForEvent(strangerSocket, "dm:new");
    expect((await api("POST", `/dm/${stranger.id}/messages`, target, { content: "from me" })).status).toBe(201);
    expect(await reply).toMatchObject({ content: "from me" });
    await quietWindow();
    expect(heard.map((m) => m.content)).toEqual(["from me"]);
    // Back to the default: the stranger may write again.
    await setPrivacy(target, { dms_from: "server_members" });
    expect((await api("POST", `/dm/${target.id}/messages`, stranger, { content: "again" })).status).toBe(201);
  });

  test("a bot (never a friend) follows it through the Bot REST DM route", async () => {
    const c = await community(server);
    const bot = await addBot(server, c.owner, c.serverId);
    const dm = (user: TestUser) => server.api("POST", `/api/v1/oauth2/bot/dm/${user.id}`, { token: bot.token, body: { content: "beep" } });
    expect((await dm(c.member)).status).toBe(201);
    await setPrivacy(c.member, { dms_from: "friends" });
    expectError(await dm(c.member), 403, FRIENDS_ONLY);
    await setPrivacy(c.owner, { dms_from: "friends" });
    expectError(await dm(c.owner), 403, FRIENDS_ONLY);
  });

  test("creating a group DM or adding to one follows each added user's setting for the one adding them", async () => {
    const c = await community(server, { extraMembers: 2 });
    const [adder, open, picky] = [c.owner, c.members[0]!, c.members[1]!];
    const third = c.members[2]!;
    await setPrivacy(picky, { dms_from: "friends" });
    expectError(await api("POST", "/dm/groups", adder, { member_ids: [open.id, picky.id] }), 403, FRIENDS_ONLY);
    const group = await api("POST", "/dm/groups", adder, { member_ids: [open.id, third.id] });
    expect(group.status).toBe(201);
    expectError(await api("POST", `/dm/groups/${group.body.id}/members`, adder, { user_id: picky.id }), 403, FRIENDS_ONLY);
    // A friend of the picky user may add them.
    await befriend(open, picky);
    const added = await api("POST", `/dm/groups/${group.body.id}/members`, open, { user_id: picky.id });
    expect(added.status).toBe(200);
    expect(added.body.recipients.map((r: { id: string }) => r.id)).toContain(picky.id);
  });
});

describe("friend_requests_from", () => {
  const request = (from: TestUser, to: TestUser) => api("POST", "/friends/request", from, { username: to.username });

  test("everyone (the default) admits a stranger", async () => {
    const [a, b] = [await server.register(), await server.register()];
    expect((await request(a, b)).status).toBe(201);
  });

  test("nobody refuses everyone, a server mate included, and tells them nothing", async () => {
    const { stranger, target } = await serverMates();
    await setPrivacy(target, { friend_requests_from: "nobody" });
    const socket = await server.connect(target.token);
    const heard = recordEvents(socket, "friend:request");
    expectError(await request(stranger, target), 403, NOBODY);
    expectError(await request(await server.register(), target), 403, NOBODY);
    await quietWindow();
    expect(heard).toEqual([]);
    expect((await api("GET", "/friends/requests", target)).body).toEqual({ incoming: [], outgoing: [] });
  });

  test("nobody still lets the user's own request be accepted by asking back", async () => {
    const [a, b] = [await server.register(), await server.register()];
    expect((await request(b, a)).status).toBe(201);
    await setPrivacy(b, { friend_requests_from: "nobody" });
    const accepted = await request(a, b);
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ user_id: b.id });
    // Already friends: the conflict, not the setting.
    expectError(await request(a, b), 409, "You are already friends with this user");
  });

  test("mutual admits a server mate and a friend of a friend, and refuses anyone else", async () => {
    const { stranger: mate, target } = await serverMates();
    await setPrivacy(target, { friend_requests_from: "mutual" });
    expect((await request(mate, target)).status).toBe(201);

    const [goBetween, friendOfFriend, nobody] = [await server.register(), await server.register(), await server.register()];
    await befriend(target, goBetween);
    await befriend(goBetween, friendOfFriend);
    expect((await request(friendOfFriend, target)).status).toBe(201);
    expectError(await request(nobody, target), 403, MUTUAL);

    // Sharing a server made later is enough.
    const serverId = await createServer(server, nobody, "Later");
    await addMember(server, serverId, target);
    expect((await request(nobody, target)).status).toBe(201);
  });
});
