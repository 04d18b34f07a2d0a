import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { addMember, createServer } from "../helpers/community.ts";
import { createBot } from "../helpers/bots.ts";
import { fileForm, GIF_1X1, NOT_AN_IMAGE, PNG_1X1, pngOfSize } from "../helpers/images.ts";
import { startServer, waitForDisconnect, waitForEvent, type TestServer } from "../helpers/server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";
const DEFAULT_BOT = 8895488;
const APP_KEYS = [
  "avatar", "banner", "banner_offset", "bot_user_id", "client_secret", "created_at", "default_permissions", "description", "id",
  "invite_permission_locked", "name", "owner_id", "public_invite", "updated_at",
];

const call = (method: string, path: string, user: { token: string } | null, body?: unknown) =>
  server.api(method, `/api/v1/oauth2${path}`, { token: user?.token, body });
const upload = (path: string, user: { token: string } | null, form: FormData) =>
  server.api("POST", `/api/v1/oauth2${path}`, { token: user?.token, raw: form });

async function setup() {
  const owner = await server.register();
  const other = await server.register();
  const bot = await createBot(server, owner);
  return { owner, other, bot };
}

/** Management routes that need nothing but the app id: each must refuse 401/403/404 alike. */
const simpleRoutes = (appId: string): [string, string, unknown][] => [
  ["GET", `/applications/${appId}`, undefined],
  ["PUT", `/applications/${appId}`, { name: "Renamed" }],
  ["POST", `/applications/${appId}/token`, undefined],
  ["PATCH", `/applications/${appId}/banner-offset`, { banner_offset: 5 }],
  ["PATCH", `/applications/${appId}/public-invite`, { public_invite: false }],
  ["PATCH", `/applications/${appId}/permissions`, { default_permissions: 8 }],
  ["GET", `/applications/${appId}/servers`, undefined],
  ["DELETE", `/applications/${appId}`, undefined],
];

describe("GET /api/v1/oauth2/applications", () => {
  test("lists the caller's own applications only", async () => {
    const { owner, other, bot } = await setup();
    const second = await createBot(server, owner);
    await createBot(server, other);
    const res = await call("GET", "/applications", owner);
    expect(res.status).toBe(200);
    expect(res.body.map((a: { id: string }) => a.id)).toEqual([bot.appId, second.appId]);
    expect(Object.keys(res.body[0]).sort()).toEqual(APP_KEYS);
    expect(res.body[0]).toEqual(bot.application);
    expect((await call("GET", "/applications", (await server.register()))).body).toEqual([]);
  });

  test("401 without a token; 403 for a bot token", async () => {
    const { bot } = await setup();
    expect((await call("GET", "/applications", null)).status).toBe(401);
    expect(await call("GET", "/applications", { token: bot.token })).toMatchObject({
      status: 403,
      body: { error: "Bots cannot manage applications" },
    });
  });
});

describe("GET /api/v1/oauth2/applications/:appId", () => {
  test("answers the application to its owner", async () => {
    const { owner, bot } = await setup();
    const res = await call("GET", `/applications/${bot.appId}`, owner);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(bot.application);
    expect(res.body).toMatchObject({ default_permissions: DEFAULT_BOT, public_invite: true, invite_permission_locked: false });
  });

  test("every management route: 401, 403 for bots, 404 for others' apps, unknown and non-UUID ids", async () => {
    const { owner, other, bot } = await setup();
    for (const [method, path, body] of simpleRoutes(bot.appId)) {
      expect([method, path, (await call(method, path, null, body)).status]).toEqual([method, path, 401]);
      expect([method, path, (await call(method, path, { token: bot.token }, body)).status]).toEqual([method, path, 403]);
      expect([method, path, (await call(method, path, other, body)).status]).toEqual([method, path, 404]);
    }
    for (const id of [UNKNOWN, "not-a-uuid"]) {
      for (const [method, path, body] of simpleRoutes(id)) {
        expect([method, path, (await call(method, path, owner, body)).status]).toEqual([method, path, 404]);
      }
    }
    // Nothing changed.
    expect((await call("GET", `/applications/${bot.appId}`, owner)).body).toEqual(bot.application);
  });
});

