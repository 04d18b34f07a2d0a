/**
 * Presence privacy (issue 39, point 8; docs/users.md#presence-privacy): a user's status and
 * activity are shown to themselves, their accepted friends and the people they share a server
 * with; everyone else sees `offline` and no activity, wherever a user object with a status
 * reaches them. The friend search takes a whole username, so it cannot list accounts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addBot, createBot } from "../helpers/bots.ts";
import { addMember, createServer } from "../helpers/community.ts";
import { startServer, type ClientSocket, type TestServer, type TestUser } from "../helpers/server.ts";
import { eventually } from "../helpers/wait.ts";

let server: TestServer;
/** Online, and `dnd` so that a leak cannot pass for a default. */
let alice: TestUser;
let aliceSocket: ClientSocket;
let friend: TestUser;
let mate: TestUser;
let stranger: TestUser;
let serverId: string;
beforeAll(async () => {
  server = await startServer();
  [alice, friend, mate, stranger] = [await server.register(), await server.register(), await server.register(), await server.register()];
  expect((await server.api("POST", "/api/v1/friends/request", { token: friend.token, body: { username: alice.username } })).status).toBe(201);
  expect((await server.api("POST", `/api/v1/friends/accept/${friend.id}`, { token: alice.token })).status).toBe(200);
  serverId = await createServer(server, alice);
  await addMember(server, serverId, mate);
  aliceSocket = await server.connect(alice.token);
  expect(await aliceSocket.emitWithAck("status:set", { status: "dnd" })).toEqual({ ok: true, status: "dnd" });
});
afterAll(async () => {
  aliceSocket.close();
  await server.stop();
});

const get = (viewer: TestUser, path: string) => server.api("GET", path, { token: viewer.token });

describe("GET /api/v1/users/:id and /profile", () => {
  test("a stranger sees offline", async () => {
    expect((await get(stranger, `/api/v1/users/${alice.id}`)).body).toMatchObject({ id: alice.id, status: "offline" });
    expect((await get(stranger, `/api/v1/users/${alice.id}/profile`)).body).toMatchObject({ id: alice.id, status: "offline" });
  });

  test("a friend, a server-mate and the user themselves see the real status", async () => {
    for (const viewer of [friend, mate, alice]) {
      expect((await get(viewer, `/api/v1/users/${alice.id}`)).body.status).toBe("dnd");
      expect((await get(viewer, `/api/v1/users/${alice.id}/profile`)).body.status).toBe("dnd");
    }
  });

  test("leaving the last shared server hides it again, at once", async () => {
    const leaver = await server.register();
    await addMember(server, serverId, leaver);
    expect((await get(leaver, `/api/v1/users/${alice.id}`)).body.status).toBe("dnd");
    await server.app.store.members.remove(serverId, leaver.id);
    expect((await get(leaver, `/api/v1/users/${alice.id}`)).body.status).toBe("offline");
  });
});

