import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditEntries, community } from "../helpers/community.ts";
import { recordEvents, startServer, waitForEvent, type ClientSocket, type TestServer, type TestUser, expectError } from "../helpers/server.ts";
import { quietWindow, until } from "../helpers/wait.ts";
import { PERMISSIONS } from "../../src/domain/access/permission-bits.ts";
import { raisedRestRateLimits } from "../helpers/rate-limits.ts";

let server: TestServer;
let owner: TestUser;
let member: TestUser;
let outsider: TestUser;
let admin: TestUser;

beforeAll(async () => {
  // One owner makes hundreds of channel, category and override changes within seconds, faster
  // than any client: the REST writes and reads limits are raised (tested in rate-limits.test.ts).
  server = await startServer(raisedRestRateLimits("writes", "reads"));
  [owner, member, outsider, admin] = await Promise.all([server.register(), server.register(), server.register(), server.register()]);
});
afterAll(() => server.stop());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UNKNOWN_ID = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
const NOT_A_UUID = "not-a-uuid";
const CHANNEL_KEYS = ["category_id", "chat_enabled", "id", "is_meeting", "name", "nsfw", "position", "server_id", "slowmode", "topic", "type"];
const CATEGORY_KEYS = ["id", "name", "position", "server_id"];
const MAX_BITS = 2 ** 24 - 1;

const ch = (path: string) => `/api/v1/channels${path}`;
const call = (method: string, path: string, user: TestUser | null, body?: unknown) =>
  server.api(method, ch(path), { token: user?.token ?? null, body });


function expectChannel(body: any, expected: Record<string, unknown> = {}) {
  expect(Object.keys(body).sort()).toEqual(CHANNEL_KEYS);
  expect(body.id).toMatch(UUID);
  expect(body.server_id).toMatch(UUID);
  expect(typeof body.name).toBe("string");
  expect(["text", "voice"]).toContain(body.type);
  expect(body.category_id === null || UUID.test(body.category_id)).toBe(true);
  expect(Number.isInteger(body.position)).toBe(true);
  expect(body.topic === null || typeof body.topic === "string").toBe(true);
  expect(Number.isInteger(body.slowmode)).toBe(true);
  expect(typeof body.nsfw).toBe("boolean");
  expect(typeof body.is_meeting).toBe("boolean");
  expect(typeof body.chat_enabled).toBe("boolean");
  expect(body).toMatchObject(expected);
}

function expectCategory(body: any, expected: Record<string, unknown> = {}) {
  expect(Object.keys(body).sort()).toEqual(CATEGORY_KEYS);
  expect(body.id).toMatch(UUID);
  expect(Number.isInteger(body.position)).toBe(true);
  expect(body).toMatchObject(expected);
}

/**
 * The shared community for this file's users (`admin` a built-in admin), with its `general`
 * channel as the API answers it.
 */
async function withGeneral() {
  const c = await community(server, { owner, member, outsider, admin, name: "Channels test" });
  const general = (await call("GET", `/${c.serverId}`, owner)).body.channels[0];
  return { ...c, general, everyoneRoleId: c.everyone };
}

/** A socket of `user` in the server room (and optionally a channel room). */
async function socketIn(user: TestUser, serverId: string, channelId?: string): Promise<ClientSocket> {
  const socket = await server.connect(user.token);
  server.app.io.in(`user:${user.id}`).socketsJoin(`server:${serverId}`);
  if (channelId) server.app.io.in(`user:${user.id}`).socketsJoin(`channel:${channelId}`);
  return socket;
}

const roomUserIds = async (room: string) =>
  (await server.app.io.in(room).fetchSockets()).map((s) => (s.data as { userId: string }).userId);

async function createChannel(serverId: string, body: Record<string, unknown>, user = owner) {
  const res = await call("POST", `/${serverId}`, user, body);
  expect(res.status).toBe(201);
  return res.body;
}

async function createCategory(serverId: string, name = "Stuff") {
  const res = await call("POST", `/${serverId}/categories`, owner, { name });
  expect(res.status).toBe(201);
  return res.body;
}

/** 401 without a token, 403 for a non-member, 404 for an unknown and a non-UUID id. */
async function expectGuards(method: string, path: (id: string) => string, id: string, body?: unknown, notFound = "not found") {
  expectError(await call(method, path(id), null, body), 401);
  expectError(await call(method, path(id), outsider, body), 403);
  expectError(await call(method, path(UNKNOWN_ID), owner, body), 404, new RegExp(notFound));
  expectError(await call(method, path(NOT_A_UUID), owner, body), 404, new RegExp(notFound));
}

