import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addMember, auditLog, community, createServer } from "../helpers/community.ts";
import { recordEvents, startServer, waitForEvent, type TestServer, type TestUser, expectError } from "../helpers/server.ts";
import { eventually, quietWindow } from "../helpers/wait.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const INVITE_KEYS = ["code", "created_at", "created_by", "expires_at", "id", "is_primary", "max_uses", "server_id", "uses"];
const USE_KEYS = ["avatar", "used_at", "user_id", "username"];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";
const nowSeconds = () => Math.floor(Date.now() / 1000);

const call = (method: string, path: string, user: TestUser | null, body?: unknown) =>
  server.api(method, `/api/v1/servers${path}`, { token: user?.token, body });


function expectInvite(body: any) {
  expect(Object.keys(body).sort()).toEqual(INVITE_KEYS);
  expect(body.id).toMatch(UUID);
  expect(body.code).toMatch(/^[A-Za-z0-9]{10}$/);
  expect(Number.isInteger(body.uses)).toBe(true);
  expect(body.max_uses === null || Number.isInteger(body.max_uses)).toBe(true);
  expect(body.expires_at === null || Number.isInteger(body.expires_at)).toBe(true);
  expect(typeof body.is_primary).toBe("boolean");
  expect(Number.isInteger(body.created_at)).toBe(true);
}

