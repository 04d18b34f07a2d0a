import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addMember, auditEntries, community, createServer } from "../helpers/community.ts";
import { fileForm, GIF_1X1, NOT_AN_IMAGE, PNG_1X1, pngOfSize } from "../helpers/images.ts";
import { startServer, waitForEvent, type TestServer, type TestUser } from "../helpers/server.ts";
import { totpCode, wrongCode } from "../helpers/totp.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const SERVER_KEYS = [
  "banner", "banner_offset", "created_at", "description", "icon", "id", "member_count", "name", "owner_id", "settings", "updated_at", "vanity_code", "verified",
];
const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";

const call = (method: string, path: string, user: TestUser | null, body?: unknown, headers?: Record<string, string>) =>
  server.api(method, `/api/v1/servers${path}`, { token: user?.token, body, headers });

describe("POST /api/v1/servers", () => {
  test("creates the server, @everyone, #general and the owner's membership", async () => {
    const owner = await server.register();
    const res = await call("POST", "", owner, { name: "  Hearth HQ  ", description: "home" });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(SERVER_KEYS);
    expect(res.body).toMatchObject({
      name: "Hearth HQ", description: "home", icon: null, banner: null, banner_offset: 0, owner_id: owner.id,
      vanity_code: null, verified: false, member_count: 1,
      settings: { system_channel_id: null, default_notifications: "all", welcome_message: "" },
    });
    const roles = server.app.store.members;
    const channels = await server.app.store.channels.listByServer(res.body.id);
    expect(channels.map((c) => [c.name, c.type])).toEqual([["general", "text"]]);
    const access = await server.app.store.access.member(res.body.id, owner.id);
    expect(access?.everyone_permissions).toBe(16235520);
    expect(access?.role).toBe("owner");
    const members = await roles.list(res.body.id);
    expect(members.map((m) => [m.user_id, m.role])).toEqual([[owner.id, "owner"]]);
    const audit = await auditEntries(server, res.body.id);
    expect(audit.map((e) => e.action)).toEqual(["SERVER_CREATE"]);
  });

  test("validates the body and needs a token", async () => {
    const user = await server.register();
    expect((await call("POST", "", user, { name: "" })).body).toEqual({ error: "name: must not be empty" });
    expect((await call("POST", "", user, {})).body).toEqual({ error: "name: is required" });
    expect((await call("POST", "", user, { name: "x".repeat(101) })).status).toBe(400);
    expect((await call("POST", "", user, { name: "ok", description: 5 })).status).toBe(400);
    expect((await call("POST", "", null, { name: "ok" })).status).toBe(401);
  });

  test("counts servers in /stats", async () => {
    const before = (await server.api("GET", "/api/v1/stats")).body.servers;
    const owner = await server.register();
    const id = await createServer(server, owner);
    expect((await server.api("GET", "/api/v1/stats")).body.servers).toBe(before + 1);
    await call("DELETE", `/${id}`, owner);
    expect((await server.api("GET", "/api/v1/stats")).body.servers).toBe(before);
  });
});

