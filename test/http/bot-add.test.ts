import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addMember, auditLog, community, createServer } from "../helpers/community.ts";
import { createBot, type TestBot } from "../helpers/bots.ts";
import { startServer, waitForEvent, type TestServer, type TestUser } from "../helpers/server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";
const DEFAULT_BOT = 8895488;
const ADMINISTRATOR = 512;
const KICK_BAN_MUTE = 76;

const call = (method: string, path: string, user: { token: string } | null, body?: unknown) =>
  server.api(method, `/api/v1/oauth2${path}`, { token: user?.token, body });

const ownerAdd = (user: { token: string } | null, bot: TestBot, serverId: string, body: unknown = {}) =>
  call("POST", `/applications/${bot.appId}/servers/${serverId}`, user, body);
const authorize = (user: { token: string } | null, bot: TestBot, serverId: string, body: unknown) =>
  call("POST", `/invite/${bot.botUserId}/add/${serverId}`, user, body);

/** The shared community with a built-in admin, and a bot of the owner's that is not in the server yet. */
async function setup(botName?: string) {
  const c = await community(server, { admin: true });
  return { ...c, bot: await createBot(server, c.owner, botName) };
}

async function inServerRoom(user: TestUser, serverId: string) {
  const socket = await server.connect(user.token);
  expect(await socket.emitWithAck("server:join", serverId)).toEqual({ ok: true, serverId });
  return socket;
}

const managedRole = (serverId: string, botUserId: string) => server.app.store.roles.findManaged(serverId, botUserId);

describe("POST /api/v1/oauth2/applications/:appId/servers/:serverId (owner-add)", () => {
  test("adds the bot with a managed role holding the defaults; member:joined, role:created, BOT_ADD", async () => {
    const f = await setup("Helper [BOT]");
    const socket = await inServerRoom(f.member, f.serverId);
    const joined = waitForEvent(socket, "member:joined");
    const created = waitForEvent(socket, "role:created");
    const res = await ownerAdd(f.owner, f.bot, f.serverId);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["bot_user_id", "joined", "permissions", "role", "server_id"]);
    expect(res.body).toMatchObject({ server_id: f.serverId, bot_user_id: f.bot.botUserId, joined: true, permissions: DEFAULT_BOT });
    expect(res.body.role).toMatchObject({ name: "Helper", permissions: DEFAULT_BOT, server_id: f.serverId, is_default: 0, managed_bot_id: f.bot.botUserId });
    expect(await joined).toEqual({ serverId: f.serverId, userId: f.bot.botUserId, username: "Helper [BOT]", avatar: null });
    expect(await created).toMatchObject({ id: res.body.role.id, name: "Helper", permissions: DEFAULT_BOT, managed_bot_id: f.bot.botUserId });
    // The role list tells the managed role apart (docs/roles.md); other roles carry null.
    const listed = (await server.api("GET", `/api/v1/roles/${f.serverId}`, { token: f.member.token })).body;
    expect(listed.map((r: { id: string; managed_bot_id: string | null }) => [r.id, r.managed_bot_id])).toEqual(
      listed.map((r: { id: string }) => [r.id, r.id === res.body.role.id ? f.bot.botUserId : null]),
    );

    const members = await server.api("GET", `/api/v1/servers/${f.serverId}/members`, { token: f.owner.token });
    const botMember = members.body.find((m: { user_id: string }) => m.user_id === f.bot.botUserId);
    expect(botMember).toMatchObject({ is_bot: 1, role: "member", roles: [res.body.role.id] });

    const [entry] = await auditLog(server, f.serverId, f.owner, "BOT_ADD");
    expect(entry).toMatchObject({
      actor_id: f.owner.id,
      target_type: "member",
      target_id: f.bot.botUserId,
      target_username: f.bot.name,
      changes: { permissions: DEFAULT_BOT, roleId: res.body.role.id },
    });
  });

  test("takes explicit permissions; ADMINISTRATOR is stored alone", async () => {
    const f = await setup();
    const res = await ownerAdd(f.owner, f.bot, f.serverId, { permissions: ADMINISTRATOR | KICK_BAN_MUTE | 2048 });
    expect(res.status).toBe(200);
    expect(res.body.permissions).toBe(ADMINISTRATOR);
    expect((await managedRole(f.serverId, f.bot.botUserId))?.permissions).toBe(ADMINISTRATOR);
  });

  test("the app's owner must also be admin or owner of the server", async () => {
    const f = await setup();
    const otherServer = await createServer(server, f.outsider);
    expect((await ownerAdd(f.owner, f.bot, otherServer)).status).toBe(403); // not a member
    await addMember(server, otherServer, f.owner, "moderator");
    const res = await ownerAdd(f.owner, f.bot, otherServer);
    expect(res.status).toBe(403);
    expect(res.body.error).toBeString();
    await server.app.store.members.remove(otherServer, f.owner.id);
    await addMember(server, otherServer, f.owner, "admin");
    expect((await ownerAdd(f.owner, f.bot, otherServer)).status).toBe(200);
  });

  test("only the app's owner: someone else's app is 404, even for the server owner", async () => {
    const f = await setup();
    const othersBot = await createBot(server, f.outsider);
    expect((await ownerAdd(f.owner, othersBot, f.serverId)).status).toBe(404);
  });

  test("401 without a token, 403 for a bot token, 404 for unknown ids, 400 for bad bodies", async () => {
    const f = await setup();
    expect((await ownerAdd(null, f.bot, f.serverId)).status).toBe(401);
    const asBot = await ownerAdd({ token: f.bot.token }, f.bot, f.serverId);
    expect(asBot).toMatchObject({ status: 403, body: { error: "Bots cannot manage applications" } });
    expect((await call("POST", `/applications/${UNKNOWN}/servers/${f.serverId}`, f.owner, {})).status).toBe(404);
    expect((await call("POST", `/applications/nope/servers/${f.serverId}`, f.owner, {})).status).toBe(404);
    expect((await ownerAdd(f.owner, f.bot, UNKNOWN)).status).toBe(404);
    expect((await ownerAdd(f.owner, f.bot, "nope")).status).toBe(404);
    expect((await ownerAdd(f.owner, f.bot, f.serverId, { permissions: "8" })).status).toBe(400);
    expect((await ownerAdd(f.owner, f.bot, f.serverId, { permissions: -1 })).status).toBe(400);
    expect((await ownerAdd(f.owner, f.bot, f.serverId, { permissions: 2 ** 24 })).status).toBe(400);
    expect((await ownerAdd(f.owner, f.bot, f.serverId, { permissions: 1.5 })).status).toBe(400);
    expect((await ownerAdd(f.owner, f.bot, f.serverId, [])).status).toBe(400);
  });

  test("a banned bot is refused", async () => {
    const f = await setup();
    await server.app.store.moderation.ban(f.serverId, f.bot.botUserId, null, f.owner.id);
    const res = await ownerAdd(f.owner, f.bot, f.serverId);
    expect(res).toMatchObject({ status: 403, body: { error: "This bot is banned from this server" } });
    expect(await server.app.store.members.find(f.serverId, f.bot.botUserId)).toBeNull();
  });

  test("the bot's token works on a server route once it is in", async () => {
    const f = await setup();
    expect((await server.api("GET", `/api/v1/servers/${f.serverId}/members`, { token: f.bot.token })).status).toBe(403);
    await ownerAdd(f.owner, f.bot, f.serverId);
    expect((await server.api("GET", `/api/v1/servers/${f.serverId}/members`, { token: f.bot.token })).status).toBe(200);
  });
});

