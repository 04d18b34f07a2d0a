import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { isTimedOut } from "../../src/domain/access/permissions.ts";
import { addMember, auditLog, community } from "../helpers/community.ts";
import { recordEvents, startServer, waitForEvent, type ClientSocket, type TestServer, type TestUser, expectError } from "../helpers/server.ts";
import { quietWindow } from "../helpers/wait.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const BAN_KEYS = ["avatar", "banned_by", "created_at", "reason", "user_id", "username"];
const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";
const TWENTY_EIGHT_DAYS = 28 * 24 * 60 * 60;
const nowSeconds = () => Math.floor(Date.now() / 1000);

const call = (method: string, path: string, user: TestUser | null, body?: unknown) =>
  server.api(method, `/api/v1/servers${path}`, { token: user?.token, body });


/** The shared community with a built-in admin and moderator, and a second admin and plain member. */
async function setup() {
  const c = await community(server, { admin: true, moderator: true, extraMembers: 1 });
  const admin2 = await server.register();
  await addMember(server, c.serverId, admin2, "admin");
  return { ...c, admin2, member2: c.members[1]! };
}

/** A connected socket in `server:<id>`, through the gateway's own `server:join`. */
async function watch(user: TestUser, serverId: string): Promise<ClientSocket> {
  const socket = await server.connect(user.token);
  expect(await socket.emitWithAck("server:join", serverId)).toMatchObject({ ok: true });
  return socket;
}

/** Someone new joins by invite, so the server room hears `member:joined`. */
async function joinNewcomer(serverId: string, owner: TestUser, watcher: ClientSocket) {
  const newcomer = await server.register();
  const invite = (await call("POST", `/${serverId}/invites`, owner, {})).body;
  const heard = waitForEvent(watcher, "member:joined", { filter: (p) => p.userId === newcomer.id });
  expect((await call("POST", `/join/${invite.code}`, newcomer)).status).toBe(200);
  await heard;
  // A socket still in the server's room (wrongly) would have the join by now too.
  await quietWindow(50);
  return newcomer;
}

describe("DELETE /api/v1/servers/:id/members/:targetUserId (kick)", () => {
  test("a moderator kicks a member: member:left, the kicked socket leaves the room at once, MEMBER_KICK", async () => {
    const { owner, moderator, member, serverId } = await setup();
    const watcher = await watch(owner, serverId);
    const kickedSocket = await watch(member, serverId);
    const left = waitForEvent(watcher, "member:left", { filter: (p) => p.userId === member.id });
    const toKicked = waitForEvent(kickedSocket, "member:left");

    const res = await call("DELETE", `/${serverId}/members/${member.id}`, moderator);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect(await left).toEqual({ serverId, userId: member.id });
    expect(await toKicked).toEqual({ serverId, userId: member.id });

    const afterKick = recordEvents(kickedSocket, "member:joined");
    await joinNewcomer(serverId, owner, watcher);
    expect(afterKick).toEqual([]);

    expect((await call("GET", `/${serverId}`, member)).status).toBe(403);
    expect(await kickedSocket.emitWithAck("server:join", serverId)).toMatchObject({ ok: false });
    const [entry] = await auditLog(server, serverId, owner, "MEMBER_KICK");
    expect(entry).toMatchObject({
      actor_id: moderator.id,
      actor_username: moderator.username,
      target_type: "member",
      target_id: member.id,
      target_username: member.username,
      changes: { username: member.username, userId: member.id, moderator: moderator.username },
    });
  });

  test("rank: a member kicks nobody, a moderator cannot kick an admin or the owner, an admin not another admin", async () => {
    const { owner, admin, admin2, moderator, member, member2, serverId } = await setup();
    expectError(await call("DELETE", `/${serverId}/members/${member2.id}`, member), 403, /KICK_MEMBERS/);
    expectError(await call("DELETE", `/${serverId}/members/${admin.id}`, moderator), 403, /ranked at or above/);
    expectError(await call("DELETE", `/${serverId}/members/${owner.id}`, moderator), 403);
    expectError(await call("DELETE", `/${serverId}/members/${admin2.id}`, admin), 403);
    expectError(await call("DELETE", `/${serverId}/members/${owner.id}`, admin), 403);
    expectError(await call("DELETE", `/${serverId}/members/${moderator.id}`, moderator), 403);
    expect((await call("DELETE", `/${serverId}/members/${moderator.id}`, admin)).status).toBe(200);
    expect((await call("DELETE", `/${serverId}/members/${admin.id}`, owner)).status).toBe(200);
    expect(await auditLog(server, serverId, owner, "MEMBER_KICK")).toHaveLength(2);
  });

  test("401, 403 for non-members, 404 for unknown servers and non-member or non-UUID targets", async () => {
    const { owner, member, outsider, serverId } = await setup();
    expectError(await call("DELETE", `/${serverId}/members/${member.id}`, null), 401);
    expectError(await call("DELETE", `/${serverId}/members/${member.id}`, outsider), 403);
    expectError(await call("DELETE", `/${UNKNOWN}/members/${member.id}`, owner), 404, "Server not found");
    expectError(await call("DELETE", `/nope/members/${member.id}`, owner), 404);
    expectError(await call("DELETE", `/${serverId}/members/${outsider.id}`, owner), 404, "Member not found");
    expectError(await call("DELETE", `/${serverId}/members/${UNKNOWN}`, owner), 404);
    expectError(await call("DELETE", `/${serverId}/members/nope`, owner), 404);
  });
});