describe("GET /api/v1/channels/:serverId", () => {
  test("answers {channels, categories} with the default general channel", async () => {
    const { serverId } = await withGeneral();
    const res = await call("GET", `/${serverId}`, member);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["categories", "channels"]);
    expect(res.body.categories).toEqual([]);
    expect(res.body.channels).toHaveLength(1);
    expectChannel(res.body.channels[0], {
      server_id: serverId,
      name: "general",
      type: "text",
      category_id: null,
      position: 0,
      topic: null,
      slowmode: 0,
      nsfw: false,
      is_meeting: false,
      chat_enabled: false,
    });
  });

  test("orders channels by position and lists categories", async () => {
    const { serverId } = await withGeneral();
    const category = await createCategory(serverId);
    const voice = await createChannel(serverId, { name: "Lounge", type: "voice", category_id: category.id });
    const res = await call("GET", `/${serverId}`, member);
    expect(res.body.channels.map((c: any) => c.id)[1]).toBe(voice.id);
    expect(res.body.categories).toHaveLength(1);
    expectCategory(res.body.categories[0], { id: category.id, server_id: serverId, name: "Stuff", position: 0 });
  });

  test("401, 403 for a non-member, 404 for unknown and non-UUID server ids", async () => {
    const { serverId } = await withGeneral();
    await expectGuards("GET", (id) => `/${id}`, serverId, undefined, "Server not found");
  });

  test("an @everyone override denying VIEW_CHANNEL hides the channel and takes the member out of its room at once", async () => {
    const { serverId, everyoneRoleId } = await withGeneral();
    const secret = await createChannel(serverId, { name: "secret", type: "text" });
    const memberSocket = await socketIn(member, serverId, secret.id);
    const ownerSocket = await socketIn(owner, serverId, secret.id);
    expect((await roomUserIds(`channel:${secret.id}`)).sort()).toEqual([member.id, owner.id].sort());
    expect((await call("GET", `/${serverId}`, member)).body.channels.map((c: any) => c.id)).toContain(secret.id);

    // The event reaches those who can still see the channel, not the member who just lost it.
    const event = waitForEvent(ownerSocket, "channel:permissions-updated");
    const memberSaw = recordEvents(memberSocket, "channel:permissions-updated");
    const res = await call("PUT", `/${secret.id}/permissions/${everyoneRoleId}`, owner, { allow: 0, deny: PERMISSIONS.VIEW_CHANNEL });
    expect(res.status).toBe(200);
    expect(await event).toEqual({ channelId: secret.id, roleId: everyoneRoleId, allow: 0, deny: PERMISSIONS.VIEW_CHANNEL });
    expect(memberSaw).toEqual([]);

    // Removed from the room by the time the request answered; the owner keeps it.
    expect(await roomUserIds(`channel:${secret.id}`)).toEqual([owner.id]);
    expect((await call("GET", `/${serverId}`, member)).body.channels.map((c: any) => c.id)).not.toContain(secret.id);
    expect((await call("GET", `/${serverId}`, owner)).body.channels.map((c: any) => c.id)).toContain(secret.id);
    expectError(await call("GET", `/id/${secret.id}`, member), 403, "Missing permission: VIEW_CHANNEL");
    memberSocket.close();
    ownerSocket.close();
  });

  test("a category override denying VIEW_CHANNEL hides the category and its channels from members", async () => {
    const { serverId, everyoneRoleId } = await withGeneral();
    const category = await createCategory(serverId, "Staff");
    const inside = await createChannel(serverId, { name: "staff-chat", type: "text", category_id: category.id });
    const socket = await socketIn(member, serverId, inside.id);
    const event = waitForEvent(socket, "category:permissions-updated");
    const res = await call("PUT", `/categories/${category.id}/permissions/${everyoneRoleId}`, owner, { allow: 0, deny: PERMISSIONS.VIEW_CHANNEL });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ role_id: everyoneRoleId, allow: 0, deny: PERMISSIONS.VIEW_CHANNEL });
    expect(await event).toEqual({ categoryId: category.id, roleId: everyoneRoleId, allow: 0, deny: PERMISSIONS.VIEW_CHANNEL });
    expect(await roomUserIds(`channel:${inside.id}`)).toEqual([]);
    const list = (await call("GET", `/${serverId}`, member)).body;
    expect(list.channels.map((c: any) => c.id)).not.toContain(inside.id);
    expect(list.categories).toEqual([]);
    // A channel-level allow for @everyone brings that one channel (and so its category) back.
    await call("PUT", `/${inside.id}/permissions/${everyoneRoleId}`, owner, { allow: PERMISSIONS.VIEW_CHANNEL, deny: 0 });
    const after = (await call("GET", `/${serverId}`, member)).body;
    expect(after.channels.map((c: any) => c.id)).toContain(inside.id);
    expect(after.categories.map((c: any) => c.id)).toEqual([category.id]);
    socket.close();
  });
});

describe("GET /api/v1/channels/id/:channelId", () => {
  test("answers the channel", async () => {
    const { serverId, general } = await withGeneral();
    const res = await call("GET", `/id/${general.id}`, member);
    expect(res.status).toBe(200);
    expectChannel(res.body, { id: general.id, server_id: serverId, name: "general" });
  });

  test("401, 403 for a non-member, 404 for unknown and non-UUID ids", async () => {
    const { general } = await withGeneral();
    await expectGuards("GET", (id) => `/id/${id}`, general.id, undefined, "Channel not found");
  });
});

describe("POST /api/v1/channels/:serverId", () => {
  test("creates a text channel at the end, normalizes its name, emits channel:created, audits CHANNEL_CREATE", async () => {
    const { serverId } = await withGeneral();
    const socket = await socketIn(member, serverId);
    const event = waitForEvent(socket, "channel:created");
    const res = await call("POST", `/${serverId}`, owner, { name: "  Off Topic  Chat ", type: "text" });
    expect(res.status).toBe(201);
    expectChannel(res.body, {
      server_id: serverId,
      name: "off-topic-chat",
      type: "text",
      category_id: null,
      position: 1,
      topic: null,
      slowmode: 0,
      nsfw: false,
      is_meeting: false,
      chat_enabled: false,
    });
    expect(await event).toEqual(res.body);
    const [entry] = await auditEntries(server, serverId);
    expect(entry).toMatchObject({
      action: "CHANNEL_CREATE",
      actor_id: owner.id,
      target_type: "channel",
      target_id: res.body.id,
      changes: { name: "off-topic-chat", type: "text", category_id: null },
    });
    socket.close();
  });

  test("voice channels: names kept as typed; meeting channels default chat on; flags accept 0/1", async () => {
    const { serverId } = await withGeneral();
    const category = await createCategory(serverId);
    expectChannel(await createChannel(serverId, { name: "Game Night", type: "voice" }), {
      name: "Game Night",
      type: "voice",
      is_meeting: false,
      chat_enabled: false,
    });
    expectChannel(await createChannel(serverId, { name: "Town Hall", type: "voice", is_meeting: true, category_id: category.id }), {
      is_meeting: true,
      chat_enabled: true,
      category_id: category.id,
    });
    expectChannel(await createChannel(serverId, { name: "Quiet", type: "voice", is_meeting: true, chat_enabled: false }), {
      is_meeting: true,
      chat_enabled: false,
    });
    expectChannel(await createChannel(serverId, { name: "Chatty", type: "voice", chat_enabled: 1 }), { chat_enabled: true });
  });

  test("an admin may create; a plain member gets 403", async () => {
    const { serverId } = await withGeneral();
    await createChannel(serverId, { name: "by-admin", type: "text" }, admin);
    expectError(await call("POST", `/${serverId}`, member, { name: "x", type: "text" }), 403, "Missing permission: MANAGE_CHANNELS");
  });

  test("bad bodies are 400 naming the field", async () => {
    const { serverId } = await withGeneral();
    const other = await withGeneral();
    const foreignCategory = await createCategory(other.serverId);
    const cases: [unknown, RegExp][] = [
      [{ type: "text" }, /^name: is required/],
      [{ name: "  ", type: "text" }, /^name:/],
      [{ name: "x".repeat(101), type: "text" }, /^name:/],
      [{ name: 5, type: "text" }, /^name:/],
      [{ name: "x" }, /^type:/],
      [{ name: "x", type: "stage" }, /^type:/],
      [{ name: "x", type: "text", is_meeting: true }, /^is_meeting:/],
      [{ name: "x", type: "text", chat_enabled: true }, /^chat_enabled:/],
      [{ name: "x", type: "voice", chat_enabled: "yes" }, /^chat_enabled:/],
      [{ name: "x", type: "text", category_id: foreignCategory.id }, /^category_id: not a category of this server/],
      [{ name: "x", type: "text", category_id: UNKNOWN_ID }, /^category_id:/],
      [[1, 2], /^body:/],
    ];
    for (const [body, error] of cases) expectError(await call("POST", `/${serverId}`, owner, body), 400, error);
    const malformed = await server.api("POST", ch(`/${serverId}`), { token: owner.token, raw: "{nope", headers: { "content-type": "application/json" } });
    expectError(malformed, 400);
  });

  test("401, 403 for a non-member, 404 for unknown and non-UUID server ids", async () => {
    const { serverId } = await withGeneral();
    await expectGuards("POST", (id) => `/${id}`, serverId, { name: "x", type: "text" }, "Server not found");
  });
});