describe("POST /api/v1/oauth2/invite/:botUserId/add/:serverId (authorize)", () => {
  test("a server admin authorizes a public bot with the given bitfield", async () => {
    const f = await setup();
    const socket = await inServerRoom(f.member, f.serverId);
    const joined = waitForEvent(socket, "member:joined");
    const res = await authorize(f.admin, f.bot, f.serverId, { permissions: KICK_BAN_MUTE | 2048 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ joined: true, permissions: KICK_BAN_MUTE | 2048, role: { permissions: KICK_BAN_MUTE | 2048 } });
    expect((await joined).userId).toBe(f.bot.botUserId);
    expect((await auditLog(server, f.serverId, f.owner, "BOT_ADD"))[0]).toMatchObject({
      actor_id: f.admin.id,
      target_id: f.bot.botUserId,
      changes: { permissions: KICK_BAN_MUTE | 2048, roleId: res.body.role.id },
    });
  });

  test("authorizing again updates the managed role's permissions, without a second join", async () => {
    const f = await setup();
    const first = await authorize(f.owner, f.bot, f.serverId, { permissions: 2048 });
    const socket = await inServerRoom(f.member, f.serverId);
    const joins: unknown[] = [];
    socket.on("member:joined", (p) => joins.push(p));
    const updated = waitForEvent(socket, "role:updated");
    const again = await authorize(f.owner, f.bot, f.serverId, { permissions: 2048 | 4096 | ADMINISTRATOR });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ joined: false, permissions: ADMINISTRATOR, role: { id: first.body.role.id, permissions: ADMINISTRATOR } });
    expect(await updated).toMatchObject({ id: first.body.role.id, permissions: ADMINISTRATOR });
    expect(joins).toEqual([]);
    const roles = (await server.app.store.roles.list(f.serverId)).filter((r) => r.managed_bot_id === f.bot.botUserId);
    expect(roles.length).toBe(1);
    expect(await auditLog(server, f.serverId, f.owner, "BOT_ADD")).toHaveLength(1);
  });

  test("two concurrent adds make one role and one join", async () => {
    const f = await setup();
    const results = await Promise.all([authorize(f.owner, f.bot, f.serverId, { permissions: 2048 }), ownerAdd(f.owner, f.bot, f.serverId)]);
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    expect(results.filter((r) => r.body.joined).length).toBe(1);
    const roles = (await server.app.store.roles.list(f.serverId)).filter((r) => r.managed_bot_id === f.bot.botUserId);
    expect(roles.length).toBe(1);
  });

  test("a plain member or moderator cannot authorize (403); a non-member gets 403", async () => {
    const f = await setup();
    const res = await authorize(f.member, f.bot, f.serverId, { permissions: 2048 });
    expect(res.status).toBe(403);
    expect((await authorize(f.outsider, f.bot, f.serverId, { permissions: 2048 })).status).toBe(403);
    expect(await server.app.store.members.find(f.serverId, f.bot.botUserId)).toBeNull();
  });

  test("public_invite false: only the app's owner may authorize (Errors 7)", async () => {
    const f = await setup();
    const otherServer = await createServer(server, f.outsider);
    expect((await call("PATCH", `/applications/${f.bot.appId}/public-invite`, f.owner, { public_invite: false })).status).toBe(200);
    const refused = await authorize(f.outsider, f.bot, otherServer, { permissions: 2048 });
    expect(refused).toMatchObject({ status: 403, body: { error: "This bot is private: only its owner can add it to a server" } });
    expect((await authorize(f.owner, f.bot, f.serverId, { permissions: 2048 })).status).toBe(200);
    // Public again: anyone administering a server may add it.
    await call("PATCH", `/applications/${f.bot.appId}/public-invite`, f.owner, { public_invite: true });
    expect((await authorize(f.outsider, f.bot, otherServer, { permissions: 2048 })).status).toBe(200);
  });

  test("locked invite permissions: the bitfield must equal the defaults (Errors 6)", async () => {
    const f = await setup();
    await call("PATCH", `/applications/${f.bot.appId}/permissions`, f.owner, { default_permissions: 2048 | 4096, invite_permission_locked: true });
    const refused = await authorize(f.admin, f.bot, f.serverId, { permissions: 2048 });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toContain("locked");
    expect((await ownerAdd(f.owner, f.bot, f.serverId, { permissions: 8 })).status).toBe(403);
    const ok = await authorize(f.admin, f.bot, f.serverId, { permissions: 2048 | 4096 });
    expect(ok.status).toBe(200);
  });

  test("a banned bot is refused", async () => {
    const f = await setup();
    await server.app.store.moderation.ban(f.serverId, f.bot.botUserId, null, f.owner.id);
    expect((await authorize(f.admin, f.bot, f.serverId, { permissions: 2048 })).status).toBe(403);
  });

  test("401, 403 for bot tokens, 404 for unknown bots and servers, 400 for bad bodies", async () => {
    const f = await setup();
    expect((await authorize(null, f.bot, f.serverId, { permissions: 2048 })).status).toBe(401);
    expect((await authorize({ token: f.bot.token }, f.bot, f.serverId, { permissions: 2048 })).status).toBe(403);
    expect((await call("POST", `/invite/${UNKNOWN}/add/${f.serverId}`, f.owner, { permissions: 2048 })).status).toBe(404);
    expect((await call("POST", `/invite/${f.member.id}/add/${f.serverId}`, f.owner, { permissions: 2048 })).status).toBe(404);
    expect((await call("POST", `/invite/nope/add/${f.serverId}`, f.owner, { permissions: 2048 })).status).toBe(404);
    expect((await authorize(f.owner, f.bot, UNKNOWN, { permissions: 2048 })).status).toBe(404);
    expect((await authorize(f.owner, f.bot, f.serverId, {})).body).toEqual({ error: "permissions: is required" });
    expect((await authorize(f.owner, f.bot, f.serverId, { permissions: "2048" })).status).toBe(400);
    expect((await authorize(f.owner, f.bot, f.serverId, { permissions: 2 ** 24 })).status).toBe(400);
  });
});