describe("PUT /api/v1/oauth2/applications/:appId", () => {
  test("renames the app, its bot user and its managed roles (without [BOT]); role:updated", async () => {
    const { owner, other, bot } = await setup();
    const serverId = await createServer(server, owner);
    await addMember(server, serverId, other);
    const added = await call("POST", `/applications/${bot.appId}/servers/${serverId}`, owner, {});
    const socket = await server.connect(other.token);
    await socket.emitWithAck("server:join", serverId);
    const updated = waitForEvent(socket, "role:updated");

    const res = await call("PUT", `/applications/${bot.appId}`, owner, { name: "  Weather [BOT] ", description: "Forecasts" });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(APP_KEYS);
    expect(res.body).toMatchObject({ id: bot.appId, name: "Weather [BOT]", description: "Forecasts" });
    expect(await updated).toMatchObject({ id: added.body.role.id, name: "Weather" });
    const botUser = await server.api("GET", "/api/v1/users/me/info", { token: bot.token });
    expect(botUser.body.username).toBe("Weather [BOT]");
    expect((await server.app.store.roles.findManaged(serverId, bot.botUserId))?.name).toBe("Weather");
    // The managed role keeps working: still the bot's, still not assignable to others.
    const assign = await server.api("POST", `/api/v1/roles/${serverId}/assign`, {
      token: owner.token,
      body: { targetUserId: other.id, roleId: added.body.role.id },
    });
    expect(assign.status).toBe(400);
  });

  test("a bot may share its name with a human account", async () => {
    const { owner, other, bot } = await setup();
    const res = await call("PUT", `/applications/${bot.appId}`, owner, { name: other.username });
    expect(res.status).toBe(200);
    expect(res.body.name).toBe(other.username);
  });

  test("description alone leaves the name", async () => {
    const { owner, bot } = await setup();
    const res = await call("PUT", `/applications/${bot.appId}`, owner, { description: "" });
    expect(res.body).toMatchObject({ name: bot.name, description: "" });
  });

  test("400 for bad bodies", async () => {
    const { owner, bot } = await setup();
    const path = `/applications/${bot.appId}`;
    expect((await call("PUT", path, owner, { name: "" })).body).toEqual({ error: "name: must not be empty" });
    expect((await call("PUT", path, owner, { name: "x".repeat(33) })).status).toBe(400);
    expect((await call("PUT", path, owner, { name: 5 })).status).toBe(400);
    expect((await call("PUT", path, owner, { description: "x".repeat(401) })).status).toBe(400);
    expect((await call("PUT", path, owner, [1])).status).toBe(400);
  });
});

describe("POST /api/v1/oauth2/applications/:appId/token", () => {
  test("the old token fails at once, its socket is disconnected, the new one works", async () => {
    const { owner, bot } = await setup();
    const socket = await server.connect(bot.token);
    const dropped = waitForDisconnect(socket);
    const res = await call("POST", `/applications/${bot.appId}/token`, owner);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["bot_token"]);
    expect(res.body.bot_token).not.toBe(bot.token);
    await dropped;
    expect((await server.api("GET", "/api/v1/users/me/info", { token: bot.token })).status).toBe(401);
    await expect(server.connect(bot.token)).rejects.toThrow("Unauthorized");
    const me = await server.api("GET", "/api/v1/users/me/info", { token: res.body.bot_token });
    expect(me).toMatchObject({ status: 200, body: { id: bot.botUserId, is_bot: 1 } });
    const again = await server.connect(res.body.bot_token);
    expect(again.connected).toBe(true);
  });
});

describe("DELETE /api/v1/oauth2/applications/:appId", () => {
  test("deletes the app and its bot user; member:left to each server; its token fails", async () => {
    const { owner, other, bot } = await setup();
    const serverId = await createServer(server, owner);
    await addMember(server, serverId, other);
    const added = await call("POST", `/applications/${bot.appId}/servers/${serverId}`, owner, {});
    const sent = await server.api("GET", `/api/v1/servers/${serverId}/members`, { token: bot.token });
    expect(sent.status).toBe(200);
    const watcher = await server.connect(other.token);
    await watcher.emitWithAck("server:join", serverId);
    const botSocket = await server.connect(bot.token);
    const dropped = waitForDisconnect(botSocket);
    const left = waitForEvent(watcher, "member:left");

    const res = await call("DELETE", `/applications/${bot.appId}`, owner);
    expect(res).toMatchObject({ status: 200, body: { success: true } });
    expect(await left).toEqual({ serverId, userId: bot.botUserId });
    await dropped;
    expect((await server.api("GET", "/api/v1/users/me/info", { token: bot.token })).status).toBe(401);
    expect(await server.app.store.users.findById(bot.botUserId)).toBeNull();
    expect(await server.app.store.members.find(serverId, bot.botUserId)).toBeNull();
    expect((await call("GET", `/applications/${bot.appId}`, owner)).status).toBe(404);
    expect((await call("GET", "/applications", owner)).body).toEqual([]);
    expect((await call("GET", `/invite/${bot.botUserId}`, null)).status).toBe(404);
    // The managed role stays for the server's admins to delete; nobody holds it.
    const role = await server.app.store.roles.find(serverId, added.body.role.id);
    expect(role).not.toBeNull();
    expect(await server.app.store.roles.holders(added.body.role.id)).toEqual([]);
  });

  test("a server the bot created goes with it (no 500)", async () => {
    const { owner, bot } = await setup();
    const created = await server.api("POST", "/api/v1/servers", { token: bot.token, body: { name: "Bot home" } });
    expect(created.status).toBe(201);
    const res = await call("DELETE", `/applications/${bot.appId}`, owner);
    expect(res.status).toBe(200);
    expect(await server.app.store.servers.findById(created.body.id)).toBeNull();
  });
});