describe("PUT /api/v1/channels/:id", () => {
  test("updates settings, emits channel:updated, audits CHANNEL_UPDATE with the changes", async () => {
    const { serverId, general } = await withGeneral();
    const category = await createCategory(serverId);
    const socket = await socketIn(member, serverId);
    const event = waitForEvent(socket, "channel:updated");
    const res = await call("PUT", `/${general.id}`, owner, {
      name: "Main Hall",
      topic: "Say hi",
      slowmode: 30,
      nsfw: true,
      category_id: category.id,
    });
    expect(res.status).toBe(200);
    expectChannel(res.body, {
      id: general.id,
      name: "main-hall",
      topic: "Say hi",
      slowmode: 30,
      nsfw: true,
      category_id: category.id,
      type: "text",
    });
    expect(await event).toEqual(res.body);
    const [entry] = await auditEntries(server, serverId);
    expect(entry).toMatchObject({ action: "CHANNEL_UPDATE", actor_id: owner.id, target_type: "channel", target_id: general.id });
    expect(entry!.changes).toEqual({
      name: { old: "general", new: "main-hall" },
      topic: { old: null, new: "Say hi" },
      slowmode: { old: 0, new: 30 },
      nsfw: { old: false, new: true },
      category_id: { old: null, new: category.id },
    });

    // null uncategorizes and clears the topic.
    const cleared = await call("PUT", `/${general.id}`, owner, { category_id: null, topic: null });
    expectChannel(cleared.body, { category_id: null, topic: null, name: "main-hall" });
    socket.close();
  });

  test("voice flags: set on voice channels, becoming a meeting turns chat on, refused on text channels", async () => {
    const { serverId, general } = await withGeneral();
    const voice = await createChannel(serverId, { name: "Voice", type: "voice" });
    expectChannel((await call("PUT", `/${voice.id}`, owner, { is_meeting: true })).body, { is_meeting: true, chat_enabled: true });
    expectChannel((await call("PUT", `/${voice.id}`, owner, { chat_enabled: false })).body, { is_meeting: true, chat_enabled: false });
    expectError(await call("PUT", `/${general.id}`, owner, { chat_enabled: true }), 400, /^chat_enabled:/);
    expectError(await call("PUT", `/${general.id}`, owner, { is_meeting: 1 }), 400, /^is_meeting:/);
  });

  test("type cannot be changed; bad values are 400 naming the field", async () => {
    const { serverId, general } = await withGeneral();
    const other = await withGeneral();
    const foreignCategory = await createCategory(other.serverId);
    expectError(await call("PUT", `/${general.id}`, owner, { type: "voice" }), 400, "type cannot be changed");
    expectError(await call("PUT", `/${general.id}`, owner, { type: "text", name: "x" }), 400, "type cannot be changed");
    const cases: [unknown, RegExp][] = [
      [{ slowmode: 21601 }, /^slowmode:/],
      [{ slowmode: -1 }, /^slowmode:/],
      [{ slowmode: 1.5 }, /^slowmode:/],
      [{ topic: "x".repeat(1025) }, /^topic:/],
      [{ name: "" }, /^name:/],
      [{ nsfw: "yes" }, /^nsfw:/],
      [{ category_id: foreignCategory.id }, /^category_id:/],
      ["text", /^body:/],
    ];
    for (const [body, error] of cases) expectError(await call("PUT", `/${general.id}`, owner, body), 400, error);
    expectChannel((await call("PUT", `/${general.id}`, owner, { slowmode: 21600, topic: "x".repeat(1024) })).body, { slowmode: 21600 });
    expect(serverId).toMatch(UUID);
  });

  test("403 for a member without MANAGE_CHANNELS; 401, 403 non-member, 404", async () => {
    const { general } = await withGeneral();
    expectError(await call("PUT", `/${general.id}`, member, { name: "x" }), 403, "Missing permission: MANAGE_CHANNELS");
    expect((await call("PUT", `/${general.id}`, admin, { name: "by-admin" })).status).toBe(200);
    await expectGuards("PUT", (id) => `/${id}`, general.id, { name: "x" }, "Channel not found");
  });
});