describe("reading servers", () => {
  test("GET / lists the caller's servers in their order; PUT /reorder changes it", async () => {
    const user = await server.register();
    const a = await createServer(server, user, "A");
    const b = await createServer(server, user, "B");
    const c = await createServer(server, user, "C");
    expect((await call("GET", "", user)).body.map((s: { id: string }) => s.id)).toEqual([a, b, c]);
    const reordered = await call("PUT", "/reorder", user, { order: [c, a, b] });
    expect(reordered.status).toBe(200);
    expect(reordered.body.map((s: { id: string }) => s.id)).toEqual([c, a, b]);
    expect((await call("GET", "", user)).body.map((s: { id: string }) => s.id)).toEqual([c, a, b]);
    const other = await server.register();
    const foreign = await createServer(server, other);
    expect((await call("PUT", "/reorder", user, { order: [foreign] })).status).toBe(400);
    expect((await call("PUT", "/reorder", user, { order: [a, a] })).status).toBe(400);
    expect((await call("PUT", "/reorder", user, { order: "x" })).status).toBe(400);
    expect((await call("GET", "", null)).status).toBe(401);
  });

  test("GET /:id: members only (403), missing 404", async () => {
    const { owner, member, outsider, serverId } = await community(server);
    const res = await call("GET", `/${serverId}`, member);
    expect(res.status).toBe(200);
    expect(res.body.member_count).toBe(2);
    expect(Object.keys(res.body).sort()).toEqual(SERVER_KEYS);
    expect((await call("GET", `/${serverId}`, outsider)).status).toBe(403);
    expect((await call("GET", `/${UNKNOWN}`, owner)).status).toBe(404);
    expect((await call("GET", "/not-a-uuid", owner)).status).toBe(404);
    expect((await call("GET", `/${serverId}`, null)).status).toBe(401);
  });

  test("GET /:id/members: the contract's fields", async () => {
    const { owner, member, outsider, serverId } = await community(server);
    const res = await call("GET", `/${serverId}/members`, member);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(2);
    for (const entry of res.body) {
      expect(Object.keys(entry).sort()).toEqual(["avatar", "custom_status", "is_bot", "joined_at", "role", "roles", "status", "timeout_until", "user_id", "username"]);
    }
    expect(res.body.map((m: { user_id: string; role: string }) => [m.user_id, m.role])).toEqual([[owner.id, "owner"], [member.id, "member"]]);
    expect((await call("GET", `/${serverId}/members`, outsider)).status).toBe(403);
    expect((await call("GET", `/${UNKNOWN}/members`, owner)).status).toBe(404);
  });
});