describe("POST /api/v1/oauth2/applications/:appId/avatar and /banner", () => {
  test("the avatar is stored on the app and on its bot user, replacing the old file", async () => {
    const { owner, bot } = await setup();
    const res = await upload(`/applications/${bot.appId}/avatar`, owner, fileForm("avatar", PNG_1X1, "a.gif", "image/gif"));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(APP_KEYS);
    expect(res.body.avatar).toMatch(/^\/uploads\/avatars\/[0-9a-f-]{36}\.png$/);
    const me = await server.api("GET", "/api/v1/users/me/info", { token: bot.token });
    expect(me.body.avatar).toBe(res.body.avatar);
    const file = await fetch(server.url + res.body.avatar);
    expect(file.status).toBe(200);

    const second = await upload(`/applications/${bot.appId}/avatar`, owner, fileForm("avatar", GIF_1X1, "b.gif"));
    expect(second.body.avatar).toMatch(/\.gif$/);
    expect(existsSync(join(server.dataDir, second.body.avatar))).toBe(true);
    expect(existsSync(join(server.dataDir, res.body.avatar))).toBe(false);
  });

  test("the banner is stored on the app; 5 MB at most", async () => {
    const { owner, bot } = await setup();
    const res = await upload(`/applications/${bot.appId}/banner`, owner, fileForm("banner", PNG_1X1, "b.png"));
    expect(res.status).toBe(200);
    expect(res.body.banner).toMatch(/^\/uploads\/banners\/.+\.png$/);
    const big = await upload(`/applications/${bot.appId}/banner`, owner, fileForm("banner", pngOfSize(5 * 1024 * 1024 + 1), "b.png"));
    expect(big.status).toBe(413);
  });

  test("refuses what is not an image, a missing field, oversized avatars, bots and others", async () => {
    const { owner, other, bot } = await setup();
    const path = `/applications/${bot.appId}/avatar`;
    expect((await upload(path, owner, fileForm("avatar", NOT_AN_IMAGE, "x.png"))).status).toBe(400);
    expect((await upload(path, owner, fileForm("banner", PNG_1X1, "x.png"))).status).toBe(400);
    expect((await upload(path, owner, fileForm("avatar", pngOfSize(2 * 1024 * 1024 + 1), "x.png"))).status).toBe(413);
    expect((await upload(path, null, fileForm("avatar", PNG_1X1, "x.png"))).status).toBe(401);
    expect((await upload(path, { token: bot.token }, fileForm("avatar", PNG_1X1, "x.png"))).status).toBe(403);
    expect((await upload(path, other, fileForm("avatar", PNG_1X1, "x.png"))).status).toBe(404);
    expect((await upload(`/applications/${UNKNOWN}/banner`, owner, fileForm("banner", PNG_1X1, "x.png"))).status).toBe(404);
    expect((await call("GET", `/applications/${bot.appId}`, owner)).body.avatar).toBeNull();
  });
});