describe("POST /api/v1/channels/:channelId/duplicate", () => {
  test("copies settings and overrides as <name>-copy at the end; channel:created; CHANNEL_DUPLICATE", async () => {
    const { serverId, everyoneRoleId } = await withGeneral();
    const category = await createCategory(serverId);
    const voice = await createChannel(serverId, { name: "Stage", type: "voice", is_meeting: true, category_id: category.id });
    await call("PUT", `/${voice.id}`, owner, { topic: "talks", nsfw: true, slowmode: 10 });
    await call("PUT", `/${voice.id}/permissions/${everyoneRoleId}`, owner, { allow: PERMISSIONS.SPEAK, deny: PERMISSIONS.STREAM });
    const socket = await socketIn(member, serverId);
    const event = waitForEvent(socket, "channel:created");
    const res = await call("POST", `/${voice.id}/duplicate`, owner);
    expect(res.status).toBe(201);
    expectChannel(res.body, {
      server_id: serverId,
      name: "Stage-copy",
      type: "voice",
      category_id: category.id,
      position: 2,
      topic: "talks",
      slowmode: 10,
      nsfw: true,
      is_meeting: true,
      chat_enabled: true,
    });
    expect(res.body.id).not.toBe(voice.id);
    expect(await event).toEqual(res.body);
    expect((await call("GET", `/${res.body.id}/permissions`, owner)).body).toEqual([
      { role_id: everyoneRoleId, allow: PERMISSIONS.SPEAK, deny: PERMISSIONS.STREAM },
    ]);
    const [entry] = await auditEntries(server, serverId);
    expect(entry).toMatchObject({
      action: "CHANNEL_DUPLICATE",
      actor_id: owner.id,
      target_type: "channel",
      target_id: res.body.id,
      changes: { source_id: voice.id, name: "Stage-copy" },
    });
    socket.close();
  });

  test("403 for a member without MANAGE_CHANNELS; 401, 403 non-member, 404", async () => {
    const { general } = await withGeneral();
    expectError(await call("POST", `/${general.id}/duplicate`, member), 403, "Missing permission: MANAGE_CHANNELS");
    await expectGuards("POST", (id) => `/${id}/duplicate`, general.id, undefined, "Channel not found");
  });
});

describe("DELETE /api/v1/channels/:id", () => {
  test("deletes; channel:deleted {id, server_id}; CHANNEL_DELETE; sockets leave the channel room", async () => {
    const { serverId } = await withGeneral();
    const doomed = await createChannel(serverId, { name: "doomed", type: "text" });
    const socket = await socketIn(member, serverId, doomed.id);
    expect(await roomUserIds(`channel:${doomed.id}`)).toEqual([member.id]);
    const event = waitForEvent(socket, "channel:deleted");
    const res = await call("DELETE", `/${doomed.id}`, owner);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect(await event).toEqual({ id: doomed.id, server_id: serverId });
    expect(await roomUserIds(`channel:${doomed.id}`)).toEqual([]);
    expectError(await call("GET", `/id/${doomed.id}`, owner), 404);
    const [entry] = await auditEntries(server, serverId);
    expect(entry).toMatchObject({
      action: "CHANNEL_DELETE",
      actor_id: owner.id,
      target_type: "channel",
      target_id: doomed.id,
      changes: { name: "doomed", type: "text" },
    });
    socket.close();
  });

  test("the last text channel may be deleted too (Discord-style)", async () => {
    const { serverId, general } = await withGeneral();
    expect((await call("DELETE", `/${general.id}`, owner)).status).toBe(200);
    expect((await call("GET", `/${serverId}`, owner)).body.channels).toEqual([]);
  });

  test("deleting the system channel clears the server's system_channel_id", async () => {
    const { serverId, general } = await withGeneral();
    const set = await server.api("PATCH", `/api/v1/servers/${serverId}/settings`, { token: owner.token, body: { system_channel_id: general.id } });
    expect(set.status).toBe(200);
    await call("DELETE", `/${general.id}`, owner);
    const after = await server.api("GET", `/api/v1/servers/${serverId}`, { token: owner.token });
    expect(after.body.settings.system_channel_id).toBeNull();
  });

  test("403 for a member without MANAGE_CHANNELS; 401, 403 non-member, 404", async () => {
    const { general } = await withGeneral();
    expectError(await call("DELETE", `/${general.id}`, member), 403, "Missing permission: MANAGE_CHANNELS");
    await expectGuards("DELETE", (id) => `/${id}`, general.id, undefined, "Channel not found");
  });
});