describe("the managed role", () => {
  test("cannot be assigned to other members", async () => {
    const f = await setup();
    const added = await ownerAdd(f.owner, f.bot, f.serverId);
    const res = await server.api("POST", `/api/v1/roles/${f.serverId}/assign`, {
      token: f.owner.token,
      body: { targetUserId: f.member.id, roleId: added.body.role.id },
    });
    expect(res.status).toBe(400);
  });

  test("is kept when the owner removes the bot, and reused when it comes back", async () => {
    const f = await setup();
    const added = await ownerAdd(f.owner, f.bot, f.serverId, { permissions: 2048 });
    const socket = await inServerRoom(f.member, f.serverId);
    const left = waitForEvent(socket, "member:left");
    const res = await call("DELETE", `/applications/${f.bot.appId}/servers/${f.serverId}`, f.owner);
    expect(res.status).toBe(200);
    expect(await left).toEqual({ serverId: f.serverId, userId: f.bot.botUserId });
    expect(await server.app.store.members.find(f.serverId, f.bot.botUserId)).toBeNull();
    const kept = await managedRole(f.serverId, f.bot.botUserId);
    expect(kept?.id).toBe(added.body.role.id);

    const created: unknown[] = [];
    socket.on("role:created", (p) => created.push(p));
    const back = await ownerAdd(f.owner, f.bot, f.serverId, { permissions: 4096 | 2048 });
    expect(back.body).toMatchObject({ joined: true, role: { id: added.body.role.id, permissions: 4096 | 2048 } });
    expect(created).toEqual([]);
  });

  test("PATCH application permissions changes new invites only, never existing managed roles", async () => {
    const f = await setup();
    await ownerAdd(f.owner, f.bot, f.serverId);
    const res = await call("PATCH", `/applications/${f.bot.appId}/permissions`, f.owner, { default_permissions: 8 });
    expect(res.status).toBe(200);
    expect((await managedRole(f.serverId, f.bot.botUserId))?.permissions).toBe(DEFAULT_BOT);
    const otherServer = await createServer(server, f.owner);
    await ownerAdd(f.owner, f.bot, otherServer);
    expect((await managedRole(otherServer, f.bot.botUserId))?.permissions).toBe(8);
  });
});