describe("bans", () => {
  test("POST /:id/bans removes the member: member:left and member:banned, no more room events, no rejoin; MEMBER_BAN", async () => {
    const { owner, moderator, member, serverId } = await setup();
    const watcher = await watch(owner, serverId);
    const bannedSocket = await watch(member, serverId);
    const left = waitForEvent(watcher, "member:left", { filter: (p) => p.userId === member.id });
    const banned = waitForEvent(watcher, "member:banned", { filter: (p) => p.userId === member.id });
    const toBanned = waitForEvent(bannedSocket, "member:banned");

    const res = await call("POST", `/${serverId}/bans`, moderator, { targetUserId: member.id, reason: "spam" });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(BAN_KEYS);
    expect(res.body).toMatchObject({ user_id: member.id, username: member.username, avatar: null, reason: "spam", banned_by: moderator.id });
    expect(Math.abs(res.body.created_at - nowSeconds())).toBeLessThanOrEqual(2);
    expect(await left).toEqual({ serverId, userId: member.id });
    expect(await banned).toEqual({ serverId, userId: member.id });
    expect(await toBanned).toEqual({ serverId, userId: member.id });

    const afterBan = recordEvents(bannedSocket, "member:joined");
    await joinNewcomer(serverId, owner, watcher);
    expect(afterBan).toEqual([]);

    const invite = (await call("POST", `/${serverId}/invites`, owner, {})).body;
    expectError(await call("POST", `/join/${invite.code}`, member), 403, "You are banned from this server");

    const [entry] = await auditLog(server, serverId, owner, "MEMBER_BAN");
    expect(entry).toMatchObject({
      actor_id: moderator.id,
      target_type: "member",
      target_id: member.id,
      target_username: member.username,
      changes: { username: member.username, userId: member.id, reason: "spam", moderator: moderator.username },
    });
  });

  test("ban by id of a non-member; 409 when already banned; 404 for unknown users", async () => {
    const { owner, outsider, serverId } = await setup();
    const watcher = await watch(owner, serverId);
    const seenLeft = recordEvents(watcher, "member:left");
    const banned = waitForEvent(watcher, "member:banned");
    const res = await call("POST", `/${serverId}/bans`, owner, { targetUserId: outsider.id });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ user_id: outsider.id, reason: null, banned_by: owner.id });
    expect(await banned).toEqual({ serverId, userId: outsider.id });
    expect(seenLeft).toEqual([]);
    expectError(await call("POST", `/${serverId}/bans`, owner, { targetUserId: outsider.id }), 409);
    expectError(await call("POST", `/${serverId}/bans`, owner, { targetUserId: UNKNOWN }), 404, "User not found");
  });

  test("rank and permission: members cannot ban, moderators cannot ban admins, nobody bans the owner or themselves", async () => {
    const { owner, admin, moderator, member, member2, outsider, serverId } = await setup();
    expectError(await call("POST", `/${serverId}/bans`, member, { targetUserId: member2.id }), 403, /BAN_MEMBERS/);
    expectError(await call("POST", `/${serverId}/bans`, moderator, { targetUserId: admin.id }), 403);
    expectError(await call("POST", `/${serverId}/bans`, admin, { targetUserId: owner.id }), 403);
    expectError(await call("POST", `/${serverId}/bans`, admin, { targetUserId: admin.id }), 403);
    expectError(await call("POST", `/${serverId}/bans`, outsider, { targetUserId: member.id }), 403);
    expectError(await call("POST", `/${serverId}/bans`, null, { targetUserId: member.id }), 401);
    expectError(await call("POST", `/${UNKNOWN}/bans`, owner, { targetUserId: member.id }), 404);
  });

  test("bad bodies are 400", async () => {
    const { owner, member, serverId } = await setup();
    expectError(await call("POST", `/${serverId}/bans`, owner, {}), 400, "targetUserId: is required");
    expectError(await call("POST", `/${serverId}/bans`, owner, { targetUserId: "nope" }), 400, /^targetUserId: /);
    expectError(await call("POST", `/${serverId}/bans`, owner, { targetUserId: member.id, reason: "x".repeat(513) }), 400, /^reason: /);
    expectError(await call("POST", `/${serverId}/bans`, owner, { targetUserId: member.id, reason: 5 }), 400, /^reason: /);
    expect((await call("POST", `/${serverId}/bans`, owner, { targetUserId: member.id, reason: "x".repeat(512) })).status).toBe(201);
  });

  test("GET /:id/bans lists bans; DELETE unbans (MEMBER_UNBAN) so the user may rejoin; 404 when not banned", async () => {
    const { owner, moderator, member, member2, outsider, serverId } = await setup();
    await call("POST", `/${serverId}/bans`, owner, { targetUserId: member.id, reason: "first" });
    await call("POST", `/${serverId}/bans`, moderator, { targetUserId: member2.id });

    const list = await call("GET", `/${serverId}/bans`, moderator);
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(2);
    for (const ban of list.body) expect(Object.keys(ban).sort()).toEqual(BAN_KEYS);
    expect(list.body.find((b: any) => b.user_id === member.id)).toMatchObject({ username: member.username, reason: "first", banned_by: owner.id });
    expectError(await call("GET", `/${serverId}/bans`, outsider), 403);
    expectError(await call("GET", `/${serverId}/bans`, null), 401);
    expectError(await call("GET", `/${UNKNOWN}/bans`, owner), 404);

    const res = await call("DELETE", `/${serverId}/bans/${member.id}`, moderator);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect((await call("GET", `/${serverId}/bans`, owner)).body.map((b: any) => b.user_id)).toEqual([member2.id]);
    expectError(await call("DELETE", `/${serverId}/bans/${member.id}`, owner), 404, "Ban not found");
    expectError(await call("DELETE", `/${serverId}/bans/nope`, owner), 404);
    expectError(await call("DELETE", `/${serverId}/bans/${member2.id}`, null), 401);
    expectError(await call("DELETE", `/${serverId}/bans/${member2.id}`, outsider), 403);

    const invite = (await call("POST", `/${serverId}/invites`, owner, {})).body;
    expect((await call("POST", `/join/${invite.code}`, member)).status).toBe(200);
    const [entry] = await auditLog(server, serverId, owner, "MEMBER_UNBAN");
    expect(entry).toMatchObject({ actor_id: moderator.id, target_id: member.id, target_username: member.username, changes: { userId: member.id } });
  });

  test("a member without BAN_MEMBERS cannot list or lift bans", async () => {
    const { owner, member, member2, serverId } = await setup();
    await call("POST", `/${serverId}/bans`, owner, { targetUserId: member2.id });
    expectError(await call("GET", `/${serverId}/bans`, member), 403);
    expectError(await call("DELETE", `/${serverId}/bans/${member2.id}`, member), 403);
  });
});