describe("PUT /api/v1/channels/:serverId/reorder", () => {
  test("{order: [{id, position, category_id?}]} moves channels, emits channel:updated per moved channel, audits, answers the list", async () => {
    const { serverId, general } = await withGeneral();
    const category = await createCategory(serverId);
    const b = await createChannel(serverId, { name: "b", type: "text" });
    const c = await createChannel(serverId, { name: "c", type: "voice" });
    const socket = await socketIn(member, serverId);
    const updates = recordEvents(socket, "channel:updated");
    const res = await call("PUT", `/${serverId}/reorder`, owner, {
      order: [
        { id: c.id, position: 0 },
        { id: b.id, position: 1 },
        { id: general.id, position: 2, category_id: category.id },
      ],
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["categories", "channels"]);
    expect(res.body.channels.map((x: any) => [x.id, x.position, x.category_id])).toEqual([
      [c.id, 0, null],
      [b.id, 1, null],
      [general.id, 2, category.id],
    ]);
    res.body.channels.forEach((x: any) => expectChannel(x));
    await until(() => updates.length >= 2, "channel:updated for the two that moved");
    await quietWindow(50); // and none for b
    // b kept position 1 and its category, so only c and general moved.
    expect(updates.map((u) => u.id).sort()).toEqual([c.id, general.id].sort());
    const [entry] = await auditEntries(server, serverId);
    expect(entry).toMatchObject({ action: "CHANNEL_REORDER", actor_id: owner.id, target_type: "server", target_id: serverId });
    expect(entry!.changes.order).toHaveLength(3);
    socket.close();
  });

  test("the answer is the list as a read right after gives it (ties of position by creation, then id); a refused reorder moves nothing", async () => {
    const { serverId, general } = await withGeneral();
    const category = await createCategory(serverId);
    const made = [];
    for (const name of ["d", "e", "f", "g"]) made.push(await createChannel(serverId, { name, type: "text" }));
    const [d, e, f, g] = made;
    // Three channels at position 1 (general and d into the category, e out of order), g first.
    const res = await call("PUT", `/${serverId}/reorder`, owner, {
      order: [
        { id: f.id, position: 1 },
        { id: general.id, position: 1, category_id: category.id },
        { id: d.id, position: 1, category_id: category.id },
        { id: g.id, position: 0 },
      ],
    });
    expect(res.status).toBe(200);
    const read = await call("GET", `/${serverId}`, owner);
    expect(res.body).toEqual(read.body);
    expect(res.body.channels.map((x: any) => x.id)).toEqual([g.id, general.id, d.id, f.id, e.id]);
    // The second entry is refused: the first, valid, is not written either.
    expectError(await call("PUT", `/${serverId}/reorder`, owner, { order: [{ id: e.id, position: 0 }, { id: e.id, position: 2 }] }), 400, /^order\.1\.id: listed twice/);
    expect((await call("GET", `/${serverId}`, owner)).body).toEqual(read.body);
  });

  test("a bare array works too; category_id null uncategorizes", async () => {
    const { serverId, general } = await withGeneral();
    const category = await createCategory(serverId);
    await call("PUT", `/${general.id}`, owner, { category_id: category.id });
    const res = await call("PUT", `/${serverId}/reorder`, owner, [{ id: general.id, position: 5, category_id: null }]);
    expect(res.status).toBe(200);
    expect(res.body.channels[0]).toMatchObject({ id: general.id, position: 5, category_id: null });
  });

  test("bad bodies are 400", async () => {
    const { serverId, general } = await withGeneral();
    const other = await withGeneral();
    const foreignCategory = await createCategory(other.serverId);
    const cases: [unknown, RegExp][] = [
      [{}, /^order: is required/],
      [{ order: "x" }, /^order:/],
      [{ order: [{ id: general.id }] }, /^order\.0\.position/],
      [{ order: [{ id: general.id, position: -1 }] }, /^order\.0\.position/],
      [{ order: [{ id: other.general.id, position: 0 }] }, /^order\.0\.id: not a channel of this server/],
      [{ order: [{ id: general.id, position: 0 }, { id: general.id, position: 1 }] }, /^order\.1\.id: listed twice/],
      [{ order: [{ id: general.id, position: 0, category_id: foreignCategory.id }] }, /^order\.0\.category_id/],
    ];
    for (const [body, error] of cases) expectError(await call("PUT", `/${serverId}/reorder`, owner, body), 400, error);
    const malformed = await server.api("PUT", ch(`/${serverId}/reorder`), { token: owner.token, raw: "[{", headers: { "content-type": "application/json" } });
    expectError(malformed, 400, /^body:/);
    expectError(await call("PUT", `/${serverId}/reorder`, owner, "x"), 400, /^body:/);
  });

  test("Prefer: return=minimal answers 204 with no body and Preference-Applied; the same writes, channel:updated events and audit entry", async () => {
    const { serverId, general } = await withGeneral();
    const category = await createCategory(serverId);
    const b = await createChannel(serverId, { name: "b", type: "text" });
    const c = await createChannel(serverId, { name: "c", type: "voice" });
    const socket = await socketIn(member, serverId);
    const updates = recordEvents(socket, "channel:updated");
    const minimal = (body: unknown, user: TestUser | null = owner, prefer = "return=minimal") =>
      server.api("PUT", ch(`/${serverId}/reorder`), { token: user?.token ?? null, body, headers: { prefer } });
    const res = await minimal({ order: [{ id: c.id, position: 0 }, { id: b.id, position: 1 }, { id: general.id, position: 2, category_id: category.id }] });
    expect(res.status).toBe(204);
    expect(res.body).toBe("");
    expect(res.headers.get("preference-applied")).toBe("return=minimal");
    const read = await call("GET", `/${serverId}`, owner);
    expect(read.body.channels.map((x: any) => [x.id, x.position, x.category_id])).toEqual([
      [c.id, 0, null],
      [b.id, 1, null],
      [general.id, 2, category.id],
    ]);
    await until(() => updates.length >= 2, "channel:updated for the two that moved");
    await quietWindow(50);
    expect(updates.map((u) => u.id).sort()).toEqual([c.id, general.id].sort());
    expectChannel(updates.find((u) => u.id === general.id), { position: 2, category_id: category.id });
    const [entry] = await auditEntries(server, serverId);
    expect(entry).toMatchObject({ action: "CHANNEL_REORDER", actor_id: owner.id, target_type: "server", target_id: serverId });
    expect(entry!.changes.order).toEqual([{ id: c.id, position: 0 }, { id: b.id, position: 1 }, { id: general.id, position: 2, category_id: category.id }]);
    // The preference among others, in any case, quoted: still minimal. Another return= keeps the list.
    expect((await minimal([{ id: b.id, position: 3 }], owner, 'respond-async, RETURN="Minimal"; x=1')).status).toBe(204);
    const listed = await minimal([{ id: b.id, position: 4 }], owner, "return=representation");
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual((await call("GET", `/${serverId}`, owner)).body);
    socket.close();
  });

  test("Prefer: return=minimal refuses what the list answer refuses, and a refused order moves nothing", async () => {
    const { serverId, general } = await withGeneral();
    const other = await withGeneral();
    const foreignCategory = await createCategory(other.serverId);
    const gone = await createChannel(serverId, { name: "gone", type: "text" });
    expect((await call("DELETE", `/${gone.id}`, owner)).status).toBe(200);
    const minimal = (body: unknown, user: TestUser | null = owner, id = serverId) =>
      server.api("PUT", ch(`/${id}/reorder`), { token: user?.token ?? null, body, headers: { prefer: "return=minimal" } });
    const before = (await call("GET", `/${serverId}`, owner)).body;
    const cases: [unknown, RegExp][] = [
      [{}, /^order: is required/],
      [{ order: [{ id: general.id, position: -1 }] }, /^order\.0\.position/],
      [{ order: [{ id: general.id, position: 1 }, { id: other.general.id, position: 0 }] }, /^order\.1\.id: not a channel of this server/],
      [{ order: [{ id: general.id, position: 1 }, { id: gone.id, position: 0 }] }, /^order\.1\.id: not a channel of this server/],
      [{ order: [{ id: general.id, position: 1 }, { id: general.id, position: 2 }] }, /^order\.1\.id: listed twice/],
      [{ order: [{ id: general.id, position: 1, category_id: foreignCategory.id }] }, /^order\.0\.category_id: not a category of this server/],
    ];
    for (const [body, error] of cases) expectError(await minimal(body), 400, error);
    expect((await call("GET", `/${serverId}`, owner)).body).toEqual(before);
    const body = { order: [{ id: general.id, position: 0 }] };
    expectError(await minimal(body, member), 403, "Missing permission: MANAGE_CHANNELS");
    expectError(await minimal(body, outsider), 403);
    expectError(await minimal(body, null), 401, "Unauthorized");
    expectError(await minimal(body, owner, UNKNOWN_ID), 404, "Server not found");
    expect((await minimal({ order: [] })).status).toBe(204);
  });

  test("403 for a member without MANAGE_CHANNELS; 401, 403 non-member, 404", async () => {
    const { serverId, general } = await withGeneral();
    const body = { order: [{ id: general.id, position: 0 }] };
    expectError(await call("PUT", `/${serverId}/reorder`, member, body), 403, "Missing permission: MANAGE_CHANNELS");
    await expectGuards("PUT", (id) => `/${id}/reorder`, serverId, body, "Server not found");
  });
});

describe("categories", () => {
  test("POST /:serverId/categories creates at the end (201) and audits CATEGORY_CREATE", async () => {
    const { serverId } = await withGeneral();
    const first = await createCategory(serverId, "One");
    const res = await call("POST", `/${serverId}/categories`, admin, { name: "  Two  " });
    expect(res.status).toBe(201);
    expectCategory(first, { server_id: serverId, name: "One", position: 0 });
    expectCategory(res.body, { server_id: serverId, name: "Two", position: 1 });
    const [entry] = await auditEntries(server, serverId);
    expect(entry).toMatchObject({ action: "CATEGORY_CREATE", actor_id: admin.id, target_type: "category", target_id: res.body.id, changes: { name: "Two" } });
    for (const body of [{}, { name: "" }, { name: "x".repeat(101) }, { name: 1 }]) {
      expectError(await call("POST", `/${serverId}/categories`, owner, body), 400, /^name:/);
    }
    expectError(await call("POST", `/${serverId}/categories`, member, { name: "x" }), 403, "Missing permission: MANAGE_CHANNELS");
    await expectGuards("POST", (id) => `/${id}/categories`, serverId, { name: "x" }, "Server not found");
  });

  test("PUT /categories/:id renames", async () => {
    const { serverId } = await withGeneral();
    const category = await createCategory(serverId, "Old");
    const res = await call("PUT", `/categories/${category.id}`, owner, { name: "New" });
    expect(res.status).toBe(200);
    expectCategory(res.body, { id: category.id, server_id: serverId, name: "New", position: 0 });
    const [entry] = await auditEntries(server, serverId);
    expect(entry).toMatchObject({ action: "CHANNEL_UPDATE", target_type: "category", target_id: category.id, changes: { name: { old: "Old", new: "New" } } });
    expectError(await call("PUT", `/categories/${category.id}`, owner, { name: "" }), 400, /^name:/);
    expectError(await call("PUT", `/categories/${category.id}`, member, { name: "x" }), 403, "Missing permission: MANAGE_CHANNELS");
    await expectGuards("PUT", (id) => `/categories/${id}`, category.id, { name: "x" }, "Category not found");
  });

  test("DELETE /categories/:id uncategorizes its channels (channel:updated each) and audits CATEGORY_DELETE", async () => {
    const { serverId } = await withGeneral();
    const category = await createCategory(serverId, "Gone");
    const inside = await createChannel(serverId, { name: "inside", type: "text", category_id: category.id });
    const socket = await socketIn(member, serverId);
    const event = waitForEvent(socket, "channel:updated");
    const res = await call("DELETE", `/categories/${category.id}`, owner);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect(await event).toEqual({ ...inside, category_id: null });
    const list = (await call("GET", `/${serverId}`, owner)).body;
    expect(list.categories).toEqual([]);
    expect(list.channels.find((c: any) => c.id === inside.id).category_id).toBeNull();
    const [entry] = await auditEntries(server, serverId);
    expect(entry).toMatchObject({ action: "CATEGORY_DELETE", actor_id: owner.id, target_type: "category", target_id: category.id, changes: { name: "Gone" } });
    socket.close();
  });

  test("create, rename, delete and reorder emit category:created/updated/deleted {id, server_id} to the server room", async () => {
    const { serverId } = await withGeneral();
    const socket = await socketIn(member, serverId);
    const created = waitForEvent(socket, "category:created");
    const a = await createCategory(serverId, "A");
    expect(await created).toEqual({ id: a.id, server_id: serverId });
    const b = await createCategory(serverId, "B");
    const renamed = waitForEvent(socket, "category:updated");
    await call("PUT", `/categories/${a.id}`, owner, { name: "A2" });
    expect(await renamed).toEqual({ id: a.id, server_id: serverId });
    // Reordering tells about each category whose position changed (here both).
    const moved = recordEvents(socket, "category:updated");
    expect((await call("PUT", `/${serverId}/categories/reorder`, owner, { order: [b.id, a.id] })).status).toBe(200);
    await until(() => moved.length === 2, "two category:updated");
    expect([...moved].sort((x: any, y: any) => (x.id < y.id ? -1 : 1))).toEqual(
      [{ id: a.id, server_id: serverId }, { id: b.id, server_id: serverId }].sort((x, y) => (x.id < y.id ? -1 : 1)),
    );
    // The same order again moves nothing and says nothing.
    const none = recordEvents(socket, "category:updated");
    await call("PUT", `/${serverId}/categories/reorder`, owner, { order: [b.id, a.id] });
    await quietWindow();
    expect(none).toEqual([]);
    const deleted = waitForEvent(socket, "category:deleted");
    await call("DELETE", `/categories/${b.id}`, owner);
    expect(await deleted).toEqual({ id: b.id, server_id: serverId });
    socket.close();
  });

  test("DELETE /categories/:id guards", async () => {
    const { serverId } = await withGeneral();
    const category = await createCategory(serverId);
    expectError(await call("DELETE", `/categories/${category.id}`, member), 403, "Missing permission: MANAGE_CHANNELS");
    await expectGuards("DELETE", (id) => `/categories/${id}`, category.id, undefined, "Category not found");
  });

  test("PUT /:serverId/categories/reorder needs every category exactly once", async () => {
    const { serverId } = await withGeneral();
    const a = await createCategory(serverId, "A");
    const b = await createCategory(serverId, "B");
    const c = await createCategory(serverId, "C");
    const res = await call("PUT", `/${serverId}/categories/reorder`, owner, { order: [c.id, a.id, b.id] });
    expect(res.status).toBe(200);
    expect(res.body.map((x: any) => [x.id, x.position])).toEqual([
      [c.id, 0],
      [a.id, 1],
      [b.id, 2],
    ]);
    res.body.forEach((x: any) => expectCategory(x, { server_id: serverId }));
    const [entry] = await auditEntries(server, serverId);
    expect(entry).toMatchObject({ action: "CHANNEL_REORDER", target_id: serverId, changes: { categories: [c.id, a.id, b.id] } });
    const cases: unknown[] = [
      { order: [a.id, b.id] },
      { order: [a.id, b.id, c.id, UNKNOWN_ID] },
      { order: [a.id, a.id, b.id] },
      { order: [a.id, b.id, NOT_A_UUID] },
    ];
    for (const body of cases) expectError(await call("PUT", `/${serverId}/categories/reorder`, owner, body), 400, /^order:/);
    expectError(await call("PUT", `/${serverId}/categories/reorder`, owner, { order: "x" }), 400, /^order:/);
    expectError(await call("PUT", `/${serverId}/categories/reorder`, owner, {}), 400, /^order: is required/);
    const body = { order: [a.id, b.id, c.id] };
    expectError(await call("PUT", `/${serverId}/categories/reorder`, member, body), 403, "Missing permission: MANAGE_CHANNELS");
    await expectGuards("PUT", (id) => `/${id}/categories/reorder`, serverId, body, "Server not found");
  });
});

describe("channel permission overrides", () => {
  test("GET lists, PUT sets (upsert), DELETE resets; events and audit", async () => {
    const { serverId, general, everyoneRoleId } = await withGeneral();
    expect((await call("GET", `/${general.id}/permissions`, owner)).body).toEqual([]);
    const socket = await socketIn(member, serverId);
    const events = recordEvents(socket, "channel:permissions-updated");

    const set = await call("PUT", `/${general.id}/permissions/${everyoneRoleId}`, owner, { allow: PERMISSIONS.ADD_REACTIONS, deny: PERMISSIONS.SEND_MESSAGES });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ role_id: everyoneRoleId, allow: PERMISSIONS.ADD_REACTIONS, deny: PERMISSIONS.SEND_MESSAGES });
    const again = await call("PUT", `/${general.id}/permissions/${everyoneRoleId}`, owner, { allow: MAX_BITS, deny: 0 });
    expect(again.body).toEqual({ role_id: everyoneRoleId, allow: MAX_BITS, deny: 0 });
    expect((await call("GET", `/${general.id}/permissions`, owner)).body).toEqual([{ role_id: everyoneRoleId, allow: MAX_BITS, deny: 0 }]);
    const [setEntry] = await auditEntries(server, serverId);
    expect(setEntry).toMatchObject({
      action: "CHANNEL_UPDATE",
      target_type: "channel",
      target_id: general.id,
      changes: { permission_override: { role_id: everyoneRoleId, allow: MAX_BITS, deny: 0 } },
    });

    const reset = await call("DELETE", `/${general.id}/permissions/${everyoneRoleId}`, owner);
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual({ success: true });
    expect((await call("GET", `/${general.id}/permissions`, owner)).body).toEqual([]);
    const [resetEntry] = await auditEntries(server, serverId);
    expect(resetEntry).toMatchObject({ action: "CHANNEL_UPDATE", changes: { permission_override: { role_id: everyoneRoleId, reset: true } } });
    // Resetting again is a no-op success without an event.
    expect((await call("DELETE", `/${general.id}/permissions/${everyoneRoleId}`, owner)).status).toBe(200);

    await until(() => events.length >= 3, "the three overrides' events");
    await quietWindow(50); // and none for the second reset
    expect(events).toEqual([
      { channelId: general.id, roleId: everyoneRoleId, allow: PERMISSIONS.ADD_REACTIONS, deny: PERMISSIONS.SEND_MESSAGES },
      { channelId: general.id, roleId: everyoneRoleId, allow: MAX_BITS, deny: 0 },
      { channelId: general.id, roleId: everyoneRoleId, reset: true },
    ]);
    socket.close();
  });

  test("a custom role's override; a reset brings a hidden channel back", async () => {
    const { serverId, general } = await withGeneral();
    const { role } = (await server.app.store.roles.create({ serverId, name: "muted", color: "#000000", permissions: 0, hoist: false }, 250))!;
    await server.app.store.roles.assign(serverId, member.id, role.id);
    const res = await call("PUT", `/${general.id}/permissions/${role.id}`, admin, { allow: 0, deny: PERMISSIONS.VIEW_CHANNEL });
    expect(res.body).toEqual({ role_id: role.id, allow: 0, deny: PERMISSIONS.VIEW_CHANNEL });
    expectError(await call("GET", `/id/${general.id}`, member), 403, "Missing permission: VIEW_CHANNEL");
    await call("DELETE", `/${general.id}/permissions/${role.id}`, admin);
    expect((await call("GET", `/id/${general.id}`, member)).status).toBe(200);
  });

  test("the role must belong to the channel's server (404); bits must be integers in 0..2^24-1 (400)", async () => {
    const { general, everyoneRoleId } = await withGeneral();
    const other = await withGeneral();
    expectError(await call("PUT", `/${general.id}/permissions/${other.everyoneRoleId}`, owner, { allow: 0, deny: 0 }), 404, "Role not found");
    expectError(await call("PUT", `/${general.id}/permissions/${UNKNOWN_ID}`, owner, { allow: 0, deny: 0 }), 404, "Role not found");
    expectError(await call("PUT", `/${general.id}/permissions/${NOT_A_UUID}`, owner, { allow: 0, deny: 0 }), 404, "Role not found");
    expectError(await call("DELETE", `/${general.id}/permissions/${other.everyoneRoleId}`, owner), 404, "Role not found");
    const path = `/${general.id}/permissions/${everyoneRoleId}`;
    for (const body of [{ allow: -1 }, { allow: MAX_BITS + 1 }, { allow: 1.5 }, { allow: "1" }]) {
      expectError(await call("PUT", path, owner, body), 400, /^allow:/);
    }
    for (const body of [{ allow: 0, deny: -1 }, { allow: 0, deny: 2 ** 31 }, { allow: 0, deny: null }]) expectError(await call("PUT", path, owner, body), 400, /^deny:/);
    expectError(await call("PUT", path, owner, "x"), 400, /^body:/);
  });

  test("MANAGE_ROLES to change (MANAGE_ROLES or MANAGE_CHANNELS to read); only bits the caller holds", async () => {
    const { serverId, general, everyoneRoleId } = await withGeneral();
    const path = `/${general.id}/permissions/${everyoneRoleId}`;
    expectError(await call("GET", `/${general.id}/permissions`, member), 403, "Missing permission: MANAGE_ROLES");
    expectError(await call("PUT", path, member, { allow: 0, deny: 0 }), 403, "Missing permission: MANAGE_ROLES");
    expectError(await call("DELETE", path, member), 403, "Missing permission: MANAGE_ROLES");

    const { role: manager } = (await server.app.store.roles.create({
      serverId,
      name: "role-manager",
      color: "#000000",
      permissions: PERMISSIONS.MANAGE_ROLES,
      hoist: false,
    }, 250))!;
    await server.app.store.roles.assign(serverId, member.id, manager.id);
    expect((await call("GET", `/${general.id}/permissions`, member)).status).toBe(200);
    expect((await call("PUT", path, member, { allow: 0, deny: PERMISSIONS.SEND_MESSAGES })).status).toBe(200);
    expectError(await call("PUT", path, member, { allow: PERMISSIONS.MANAGE_SERVER, deny: 0 }), 403, /MANAGE_SERVER/);
    expect((await call("DELETE", path, member)).status).toBe(200);
  });

  test("401, 403 non-member, 404 for unknown and non-UUID channel ids", async () => {
    const { general, everyoneRoleId } = await withGeneral();
    await expectGuards("GET", (id) => `/${id}/permissions`, general.id, undefined, "Channel not found");
    await expectGuards("PUT", (id) => `/${id}/permissions/${everyoneRoleId}`, general.id, { allow: 0, deny: 0 }, "Channel not found");
    await expectGuards("DELETE", (id) => `/${id}/permissions/${everyoneRoleId}`, general.id, undefined, "Channel not found");
  });
});