describe("changing servers", () => {
  test("PUT /:id needs MANAGE_SERVER and is audited", async () => {
    const { owner, member, outsider, serverId } = await community(server);
    const res = await call("PUT", `/${serverId}`, owner, { name: "Renamed", description: "new" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: "Renamed", description: "new" });
    expect((await call("PUT", `/${serverId}`, member, { name: "Nope" })).status).toBe(403);
    expect((await call("PUT", `/${serverId}`, outsider, { name: "Nope" })).status).toBe(403);
    expect((await call("PUT", `/${serverId}`, owner, { name: 5 })).status).toBe(400);
    expect((await call("PUT", `/${UNKNOWN}`, owner, { name: "x" })).status).toBe(404);
    expect((await auditEntries(server, serverId))[0]).toMatchObject({ action: "SERVER_UPDATE", actor_id: owner.id });
    // An admin holds every permission.
    const admin = await server.register();
    await addMember(server, serverId, admin, "admin");
    expect((await call("PUT", `/${serverId}`, admin, { name: "By admin" })).status).toBe(200);
  });

  test("PATCH /:id/settings and /:id/banner-offset", async () => {
    const { owner, member, serverId } = await community(server);
    const [general] = await server.app.store.channels.listByServer(serverId);
    const res = await call("PATCH", `/${serverId}/settings`, owner, { system_channel_id: general!.id, default_notifications: "mentions" });
    expect(res.status).toBe(200);
    expect(res.body.settings).toEqual({ system_channel_id: general!.id, default_notifications: "mentions", welcome_message: "" });
    expect((await call("PATCH", `/${serverId}/settings`, owner, { system_channel_id: UNKNOWN })).status).toBe(400);
    expect((await call("PATCH", `/${serverId}/settings`, owner, { default_notifications: "loud" })).status).toBe(400);
    expect((await call("PATCH", `/${serverId}/settings`, member, { welcome_message: "hi" })).status).toBe(403);
    expect((await call("PATCH", `/${serverId}/banner-offset`, owner, { banner_offset: 40 })).body.banner_offset).toBe(40);
    for (const banner_offset of [-1, 101, 4.5, "50"]) {
      expect((await call("PATCH", `/${serverId}/banner-offset`, owner, { banner_offset })).status).toBe(400);
    }
    expect((await call("PATCH", `/${serverId}/banner-offset`, member, { banner_offset: 1 })).status).toBe(403);
  });

  test("icon and banner uploads: magic bytes, limits, GIFs keep their extension", async () => {
    const { owner, member, serverId } = await community(server);
    const upload = (user: TestUser, kind: string, form: FormData) =>
      server.api("POST", `/api/v1/servers/${serverId}/${kind}`, { token: user.token, raw: form });
    const icon = await upload(owner, "icon", fileForm("icon", GIF_1X1, "spin.png"));
    expect(icon.status).toBe(200);
    expect(icon.body.icon).toMatch(/^\/uploads\/server-icons\/[0-9a-f-]{36}\.gif$/);
    const served = await fetch(server.url + icon.body.icon);
    expect(served.headers.get("content-type")).toBe("image/gif");
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(GIF_1X1);
    const banner = await upload(owner, "banner", fileForm("banner", PNG_1X1, "b.png"));
    expect(banner.body.banner).toMatch(/^\/uploads\/server-banners\/.*\.png$/);
    expect((await upload(owner, "icon", fileForm("icon", NOT_AN_IMAGE, "x.png"))).status).toBe(400);
    expect((await upload(owner, "icon", fileForm("icon", pngOfSize(8 * 1024 * 1024 + 1), "big.png"))).status).toBe(413);
    expect((await upload(member, "icon", fileForm("icon", PNG_1X1, "x.png"))).status).toBe(403);
    // Replacing removes the old file.
    await upload(owner, "icon", fileForm("icon", PNG_1X1, "new.png"));
    expect((await fetch(server.url + icon.body.icon)).status).toBe(404);
    expect((await auditEntries(server, serverId)).map((e) => e.action)).toContain("SERVER_ICON");
  });

  test("POST /:id/vanity: taken codes 409, 2FA code needed when the caller has 2FA", async () => {
    const { owner, member, serverId } = await community(server);
    const res = await call("POST", `/${serverId}/vanity`, owner, { code: `Hearth-${owner.id.slice(-6)}` });
    expect(res.status).toBe(200);
    expect(res.body.vanity_code).toBe(`hearth-${owner.id.slice(-6)}`);
    const other = await server.register();
    const otherServer = await createServer(server, other);
    expect((await call("POST", `/${otherServer}/vanity`, other, { code: `hearth-${owner.id.slice(-6)}` })).status).toBe(409);
    expect((await call("POST", `/${serverId}/vanity`, owner, { code: "a" })).status).toBe(400);
    expect((await call("POST", `/${serverId}/vanity`, member, { code: "mine-now" })).status).toBe(403);
    expect((await call("POST", `/${serverId}/vanity`, owner, { code: null })).body.vanity_code).toBeNull();
    // With 2FA on, the header is required.
    const { body: setupBody } = await server.api("POST", "/api/v1/auth/2fa/setup", { token: owner.token });
    await server.api("POST", "/api/v1/auth/2fa/enable", { token: owner.token, body: { code: totpCode(setupBody.secret), password: owner.password } });
    const without = await call("POST", `/${serverId}/vanity`, owner, { code: "needs-2fa" });
    expect(without.status).toBe(403);
    expect(without.body.error).toContain("X-2FA-Code");
    expect((await call("POST", `/${serverId}/vanity`, owner, { code: "needs-2fa" }, { "x-2fa-code": wrongCode(setupBody.secret) })).status).toBe(403);
    expect((await call("POST", `/${serverId}/vanity`, owner, { code: "needs-2fa" }, { "x-2fa-code": totpCode(setupBody.secret) })).status).toBe(200);
    expect((await auditEntries(server, serverId))[0]).toMatchObject({ action: "SERVER_VANITY" });
  });

  test("DELETE /:id: owner only, 2FA when on, everything goes", async () => {
    const { owner, member, serverId } = await community(server);
    expect((await call("DELETE", `/${serverId}`, member)).status).toBe(403);
    const admin = await server.register();
    await addMember(server, serverId, admin, "admin");
    expect((await call("DELETE", `/${serverId}`, admin)).status).toBe(403);
    const { body: s } = await server.api("POST", "/api/v1/auth/2fa/setup", { token: owner.token });
    await server.api("POST", "/api/v1/auth/2fa/enable", { token: owner.token, body: { code: totpCode(s.secret), password: owner.password } });
    expect((await call("DELETE", `/${serverId}`, owner)).status).toBe(403);
    const socket = await server.connect(member.token);
    expect(await socket.emitWithAck("server:join", serverId)).toEqual({ ok: true, serverId });
    const deleted = waitForEvent(socket, "server:deleted");
    const res = await call("DELETE", `/${serverId}`, owner, undefined, { "x-2fa-code": totpCode(s.secret) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect(await deleted).toEqual({ id: serverId });
    socket.close();
    expect((await call("GET", `/${serverId}`, owner)).status).toBe(404);
    expect(await server.app.store.channels.listByServer(serverId)).toEqual([]);
    expect((await call("GET", "", member)).body).toEqual([]);
    expect((await call("DELETE", `/${UNKNOWN}`, owner)).status).toBe(404);
  });
});

describe("membership of the caller", () => {
  test("DELETE /:id/leave: member:left to the server room, audit MEMBER_LEAVE; the owner cannot leave", async () => {
    const { owner, member, outsider, serverId } = await community(server);
    const watcher = await server.connect(owner.token);
    expect(await watcher.emitWithAck("server:join", serverId)).toEqual({ ok: true, serverId });
    const left = waitForEvent(watcher, "member:left");
    const res = await call("DELETE", `/${serverId}/leave`, member);
    expect(res.status).toBe(200);
    expect(await left).toEqual({ serverId, userId: member.id });
    expect((await call("GET", `/${serverId}`, member)).status).toBe(403);
    const entry = (await auditEntries(server, serverId))[0];
    expect(entry).toMatchObject({ action: "MEMBER_LEAVE", actor_id: member.id, target_type: "member", target_id: member.id, target_username: member.username });
    const ownerLeave = await call("DELETE", `/${serverId}/leave`, owner);
    expect(ownerLeave.status).toBe(400);
    expect(ownerLeave.body.error).toContain("owner cannot leave");
    expect((await call("DELETE", `/${serverId}/leave`, outsider)).status).toBe(403);
    watcher.close();
  });

  test("mute, unmute, muted list, mark read", async () => {
    const { member, outsider, serverId } = await community(server);
    const muted = await call("POST", `/${serverId}/mute`, member, { duration: 3600 });
    expect(muted.status).toBe(200);
    expect(muted.body.muted).toBe(true);
    expect(muted.body.muted_until - Math.floor(Date.now() / 1000)).toBeGreaterThan(3590);
    const list = await call("GET", "/me/muted", member);
    expect(list.body.map((m: { server_id: string }) => m.server_id)).toEqual([serverId]);
    expect((await call("POST", `/${serverId}/mute`, member, { duration: 0 })).status).toBe(400);
    expect((await call("POST", `/${serverId}/mute`, member)).body.muted_until).toBeNull();
    expect((await call("DELETE", `/${serverId}/mute`, member)).body).toEqual({ server_id: serverId, muted: false, muted_until: null });
    expect((await call("GET", "/me/muted", member)).body).toEqual([]);
    expect((await call("POST", `/${serverId}/mute`, outsider, {})).status).toBe(403);
    const read = await call("POST", `/${serverId}/read`, member);
    expect(read.status).toBe(200);
    expect(read.body.server_id).toBe(serverId);
    expect(typeof read.body.last_read_at).toBe("number");
    expect((await call("POST", `/${serverId}/read`, outsider)).status).toBe(403);
  });
});