describe("PATCH banner-offset and public-invite", () => {
  test("set the field and answer the application", async () => {
    const { owner, bot } = await setup();
    const offset = await call("PATCH", `/applications/${bot.appId}/banner-offset`, owner, { banner_offset: 42 });
    expect(offset.status).toBe(200);
    expect(Object.keys(offset.body).sort()).toEqual(APP_KEYS);
    expect(offset.body.banner_offset).toBe(42);
    const invite = await call("PATCH", `/applications/${bot.appId}/public-invite`, owner, { public_invite: false });
    expect(invite.body).toMatchObject({ public_invite: false, banner_offset: 42 });
    expect((await call("GET", `/invite/${bot.botUserId}`, null)).body.public_invite).toBe(false);
  });

  test("400 for bad bodies", async () => {
    const { owner, bot } = await setup();
    const offset = `/applications/${bot.appId}/banner-offset`;
    for (const body of [{}, { banner_offset: -1 }, { banner_offset: 101 }, { banner_offset: 1.5 }, { banner_offset: "5" }]) {
      expect((await call("PATCH", offset, owner, body)).status).toBe(400);
    }
    const invite = `/applications/${bot.appId}/public-invite`;
    for (const body of [{}, { public_invite: "false" }, { public_invite: 0 }]) {
      expect((await call("PATCH", invite, owner, body)).status).toBe(400);
    }
    expect((await call("PATCH", invite, owner, {})).body).toEqual({ error: "public_invite: is required" });
  });
});

describe("PATCH /api/v1/oauth2/applications/:appId/permissions", () => {
  test("answers {default_permissions, invite_permission_locked, permission_labels}", async () => {
    const { owner, bot } = await setup();
    const res = await call("PATCH", `/applications/${bot.appId}/permissions`, owner, { default_permissions: 1 | 4 | 2048 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      default_permissions: 2053,
      invite_permission_locked: false,
      permission_labels: ["Manage Channels", "Kick Members", "View Channels"],
    });
    const locked = await call("PATCH", `/applications/${bot.appId}/permissions`, owner, { default_permissions: 2048, invite_permission_locked: true });
    expect(locked.body).toEqual({ default_permissions: 2048, invite_permission_locked: true, permission_labels: ["View Channels"] });
    // Leaving the lock out keeps it.
    const kept = await call("PATCH", `/applications/${bot.appId}/permissions`, owner, { default_permissions: 4096 });
    expect(kept.body.invite_permission_locked).toBe(true);
  });

  test("ADMINISTRATOR is stored alone", async () => {
    const { owner, bot } = await setup();
    const res = await call("PATCH", `/applications/${bot.appId}/permissions`, owner, { default_permissions: 512 | 2048 | 8 });
    expect(res.body).toEqual({ default_permissions: 512, invite_permission_locked: false, permission_labels: ["Administrator"] });
    expect((await call("GET", `/applications/${bot.appId}`, owner)).body.default_permissions).toBe(512);
  });

  test("400 for bad bodies", async () => {
    const { owner, bot } = await setup();
    const path = `/applications/${bot.appId}/permissions`;
    expect((await call("PATCH", path, owner, {})).body).toEqual({ error: "default_permissions: is required" });
    for (const body of [
      { default_permissions: -1 },
      { default_permissions: 2 ** 24 },
      { default_permissions: "8" },
      { default_permissions: 1.5 },
      { default_permissions: 8, invite_permission_locked: "yes" },
    ]) {
      expect((await call("PATCH", path, owner, body)).status).toBe(400);
    }
  });
});

describe("GET /api/v1/oauth2/invite/:botUserId (public invite card)", () => {
  test("needs no token and shows the card", async () => {
    const { owner, bot } = await setup();
    await call("PATCH", `/applications/${bot.appId}/permissions`, owner, { default_permissions: 2048 | 4096 });
    const res = await call("GET", `/invite/${bot.botUserId}`, null);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      bot_user_id: bot.botUserId,
      name: bot.name,
      avatar: null,
      banner: null,
      banner_offset: 0,
      description: `${bot.name} does things`,
      public_invite: true,
      default_permissions: 6144,
      invite_permission_locked: false,
      permission_labels: ["View Channels", "Send Messages"],
      permission_flags: ["VIEW_CHANNEL", "SEND_MESSAGES"],
      invite_url: `/invite?bot=${bot.botUserId}&permissions=6144`,
    });
    expect(JSON.stringify(res.body)).not.toContain(bot.application.client_secret as string);
  });

  test("404 for unknown ids, non-UUIDs and users that are not bots", async () => {
    const { owner } = await setup();
    expect((await call("GET", `/invite/${UNKNOWN}`, null)).status).toBe(404);
    expect((await call("GET", "/invite/nope", null)).status).toBe(404);
    expect((await call("GET", `/invite/${owner.id}`, null)).status).toBe(404);
  });
});