describe("category permission overrides", () => {
  test("GET lists, PUT sets, DELETE resets; category:permissions-updated; audit", async () => {
    const { serverId, everyoneRoleId } = await withGeneral();
    const category = await createCategory(serverId);
    const base = `/categories/${category.id}/permissions`;
    expect((await call("GET", base, owner)).body).toEqual([]);
    const socket = await socketIn(member, serverId);
    const events = recordEvents(socket, "category:permissions-updated");
    const set = await call("PUT", `${base}/${everyoneRoleId}`, owner, { allow: PERMISSIONS.SPEAK, deny: PERMISSIONS.STREAM });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ role_id: everyoneRoleId, allow: PERMISSIONS.SPEAK, deny: PERMISSIONS.STREAM });
    expect((await call("GET", base, admin)).body).toEqual([set.body]);
    expect((await auditEntries(server, serverId))[0]).toMatchObject({
      action: "CHANNEL_UPDATE",
      target_type: "category",
      target_id: category.id,
      changes: { permission_override: { role_id: everyoneRoleId, allow: PERMISSIONS.SPEAK, deny: PERMISSIONS.STREAM } },
    });
    const reset = await call("DELETE", `${base}/${everyoneRoleId}`, owner);
    expect(reset.body).toEqual({ success: true });
    expect((await call("GET", base, owner)).body).toEqual([]);
    expect((await auditEntries(server, serverId))[0]).toMatchObject({ changes: { permission_override: { role_id: everyoneRoleId, reset: true } } });
    await until(() => events.length >= 2, "the set and the reset");
    expect(events).toEqual([
      { categoryId: category.id, roleId: everyoneRoleId, allow: PERMISSIONS.SPEAK, deny: PERMISSIONS.STREAM },
      { categoryId: category.id, roleId: everyoneRoleId, reset: true },
    ]);
    socket.close();
  });

  test("guards: 401, 403 non-member, 403 without MANAGE_ROLES, 404 category/role, 400 bits", async () => {
    const { serverId, everyoneRoleId } = await withGeneral();
    const other = await withGeneral();
    const category = await createCategory(serverId);
    const base = (id: string) => `/categories/${id}/permissions`;
    await expectGuards("GET", base, category.id, undefined, "Category not found");
    await expectGuards("PUT", (id) => `${base(id)}/${everyoneRoleId}`, category.id, { allow: 0, deny: 0 }, "Category not found");
    await expectGuards("DELETE", (id) => `${base(id)}/${everyoneRoleId}`, category.id, undefined, "Category not found");
    expectError(await call("GET", base(category.id), member), 403, "Missing permission: MANAGE_ROLES");
    expectError(await call("PUT", `${base(category.id)}/${everyoneRoleId}`, member, { allow: 0, deny: 0 }), 403, "Missing permission: MANAGE_ROLES");
    expectError(await call("DELETE", `${base(category.id)}/${everyoneRoleId}`, member), 403, "Missing permission: MANAGE_ROLES");
    expectError(await call("PUT", `${base(category.id)}/${other.everyoneRoleId}`, owner, { allow: 0, deny: 0 }), 404, "Role not found");
    expectError(await call("PUT", `${base(category.id)}/${everyoneRoleId}`, owner, { allow: MAX_BITS + 1, deny: 0 }), 400, /^allow:/);
  });
});