describe("timeouts", () => {
  test("POST /:id/timeouts sets the timeout: {serverId, userId, expiresAt}, member:timeout, MEMBER_TIMEOUT", async () => {
    const { owner, moderator, member, serverId } = await setup();
    const watcher = await watch(owner, serverId);
    const heard = waitForEvent(watcher, "member:timeout", { filter: (p) => p.userId === member.id });
    const res = await call("POST", `/${serverId}/timeouts`, moderator, { targetUserId: member.id, duration: 600, reason: "cool off" });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["expiresAt", "serverId", "userId"]);
    expect(res.body).toMatchObject({ serverId, userId: member.id });
    expect(Math.abs(res.body.expiresAt - (nowSeconds() + 600))).toBeLessThanOrEqual(2);
    expect(await heard).toEqual(res.body);

    const listed = (await call("GET", `/${serverId}/members`, owner)).body.find((m: any) => m.user_id === member.id);
    expect(listed.timeout_until).toBe(res.body.expiresAt);
    const context = await server.app.domain.access.member(serverId, member.id);
    expect(isTimedOut(context)).toBe(true);

    const [entry] = await auditLog(server, serverId, owner, "MEMBER_TIMEOUT");
    expect(entry).toMatchObject({
      actor_id: moderator.id,
      target_type: "member",
      target_id: member.id,
      target_username: member.username,
      changes: { username: member.username, userId: member.id, duration: 600, expiresAt: res.body.expiresAt, reason: "cool off" },
    });
  });

  test("duration is integer seconds from 60 to 28 days", async () => {
    const { owner, member, serverId } = await setup();
    const post = (body: unknown) => call("POST", `/${serverId}/timeouts`, owner, body);
    expectError(await post({ targetUserId: member.id, duration: 59 }), 400, /^duration: /);
    expectError(await post({ targetUserId: member.id, duration: TWENTY_EIGHT_DAYS + 1 }), 400, /^duration: /);
    expectError(await post({ targetUserId: member.id, duration: 60.5 }), 400, /^duration: /);
    expectError(await post({ targetUserId: member.id, duration: "600" }), 400, /^duration: /);
    expectError(await post({ targetUserId: member.id }), 400, "duration: is required");
    expectError(await post({ duration: 60 }), 400, "targetUserId: is required");
    expectError(await post({ targetUserId: member.id, duration: 60, reason: "x".repeat(513) }), 400, /^reason: /);
    expect((await post({ targetUserId: member.id, duration: 60 })).status).toBe(200);
    expect((await post({ targetUserId: member.id, duration: TWENTY_EIGHT_DAYS })).status).toBe(200);
  });

  test("permission and rank: 403 for members and on higher ranks, 404 for non-members, 401", async () => {
    const { owner, admin, moderator, member, member2, outsider, serverId } = await setup();
    const post = (user: TestUser | null, targetUserId: string) => call("POST", `/${serverId}/timeouts`, user, { targetUserId, duration: 60 });
    expectError(await post(member, member2.id), 403, /MUTE_MEMBERS/);
    expectError(await post(moderator, admin.id), 403);
    expectError(await post(admin, owner.id), 403);
    expectError(await post(outsider, member.id), 403);
    expectError(await post(null, member.id), 401);
    expectError(await post(owner, outsider.id), 404, "Member not found");
    expectError(await call("POST", `/${UNKNOWN}/timeouts`, owner, { targetUserId: member.id, duration: 60 }), 404);
  });

  test("DELETE /:id/timeouts/:targetUserId removes it: member:timeout with expiresAt null, MEMBER_TIMEOUT_REMOVE", async () => {
    const { owner, moderator, member, member2, outsider, serverId } = await setup();
    await call("POST", `/${serverId}/timeouts`, owner, { targetUserId: member.id, duration: 3600 });
    const watcher = await watch(owner, serverId);
    const heard = waitForEvent(watcher, "member:timeout", { filter: (p) => p.userId === member.id });

    expectError(await call("DELETE", `/${serverId}/timeouts/${member.id}`, member2), 403);
    expectError(await call("DELETE", `/${serverId}/timeouts/${member.id}`, outsider), 403);
    expectError(await call("DELETE", `/${serverId}/timeouts/${member.id}`, null), 401);
    const res = await call("DELETE", `/${serverId}/timeouts/${member.id}`, moderator);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ serverId, userId: member.id, expiresAt: null });
    expect(await heard).toEqual({ serverId, userId: member.id, expiresAt: null });
    expect(isTimedOut(await server.app.domain.access.member(serverId, member.id))).toBe(false);

    expectError(await call("DELETE", `/${serverId}/timeouts/${member.id}`, moderator), 400, "This member is not timed out");
    expectError(await call("DELETE", `/${serverId}/timeouts/${outsider.id}`, moderator), 404);
    expectError(await call("DELETE", `/${serverId}/timeouts/nope`, moderator), 404);
    const [entry] = await auditLog(server, serverId, owner, "MEMBER_TIMEOUT_REMOVE");
    expect(entry).toMatchObject({ actor_id: moderator.id, target_id: member.id, target_username: member.username });
  });

  test("isTimedOut: only a timeout in the future counts", () => {
    const now = 1_700_000_000;
    expect(isTimedOut({ timeoutUntil: null }, now)).toBe(false);
    expect(isTimedOut({ timeoutUntil: now - 1 }, now)).toBe(false);
    expect(isTimedOut({ timeoutUntil: now }, now)).toBe(false);
    expect(isTimedOut({ timeoutUntil: now + 1 }, now)).toBe(true);
  });
});