describe("DELETE /api/v1/oauth2/applications/:appId/servers/:serverId", () => {
  test("401, 403 for bots, 404 for others' apps, unknown servers and a bot not in the server", async () => {
    const f = await setup();
    await ownerAdd(f.owner, f.bot, f.serverId);
    const path = `/applications/${f.bot.appId}/servers/${f.serverId}`;
    expect((await call("DELETE", path, null)).status).toBe(401);
    expect((await call("DELETE", path, { token: f.bot.token })).status).toBe(403);
    expect((await call("DELETE", path, f.admin)).status).toBe(404);
    expect((await call("DELETE", `/applications/${f.bot.appId}/servers/${UNKNOWN}`, f.owner)).status).toBe(404);
    const otherServer = await createServer(server, f.owner);
    expect((await call("DELETE", `/applications/${f.bot.appId}/servers/${otherServer}`, f.owner)).status).toBe(404);
    expect(await server.app.store.members.find(f.serverId, f.bot.botUserId)).not.toBeNull();
  });
});

describe("GET /api/v1/oauth2/applications/:appId/servers", () => {
  test("lists the bot's servers with its role's permissions and labels", async () => {
    const f = await setup();
    expect((await call("GET", `/applications/${f.bot.appId}/servers`, f.owner)).body).toEqual([]);
    const added = await ownerAdd(f.owner, f.bot, f.serverId, { permissions: 2048 | 1 });
    const res = await call("GET", `/applications/${f.bot.appId}/servers`, f.owner);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        id: f.serverId,
        name: "Test Server",
        icon: null,
        role_id: added.body.role.id,
        bot_permissions: 2049,
        permission_labels: ["Manage Channels", "View Channels"],
      },
    ]);
    expect((await call("GET", `/applications/${f.bot.appId}/servers`, null)).status).toBe(401);
    expect((await call("GET", `/applications/${f.bot.appId}/servers`, { token: f.bot.token })).status).toBe(403);
    expect((await call("GET", `/applications/${f.bot.appId}/servers`, f.member)).status).toBe(404);
  });
});

describe("PATCH /api/v1/oauth2/applications/:appId/servers/:serverId/permissions", () => {
  test("always 403 (Errors 3): server admins edit the bot's role in server settings", async () => {
    const f = await setup();
    await ownerAdd(f.owner, f.bot, f.serverId);
    const path = `/applications/${f.bot.appId}/servers/${f.serverId}/permissions`;
    const res = await call("PATCH", path, f.owner, { permissions: 8 });
    expect(res.status).toBe(403);
    expect(res.body.error).toContain("server settings");
    expect((await call("PATCH", path, f.owner)).status).toBe(403);
    expect((await call("PATCH", `/applications/${UNKNOWN}/servers/${UNKNOWN}/permissions`, f.admin, {})).status).toBe(403);
    expect((await managedRole(f.serverId, f.bot.botUserId))?.permissions).toBe(DEFAULT_BOT);
    expect((await call("PATCH", path, null, {})).status).toBe(401);
  });
});