describe("an override needs both allow and deny", () => {
  test.each(["channel", "category"] as const)("a %s override: 400 naming the missing one; an empty body sets nothing", async (kind) => {
    const { serverId, general, everyoneRoleId } = await withGeneral();
    const target = kind === "channel" ? general.id : (await createCategory(serverId)).id;
    const path = kind === "channel" ? `/${target}/permissions/${everyoneRoleId}` : `/categories/${target}/permissions/${everyoneRoleId}`;
    const list = kind === "channel" ? `/${target}/permissions` : `/categories/${target}/permissions`;
    const socket = await socketIn(owner, serverId);
    const eventName = kind === "channel" ? "channel:permissions-updated" : "category:permissions-updated";
    const events = recordEvents(socket, eventName);
    const auditBefore = (await auditEntries(server, serverId)).length;
    expectError(await call("PUT", path, owner, {}), 400, "allow: is required");
    expectError(await call("PUT", path, owner, { deny: PERMISSIONS.SEND_MESSAGES }), 400, "allow: is required");
    expectError(await call("PUT", path, owner, { allow: PERMISSIONS.SEND_MESSAGES }), 400, "deny: is required");
    expectError(await server.api("PUT", `/api/v1/channels${path}`, { token: owner.token }), 400, "allow: is required");
    expect((await call("GET", list, owner)).body).toEqual([]);
    expect((await auditEntries(server, serverId)).length).toBe(auditBefore);
    // Both given: set, as before (0/0 included, when asked for explicitly). Its event is the
    // first: the refused ones published nothing before it.
    const event = waitForEvent(socket, eventName);
    const set = await call("PUT", path, owner, { allow: 0, deny: 0 });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ role_id: everyoneRoleId, allow: 0, deny: 0 });
    await event;
    expect(events).toHaveLength(1);
    socket.close();
  });
});