async function createInvite(serverId: string, user: TestUser, body?: unknown) {
  const res = await call("POST", `/${serverId}/invites`, user, body);
  if (res.status !== 201) throw new Error(`create invite failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

describe("POST /api/v1/servers/:id/invites", () => {
  test("any member creates an invite; defaults are unlimited and never expiring; INVITE_CREATE", async () => {
    const { owner, member, serverId } = await community(server);
    const res = await call("POST", `/${serverId}/invites`, member, {});
    expect(res.status).toBe(201);
    expectInvite(res.body);
    expect(res.body).toMatchObject({ server_id: serverId, max_uses: null, uses: 0, expires_at: null, is_primary: false, created_by: member.id });

    const noBody = await call("POST", `/${serverId}/invites`, owner);
    expect(noBody.status).toBe(201);
    expect(noBody.body).toMatchObject({ max_uses: null, expires_at: null });

    const zeros = await call("POST", `/${serverId}/invites`, owner, { max_uses: 0, expires_in: 0 });
    expect(zeros.body).toMatchObject({ max_uses: null, expires_at: null });

    const limited = await call("POST", `/${serverId}/invites`, owner, { max_uses: 5, expires_in: 3600 });
    expect(limited.status).toBe(201);
    expect(limited.body.max_uses).toBe(5);
    expect(Math.abs(limited.body.expires_at - (nowSeconds() + 3600))).toBeLessThanOrEqual(2);

    const entry = (await auditLog(server, serverId, owner)).find((e) => e.action === "INVITE_CREATE" && e.target_id === res.body.id);
    expect(entry).toMatchObject({ actor_id: member.id, target_type: "invite", changes: { code: res.body.code, max_uses: null, expires_at: null } });
  });

  test("bad bodies are 400 naming the field", async () => {
    const { owner, serverId } = await community(server);
    expectError(await call("POST", `/${serverId}/invites`, owner, { max_uses: 1001 }), 400, /^max_uses: /);
    expectError(await call("POST", `/${serverId}/invites`, owner, { max_uses: -1 }), 400, /^max_uses: /);
    expectError(await call("POST", `/${serverId}/invites`, owner, { max_uses: 1.5 }), 400, /^max_uses: /);
    expectError(await call("POST", `/${serverId}/invites`, owner, { max_uses: "5" }), 400, /^max_uses: /);
    expectError(await call("POST", `/${serverId}/invites`, owner, { expires_in: 30 * 86400 + 1 }), 400, /^expires_in: /);
    expectError(await call("POST", `/${serverId}/invites`, owner, { expires_in: -5 }), 400, /^expires_in: /);
    expect((await call("POST", `/${serverId}/invites`, owner, { max_uses: 1000, expires_in: 30 * 86400 })).status).toBe(201);
  });

  test("401 without a token, 403 for a non-member, 404 for missing or non-UUID servers", async () => {
    const { outsider, serverId } = await community(server);
    expectError(await call("POST", `/${serverId}/invites`, null, {}), 401);
    expectError(await call("POST", `/${serverId}/invites`, outsider, {}), 403);
    expectError(await call("POST", `/${UNKNOWN}/invites`, outsider, {}), 404, "Server not found");
    expectError(await call("POST", `/not-a-uuid/invites`, outsider, {}), 404);
  });
});

describe("GET /api/v1/servers/:id/invites", () => {
  test("lists active invites, the primary first; expired and used-up ones are left out", async () => {
    const { owner, member, serverId } = await community(server);
    const open = await createInvite(serverId, owner, { max_uses: 10 });
    const single = await createInvite(serverId, owner, { max_uses: 1 });
    const joiner = await server.register();
    expect((await call("POST", `/join/${single.code}`, joiner)).status).toBe(200);

    const res = await call("GET", `/${serverId}/invites`, owner);
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    res.body.forEach(expectInvite);
    expect(res.body[0].is_primary).toBe(true);
    expect(res.body.map((i: any) => i.id)).toEqual([res.body[0].id, open.id]);

    expectError(await call("GET", `/${serverId}/invites`, member), 403, /MANAGE_SERVER/);
  });

  test("401, 403 for non-members, 404", async () => {
    const { outsider, serverId } = await community(server);
    expectError(await call("GET", `/${serverId}/invites`, null), 401);
    expectError(await call("GET", `/${serverId}/invites`, outsider), 403);
    expectError(await call("GET", `/${UNKNOWN}/invites`, outsider), 404);
  });
});

describe("GET /api/v1/servers/:id/invites/me", () => {
  test("any member gets their own invites that still admit people, newest first, without the primary or anyone else's", async () => {
    const { owner, member, serverId } = await community(server);
    expect((await call("GET", `/${serverId}/invites/me`, member)).body).toEqual([]);
    const older = await createInvite(serverId, member, { expires_in: 7 * 86400 });
    const newer = await createInvite(serverId, member, { max_uses: 5 });
    const spent = await createInvite(serverId, member, { max_uses: 1 });
    const gone = await createInvite(serverId, member, { expires_in: 1 });
    await createInvite(serverId, owner);
    expect((await call("POST", `/join/${spent.code}`, await server.register())).status).toBe(200);
    await eventually(() => nowSeconds() >= gone.expires_at, "the invite's expiry", { timeoutMs: 3000, intervalMs: 50 });

    const mine = await call("GET", `/${serverId}/invites/me`, member);
    expect(mine.status).toBe(200);
    mine.body.forEach(expectInvite);
    expect(mine.body.map((i: any) => i.code)).toEqual([newer.code, older.code]);
    // The owner's own list leaves out the primary invite, which is the server's.
    const owners = (await call("GET", `/${serverId}/invites/me`, owner)).body;
    expect(owners).toHaveLength(1);
    expect(owners[0].is_primary).toBe(false);
  });

  test("401, 403 for non-members, 404", async () => {
    const { outsider, serverId } = await community(server);
    expectError(await call("GET", `/${serverId}/invites/me`, null), 401);
    expectError(await call("GET", `/${serverId}/invites/me`, outsider), 403);
    expectError(await call("GET", `/${UNKNOWN}/invites/me`, outsider), 404);
  });
});

describe("DELETE /api/v1/servers/:id/invites/:inviteId", () => {
  test("the creator deletes their own; others need MANAGE_SERVER; INVITE_DELETE; the code stops working", async () => {
    const { owner, member, serverId } = await community(server);
    const other = await server.register();
    await addMember(server, serverId, other);
    const mine = await createInvite(serverId, member);
    const ownersInvite = await createInvite(serverId, owner);

    expectError(await call("DELETE", `/${serverId}/invites/${mine.id}`, other), 403, /MANAGE_SERVER/);
    expectError(await call("DELETE", `/${serverId}/invites/${ownersInvite.id}`, member), 403);
    const res = await call("DELETE", `/${serverId}/invites/${mine.id}`, member);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect((await call("DELETE", `/${serverId}/invites/${ownersInvite.id}`, owner)).status).toBe(200);

    expectError(await call("POST", `/join/${mine.code}`, await server.register()), 404, "Invite not found");
    const entries = (await auditLog(server, serverId, owner)).filter((e) => e.action === "INVITE_DELETE");
    expect(entries.map((e) => [e.target_id, e.actor_id, e.changes.code])).toEqual([
      [ownersInvite.id, owner.id, ownersInvite.code],
      [mine.id, member.id, mine.code],
    ]);
  });

  test("the primary invite is not deleted (400): regenerate it instead", async () => {
    const { owner, serverId } = await community(server);
    const primary = (await call("GET", `/${serverId}/invites`, owner)).body[0];
    expect(primary.is_primary).toBe(true);
    expectError(await call("DELETE", `/${serverId}/invites/${primary.id}`, owner), 400, /primary invite/);
  });

  test("401, 403 for non-members, 404 for unknown, non-UUID or another server's invites", async () => {
    const { owner, outsider, serverId } = await community(server);
    const otherServer = await createServer(server, outsider);
    const foreign = await createInvite(otherServer, outsider);
    const invite = await createInvite(serverId, owner);
    expectError(await call("DELETE", `/${serverId}/invites/${invite.id}`, null), 401);
    expectError(await call("DELETE", `/${serverId}/invites/${invite.id}`, outsider), 403);
    expectError(await call("DELETE", `/${serverId}/invites/${UNKNOWN}`, owner), 404, "Invite not found");
    expectError(await call("DELETE", `/${serverId}/invites/nope`, owner), 404);
    expectError(await call("DELETE", `/${serverId}/invites/${foreign.id}`, owner), 404);
    expectError(await call("DELETE", `/${UNKNOWN}/invites/${invite.id}`, owner), 404);
  });
});

describe("GET /api/v1/servers/:id/invites/:inviteId/uses", () => {
  test("the use history, newest first; MANAGE_SERVER", async () => {
    const { owner, member, outsider, serverId } = await community(server);
    const invite = await createInvite(serverId, owner);
    const a = await server.register();
    const b = await server.register();
    await call("POST", `/join/${invite.code}`, a);
    await call("POST", `/join/${invite.code}`, b);
    const res = await call("GET", `/${serverId}/invites/${invite.id}/uses`, owner);
    expect(res.status).toBe(200);
    expect(res.body.length).toBe(2);
    for (const use of res.body) {
      expect(Object.keys(use).sort()).toEqual(USE_KEYS);
      expect(Number.isInteger(use.used_at)).toBe(true);
    }
    expect(res.body.map((u: any) => u.user_id).sort()).toEqual([a.id, b.id].sort());
    expect(res.body.find((u: any) => u.user_id === a.id)).toMatchObject({ username: a.username, avatar: null });

    expectError(await call("GET", `/${serverId}/invites/${invite.id}/uses`, member), 403);
    expectError(await call("GET", `/${serverId}/invites/${invite.id}/uses`, outsider), 403);
    expectError(await call("GET", `/${serverId}/invites/${invite.id}/uses`, null), 401);
    expectError(await call("GET", `/${serverId}/invites/${UNKNOWN}/uses`, owner), 404);
    expectError(await call("GET", `/${serverId}/invites/x/uses`, owner), 404);
  });
});

describe("POST /api/v1/servers/:id/invite/regenerate", () => {
  test("gives the primary invite a new code; the old one stops working; INVITE_REGENERATE", async () => {
    const { owner, member, outsider, serverId } = await community(server);
    const before = (await call("GET", `/${serverId}/invites`, owner)).body[0];
    const res = await call("POST", `/${serverId}/invite/regenerate`, owner);
    expect(res.status).toBe(200);
    expectInvite(res.body);
    expect(res.body).toMatchObject({ id: before.id, is_primary: true, server_id: serverId, created_by: owner.id });
    expect(res.body.code).not.toBe(before.code);

    expectError(await call("POST", `/join/${before.code}`, outsider), 404);
    expect((await call("POST", `/join/${res.body.code}`, outsider)).status).toBe(200);

    const entry = (await auditLog(server, serverId, owner)).find((e) => e.action === "INVITE_REGENERATE");
    expect(entry).toMatchObject({ actor_id: owner.id, target_type: "invite", target_id: before.id, changes: { code: res.body.code } });

    expectError(await call("POST", `/${serverId}/invite/regenerate`, member), 403);
    expectError(await call("POST", `/${serverId}/invite/regenerate`, null), 401);
    expectError(await call("POST", `/${UNKNOWN}/invite/regenerate`, owner), 404);
  });
});

describe("POST /api/v1/servers/join/:inviteCode", () => {
  test("joins: answers the server, counts the use, member:joined to the server room, MEMBER_JOIN", async () => {
    const { owner, serverId } = await community(server);
    const invite = await createInvite(serverId, owner, { max_uses: 3 });
    const watcher = await server.connect(owner.token);
    expect(await watcher.emitWithAck("server:join", serverId)).toMatchObject({ ok: true });
    const joiner = await server.register();
    const joined = waitForEvent(watcher, "member:joined", { filter: (p) => p.userId === joiner.id });

    const res = await call("POST", `/join/${invite.code}`, joiner);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: serverId, owner_id: owner.id, member_count: 3 });
    expect(await joined).toEqual({ serverId, userId: joiner.id, username: joiner.username, avatar: null });

    const listed = (await call("GET", `/${serverId}/invites`, owner)).body.find((i: any) => i.id === invite.id);
    expect(listed.uses).toBe(1);
    const members = (await call("GET", `/${serverId}/members`, joiner)).body;
    expect(members.find((m: any) => m.user_id === joiner.id)).toMatchObject({ role: "member" });
    const entry = (await auditLog(server, serverId, owner)).find((e) => e.action === "MEMBER_JOIN");
    expect(entry).toMatchObject({ actor_id: joiner.id, target_type: "member", target_id: joiner.id, target_username: joiner.username });
  });

  test("already a member: 200 with the server, no use counted, no event", async () => {
    const { owner, member, serverId } = await community(server);
    const invite = await createInvite(serverId, owner, { max_uses: 1 });
    const watcher = await server.connect(owner.token);
    await watcher.emitWithAck("server:join", serverId);
    const seen = recordEvents(watcher, "member:joined");
    const res = await call("POST", `/join/${invite.code}`, member);
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(serverId);
    await quietWindow();
    expect(seen).toEqual([]);
    const listed = (await call("GET", `/${serverId}/invites`, owner)).body.find((i: any) => i.id === invite.id);
    expect(listed.uses).toBe(0);
  });

  test("a used-up invite is refused (400) and does not count", async () => {
    const { owner, serverId } = await community(server);
    const invite = await createInvite(serverId, owner, { max_uses: 1 });
    expect((await call("POST", `/join/${invite.code}`, await server.register())).status).toBe(200);
    const late = await server.register();
    expectError(await call("POST", `/join/${invite.code}`, late), 400, "This invite has reached its maximum number of uses");
    const uses = (await call("GET", `/${serverId}/invites/${invite.id}/uses`, owner)).body;
    expect(uses.length).toBe(1);
    expect((await call("GET", `/${serverId}`, late)).status).toBe(403);
  });

  test("concurrent joins never exceed max_uses", async () => {
    const { owner, serverId } = await community(server);
    const invite = await createInvite(serverId, owner, { max_uses: 2 });
    const users = await Promise.all(Array.from({ length: 6 }, () => server.register()));
    const results = await Promise.all(users.map((u) => call("POST", `/join/${invite.code}`, u)));
    expect(results.filter((r) => r.status === 200).length).toBe(2);
    expect(results.filter((r) => r.status === 400).length).toBe(4);
    expect((await call("GET", `/${serverId}/invites/${invite.id}/uses`, owner)).body.length).toBe(2);
  });

  test("an expired invite is refused (400)", async () => {
    const { owner, serverId } = await community(server);
    const invite = await createInvite(serverId, owner, { expires_in: 1 });
    // Expiry is whole seconds: the clock passing it is what is tested.
    await eventually(() => nowSeconds() >= invite.expires_at, "the invite's expiry", { timeoutMs: 3000, intervalMs: 50 });
    const late = await server.register();
    expectError(await call("POST", `/join/${invite.code}`, late), 400, "This invite has expired");
    expect((await call("GET", `/${serverId}/invites`, owner)).body.some((i: any) => i.id === invite.id)).toBe(false);
  });

  test("a banned user is refused (403) by invite and by vanity code", async () => {
    const { owner, serverId } = await community(server);
    const banned = await server.register();
    const invite = await createInvite(serverId, owner);
    expect((await call("POST", `/${serverId}/bans`, owner, { targetUserId: banned.id })).status).toBe(201);
    expectError(await call("POST", `/join/${invite.code}`, banned), 403, "You are banned from this server");
    const vanity = `ban-${owner.id.slice(-8)}`;
    expect((await call("POST", `/${serverId}/vanity`, owner, { code: vanity })).status).toBe(200);
    expectError(await call("POST", `/join/${vanity}`, banned), 403, "You are banned from this server");
    const uses = (await call("GET", `/${serverId}/invites/${invite.id}/uses`, owner)).body;
    expect(uses).toEqual([]);
  });

  test("a server's vanity code works as a join code (any case)", async () => {
    const { owner, serverId } = await community(server);
    const vanity = `hq-${owner.id.slice(-8)}`;
    expect((await call("POST", `/${serverId}/vanity`, owner, { code: vanity })).status).toBe(200);
    const joiner = await server.register();
    const res = await call("POST", `/join/${vanity.toUpperCase()}`, joiner);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: serverId, vanity_code: vanity });
    expect((await call("GET", `/${serverId}`, joiner)).status).toBe(200);
  });

  test("unknown codes 404, no token 401", async () => {
    const user = await server.register();
    expectError(await call("POST", `/join/doesnotexist`, user), 404, "Invite not found");
    expectError(await call("POST", `/join/${"x".repeat(200)}`, user), 404, "Invite not found");
    expectError(await call("POST", `/join/anything`, null), 401);
  });
});

describe("GET /api/v1/invites/:code", () => {
  const lookUp = (code: string, user: TestUser | null) => server.api("GET", `/api/v1/invites/${encodeURIComponent(code)}`, { token: user?.token });

  test("shows the server's public face, its counts, the inviter and whether the caller is in, without using the invite", async () => {
    const { owner, member, outsider, serverId } = await community(server, { name: "Looked Up" });
    const invite = await createInvite(serverId, owner, { max_uses: 5, expires_in: 3600 });
    const online = await server.connect(member.token);
    const res = await lookUp(invite.code, outsider);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      code: invite.code,
      expires_at: invite.expires_at,
      max_uses: 5,
      uses: 0,
      server: { id: serverId, name: "Looked Up", description: "", icon: null, banner: null, member_count: 2, online_count: 1 },
      inviter: { id: owner.id, username: owner.username, avatar: null },
      is_member: false,
    });
    expect((await lookUp(invite.code, member)).body.is_member).toBe(true);
    // Looking up counts no use and writes nothing.
    expect((await call("GET", `/${serverId}/invites`, owner)).body.find((i: any) => i.id === invite.id).uses).toBe(0);
    expect((await auditLog(server, serverId, owner)).filter((e) => e.action === "MEMBER_JOIN")).toEqual([]);
    online.close();
  });

  test("a vanity code resolves to its server; a large server counts no one online", async () => {
    const big = await startServer({ largeServerMembers: 1 });
    try {
      const owner = await big.register();
      const serverId = await createServer(big, owner, "Vain");
      const other = await big.register();
      await addMember(big, serverId, other);
      expect((await big.api("POST", `/api/v1/servers/${serverId}/vanity`, { token: owner.token, body: { code: "vain-place" } })).status).toBe(200);
      const res = await big.api("GET", "/api/v1/invites/vain-place", { token: other.token });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ code: "vain-place", expires_at: null, max_uses: null, uses: null, inviter: null, is_member: true });
      expect(res.body.server).toMatchObject({ id: serverId, name: "Vain", member_count: 2, online_count: null });
    } finally {
      await big.stop();
    }
  });

  test("expired and used-up invites get joining's 400s; unknown codes 404; no token 401", async () => {
    const { owner, serverId } = await community(server);
    const usedUp = await createInvite(serverId, owner, { max_uses: 1 });
    const joiner = await server.register();
    expect((await call("POST", `/join/${usedUp.code}`, joiner)).status).toBe(200);
    expectError(await lookUp(usedUp.code, owner), 400, "This invite has reached its maximum number of uses");
    const expiring = await createInvite(serverId, owner, { expires_in: 1 });
    await server.app.store.db.run(server.app.store.db.prepare("UPDATE invites SET expires_at = ? WHERE id = ?"), nowSeconds() - 1, expiring.id);
    expectError(await lookUp(expiring.code, owner), 400, "This invite has expired");
    expectError(await lookUp("nothing123", owner), 404, "Invite not found");
    expectError(await lookUp("x".repeat(200), owner), 404, "Invite not found");
    expect((await lookUp(usedUp.code, null)).status).toBe(401);
  });
});