describe("PUT /api/v1/servers/:id/members/:targetUserId/role", () => {
  test("the owner promotes a member: {serverId, userId, role}, member:role-updated, MEMBER_ROLE_UPDATE", async () => {
    const { owner, member, serverId } = await setup();
    const watcher = await watch(owner, serverId);
    const heard = waitForEvent(watcher, "member:role-updated", { filter: (p) => p.userId === member.id });
    const res = await call("PUT", `/${serverId}/members/${member.id}/role`, owner, { role: "moderator" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ serverId, userId: member.id, role: "moderator" });
    expect(await heard).toEqual({ serverId, userId: member.id, role: "moderator" });
    const listed = (await call("GET", `/${serverId}/members`, owner)).body.find((m: any) => m.user_id === member.id);
    expect(listed.role).toBe("moderator");
    // The new role's bits apply at once.
    expect((await call("GET", `/${serverId}/bans`, member)).status).toBe(200);

    const [entry] = await auditLog(server, serverId, owner, "MEMBER_ROLE_UPDATE");
    expect(entry).toMatchObject({
      actor_id: owner.id,
      target_type: "member",
      target_id: member.id,
      target_username: member.username,
      changes: { oldRole: "member", newRole: "moderator", username: member.username, userId: member.id },
    });
  });

  test("only the owner and admins; an admin cannot change another admin; nobody changes the owner", async () => {
    const { owner, admin, admin2, moderator, member, member2, serverId } = await setup();
    const put = (user: TestUser, target: TestUser, role: string) => call("PUT", `/${serverId}/members/${target.id}/role`, user, { role });
    expectError(await put(moderator, member, "moderator"), 403);
    expectError(await put(member, member2, "moderator"), 403);
    expectError(await put(admin, admin2, "member"), 403);
    expectError(await put(admin, owner, "member"), 403);
    expectError(await put(admin, admin, "member"), 403);
    expect((await put(admin, member, "moderator")).body.role).toBe("moderator");
    expect((await put(admin, moderator, "member")).body.role).toBe("member");
    expect((await put(owner, admin2, "member")).body.role).toBe("member");
  });

  test("bad roles are 400 (owner is never set here); 401; 404", async () => {
    const { owner, member, outsider, serverId } = await setup();
    const path = `/${serverId}/members/${member.id}/role`;
    expectError(await call("PUT", path, owner, { role: "owner" }), 400, "role: must be admin, moderator or member");
    expectError(await call("PUT", path, owner, { role: "boss" }), 400, /^role: /);
    expectError(await call("PUT", path, owner, {}), 400, "role: is required");
    expectError(await call("PUT", path, null, { role: "admin" }), 401);
    expectError(await call("PUT", path, outsider, { role: "admin" }), 403);
    expectError(await call("PUT", `/${serverId}/members/${outsider.id}/role`, owner, { role: "admin" }), 404, "Member not found");
    expectError(await call("PUT", `/${serverId}/members/nope/role`, owner, { role: "admin" }), 404);
    expectError(await call("PUT", `/${UNKNOWN}/members/${member.id}/role`, owner, { role: "admin" }), 404);
  });

  test("setting the same role again answers the role and records nothing", async () => {
    const { owner, member, serverId } = await setup();
    const res = await call("PUT", `/${serverId}/members/${member.id}/role`, owner, { role: "member" });
    expect(res.body).toEqual({ serverId, userId: member.id, role: "member" });
    expect(await auditLog(server, serverId, owner, "MEMBER_ROLE_UPDATE")).toEqual([]);
  });
});