describe("GET /api/v1/friends/search", () => {
  test("the attack: one- and two-letter queries list nobody", async () => {
    for (const q of ["a", "e", "u", "us", "se", alice.username.slice(0, 2), alice.username.slice(0, -1)]) {
      const res = await get(stranger, `/api/v1/friends/search?q=${encodeURIComponent(q)}`);
      expect({ q, status: res.status, body: res.body }).toEqual({ q, status: 200, body: [] });
    }
  });

  test("a whole username, in any case, finds that one user; a stranger sees them offline", async () => {
    const res = await get(stranger, `/api/v1/friends/search?q=${alice.username.toUpperCase()}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([{ ...(await get(stranger, `/api/v1/users/${alice.id}`)).body, relationship: "none" }]);
    expect(res.body[0].status).toBe("offline");
  });

  test("a friend finds them with their presence", async () => {
    expect((await get(friend, `/api/v1/friends/search?q=${alice.username}`)).body).toMatchObject([{ id: alice.id, status: "dnd", relationship: "friend" }]);
  });
});

describe("friend requests", () => {
  test("a pending request does not share presence, either way", async () => {
    const asker = await server.register();
    const sent = await server.api("POST", "/api/v1/friends/request", { token: asker.token, body: { username: alice.username } });
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({ user_id: alice.id, direction: "outgoing", status: "offline" });
    expect((await get(asker, "/api/v1/friends/requests")).body.outgoing).toMatchObject([{ user_id: alice.id, status: "offline" }]);
    // Alice, asked by a connected stranger, does not see the stranger's status either.
    const askerSocket = await server.connect(asker.token);
    try {
      await eventually(async () => (await server.app.store.users.findById(asker.id))?.status === "online", "the asker's presence write");
      expect((await get(alice, "/api/v1/friends/requests")).body.incoming).toMatchObject([{ user_id: asker.id, status: "offline" }]);
    } finally {
      askerSocket.close();
    }
  });

  test("a pending request from a server-mate shows their presence (they share a server)", async () => {
    const colleague = await server.register();
    await addMember(server, serverId, colleague);
    expect((await server.api("POST", "/api/v1/friends/request", { token: colleague.token, body: { username: alice.username } })).body).toMatchObject({ status: "dnd" });
    expect((await get(colleague, "/api/v1/friends/requests")).body.outgoing).toMatchObject([{ user_id: alice.id, status: "dnd" }]);
  });

  test("accepted friends see each other in GET /friends", async () => {
    expect((await get(friend, "/api/v1/friends")).body).toMatchObject([{ user_id: alice.id, status: "dnd" }]);
  });
});

describe("DM recipients", () => {
  test("a DM partner who no longer shares a server and is not a friend sees offline; a server-mate sees the status", async () => {
    const partner = await server.register();
    await addMember(server, serverId, partner);
    expect((await server.api("POST", `/api/v1/dm/channels/${alice.id}`, { token: partner.token })).status).toBe(201);
    const recipientStatus = async () => {
      const list = await get(partner, "/api/v1/dm/channels");
      return list.body.flatMap((c: any) => c.recipients).find((r: any) => r.id === alice.id)?.status;
    };
    expect(await recipientStatus()).toBe("dnd");
    await server.app.store.members.remove(serverId, partner.id);
    expect(await recipientStatus()).toBe("offline");
  });
});

describe("Bot REST GET /api/v1/oauth2/bot/users/:userId", () => {
  test("a bot outside every server of the user sees offline and no activity; a bot in one sees them", async () => {
    const outsider = await createBot(server, stranger);
    const outside = await server.api("GET", `/api/v1/oauth2/bot/users/${alice.id}`, { token: outsider.token });
    expect(outside.status).toBe(200);
    expect(outside.body).toMatchObject({ id: alice.id, status: "offline", activity: null });
    const insider = await addBot(server, alice, serverId);
    expect((await server.api("GET", `/api/v1/oauth2/bot/users/${alice.id}`, { token: insider.token })).body).toMatchObject({ status: "dnd" });
  });

  test("a bot's presence and activity are shown to strangers too", async () => {
    const viewerBot = await createBot(server, stranger);
    const bot = await addBot(server, alice, serverId);
    const socket = await server.connect(bot.token);
    try {
      const set = await server.api("PUT", "/api/v1/oauth2/bot/presence", { token: bot.token, body: { status: "online", activity: { type: "playing", name: "chess" } } });
      expect(set.status).toBe(200);
      // A bot is a service, not a person: its being up is shown to strangers too (docs/users.md).
      const shown = { status: "online", activity: { type: "playing", name: "chess" } };
      expect((await server.api("GET", `/api/v1/oauth2/bot/users/${bot.botUserId}`, { token: viewerBot.token })).body).toMatchObject(shown);
      expect((await get(stranger, `/api/v1/users/${bot.botUserId}`)).body).toMatchObject({ status: "online" });
    } finally {
      socket.close();
    }
  });
});
