import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditEntries } from "../helpers/community.ts";
import { PERMISSIONS as P } from "../../src/domain/access/permission-bits.ts";
import { recordEvents, startServer, waitForEvent, type ClientSocket, type TestServer, type TestUser, expectError } from "../helpers/server.ts";
import { until } from "../helpers/wait.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UNKNOWN_ID = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
const NOT_A_UUID = "not-a-uuid";
const ROLE_KEYS = ["color", "hoist", "id", "is_default", "managed_bot_id", "name", "permissions", "position", "server_id"];
const EVERYONE_PERMISSIONS = 16235520;

const roles = (path: string) => `/api/v1/roles${path}`;
const as = (user: TestUser | null) => {
  const token = user?.token ?? null;
  return {
    get: (path: string) => server.api("GET", roles(path), { token }),
    post: (path: string, body?: unknown) => server.api("POST", roles(path), { token, body }),
    put: (path: string, body?: unknown) => server.api("PUT", roles(path), { token, body }),
    del: (path: string) => server.api("DELETE", roles(path), { token }),
  };
};


function expectRole(body: any, expected: Record<string, unknown> = {}) {
  expect(Object.keys(body).sort()).toEqual(ROLE_KEYS);
  expect(body.id).toMatch(UUID);
  expect(body.server_id).toMatch(UUID);
  expect(typeof body.name).toBe("string");
  expect(body.color).toMatch(/^#[0-9A-F]{6}$/);
  expect(Number.isInteger(body.position)).toBe(true);
  expect(Number.isInteger(body.permissions)).toBe(true);
  expect(typeof body.hoist).toBe("boolean");
  expect([0, 1]).toContain(body.is_default);
  expect(body).toMatchObject(expected);
}

interface Fixture {
  owner: TestUser;
  serverId: string;
  everyone: any;
  socket: ClientSocket;
}

/** An owner with a fresh server and a socket in its server room. */
async function setup(): Promise<Fixture> {
  const owner = await server.register();
  const created = await server.api("POST", "/api/v1/servers", { token: owner.token, body: { name: "Roles test" } });
  expect(created.status).toBe(201);
  const serverId = created.body.id;
  const socket = await server.connect(owner.token);
  server.app.io.in(`user:${owner.id}`).socketsJoin(`server:${serverId}`);
  const list = await as(owner).get(`/${serverId}`);
  return { owner, serverId, everyone: list.body[0], socket };
}

async function addMember(serverId: string, user?: TestUser): Promise<TestUser> {
  const member = user ?? (await server.register());
  await server.app.store.members.add(serverId, member.id);
  return member;
}

async function createRole(f: Fixture, body: Record<string, unknown>) {
  const res = await as(f.owner).post(`/${f.serverId}`, { color: "#336699", permissions: 0, ...body });
  expect(res.status).toBe(201);
  return res.body;
}

/** A member holding a fresh role with `permissions`; returns the member and the role. */
async function memberWith(f: Fixture, permissions: number, name = "grant") {
  const member = await addMember(f.serverId);
  const role = await createRole(f, { name, permissions });
  const assigned = await as(f.owner).post(`/${f.serverId}/assign`, { targetUserId: member.id, roleId: role.id });
  expect(assigned.status).toBe(200);
  return { member, role };
}

async function socketIdsIn(room: string) {
  return (await server.app.io.in(room).fetchSockets()).map((s) => s.id);
}

describe("GET /roles/:serverId", () => {
  test("a new server has only @everyone, with the contract's default bits", async () => {
    const f = await setup();
    const res = await as(f.owner).get(`/${f.serverId}`);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1);
    expectRole(res.body[0], {
      server_id: f.serverId,
      name: "@everyone",
      color: "#99AAB5",
      position: 0,
      permissions: EVERYONE_PERMISSIONS,
      hoist: false,
      is_default: 1,
      managed_bot_id: null,
    });
  });

  test("members see every role, highest position first", async () => {
    const f = await setup();
    const a = await createRole(f, { name: "a" });
    const b = await createRole(f, { name: "b" });
    const member = await addMember(f.serverId);
    const res = await as(member).get(`/${f.serverId}`);
    expect(res.status).toBe(200);
    // Each new role starts at the bottom, so the earlier one sits above.
    expect(res.body.map((r: any) => [r.id, r.position])).toEqual([
      [a.id, 2],
      [b.id, 1],
      [f.everyone.id, 0],
    ]);
  });

  test("401 without a token, 403 for a non-member, 404 for a missing or non-UUID server", async () => {
    const f = await setup();
    const outsider = await server.register();
    expectError(await as(null).get(`/${f.serverId}`), 401);
    expectError(await as(outsider).get(`/${f.serverId}`), 403);
    expectError(await as(f.owner).get(`/${UNKNOWN_ID}`), 404);
    expectError(await as(f.owner).get(`/${NOT_A_UUID}`), 404);
  });
});

describe("GET /roles/:serverId/role/:roleId", () => {
  test("answers the role object", async () => {
    const f = await setup();
    const role = await createRole(f, { name: "Mods", permissions: P.KICK_MEMBERS, hoist: true });
    const member = await addMember(f.serverId);
    const res = await as(member).get(`/${f.serverId}/role/${role.id}`);
    expect(res.status).toBe(200);
    expectRole(res.body, { ...role, hoist: true });
    expect(res.body).toEqual(role);
  });

  test("401, 403 for a non-member, 404 for a missing, non-UUID or foreign role", async () => {
    const f = await setup();
    const other = await setup();
    const role = await createRole(f, { name: "r" });
    const outsider = await server.register();
    expectError(await as(null).get(`/${f.serverId}/role/${role.id}`), 401);
    expectError(await as(outsider).get(`/${f.serverId}/role/${role.id}`), 403);
    expectError(await as(f.owner).get(`/${f.serverId}/role/${UNKNOWN_ID}`), 404, "Role not found");
    expectError(await as(f.owner).get(`/${f.serverId}/role/${NOT_A_UUID}`), 404);
    expectError(await as(other.owner).get(`/${other.serverId}/role/${role.id}`), 404);
    expectError(await as(f.owner).get(`/${UNKNOWN_ID}/role/${role.id}`), 404);
  });
});

describe("POST /roles/:serverId", () => {
  test("201 with the role at the bottom (position 1), color upper-cased; role:created and ROLE_CREATE", async () => {
    const f = await setup();
    const event = waitForEvent(f.socket, "role:created");
    const res = await as(f.owner).post(`/${f.serverId}`, { name: "  Gold ", color: "#ffcc00", permissions: P.KICK_MEMBERS | P.BAN_MEMBERS, hoist: true });
    expect(res.status).toBe(201);
    expectRole(res.body, {
      server_id: f.serverId,
      name: "Gold",
      color: "#FFCC00",
      position: 1,
      permissions: 12,
      hoist: true,
      is_default: 0,
      managed_bot_id: null,
    });
    expect(await event).toEqual(res.body);
    const [entry] = await auditEntries(server, f.serverId, "ROLE_CREATE");
    expect(entry).toMatchObject({ actor_id: f.owner.id, target_type: "role", target_id: res.body.id });
    expect(entry!.changes).toEqual({ roleId: res.body.id, role: "Gold", color: "#FFCC00", permissions: 12, hoist: true, position: 1 });
  });

  test("each new role starts at position 1 and every other custom role moves up one: role:updated for each, in one transaction", async () => {
    const f = await setup();
    const created = recordEvents(f.socket, "role:created");
    const updated = recordEvents(f.socket, "role:updated");
    const names = ["first", "second", "third", "fourth"];
    const ids: string[] = [];
    for (const name of names) {
      const res = await as(f.owner).post(`/${f.serverId}`, { name });
      expect(res.status).toBe(201);
      expect(res.body.position).toBe(1);
      ids.push(res.body.id);
    }
    const list = (await as(f.owner).get(`/${f.serverId}`)).body;
    expect(list.map((r: any) => [r.name, r.position])).toEqual([
      ["first", 4],
      ["second", 3],
      ["third", 2],
      ["fourth", 1],
      ["@everyone", 0],
    ]);
    await until(() => created.length >= names.length && updated.length >= 6, "role:created for each and role:updated for each move");
    expect(created.map((r) => [r.name, r.position])).toEqual(names.map((name) => [name, 1]));
    // 0 + 1 + 2 + 3 roles pushed up, each announced with its new position.
    expect(updated.map((r) => `${r.name} ${r.position}`).sort()).toEqual(["first 2", "first 3", "first 4", "second 2", "second 3", "third 2"]);
    const audit = await auditEntries(server, f.serverId, "ROLE_CREATE");
    expect(audit.map((e) => [e.target_id, e.changes.position]).sort()).toEqual(ids.map((id) => [id, 1]).sort());
    // Positions stay dense under concurrent creates (each shift and insert is one transaction).
    await Promise.all(["p", "q", "r", "s", "t"].map((name) => as(f.owner).post(`/${f.serverId}`, { name })));
    const after = (await as(f.owner).get(`/${f.serverId}`)).body.map((r: any) => r.position);
    expect(after).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
  });

  test("color, permissions and hoist are optional; ADMINISTRATOR is stored as given", async () => {
    const f = await setup();
    const bare = await as(f.owner).post(`/${f.serverId}`, { name: "bare" });
    expect(bare.status).toBe(201);
    expectRole(bare.body, { color: "#99AAB5", permissions: 0, hoist: false });
    const admin = await as(f.owner).post(`/${f.serverId}`, { name: "admin", color: "#000000", permissions: P.ADMINISTRATOR | P.KICK_MEMBERS });
    expect(admin.body.permissions).toBe(P.ADMINISTRATOR | P.KICK_MEMBERS);
  });

  test.each([
    ["missing name", { color: "#FFFFFF", permissions: 0 }, /^name: /],
    ["empty name", { name: "   ", permissions: 0 }, /^name: /],
    ["name over 100", { name: "x".repeat(101) }, /^name: /],
    ["name not a string", { name: 5 }, /^name: /],
    ["color without #", { name: "r", color: "FFFFFF" }, /^color: /],
    ["short color", { name: "r", color: "#FFF" }, /^color: /],
    ["named color", { name: "r", color: "red" }, /^color: /],
    ["permissions too big", { name: "r", permissions: 2 ** 24 }, /^permissions: /],
    ["negative permissions", { name: "r", permissions: -1 }, /^permissions: /],
    ["fractional permissions", { name: "r", permissions: 1.5 }, /^permissions: /],
    ["permissions as string", { name: "r", permissions: "8" }, /^permissions: /],
    ["hoist not boolean", { name: "r", hoist: "yes" }, /^hoist: /],
    ["an array body", [{ name: "r" }], /^body: /],
  ])("400 for %s", async (_name, body, error) => {
    const f = await setup();
    expectError(await as(f.owner).post(`/${f.serverId}`, body), 400, error);
  });

  test("400 for invalid JSON", async () => {
    const f = await setup();
    const res = await server.api("POST", roles(`/${f.serverId}`), {
      token: f.owner.token,
      raw: "{nope",
      headers: { "content-type": "application/json" },
    });
    expectError(res, 400);
  });

  test("401 without a token, 403 without MANAGE_ROLES or for a non-member, 404 for a missing server", async () => {
    const f = await setup();
    const member = await addMember(f.serverId);
    const outsider = await server.register();
    const body = { name: "r", color: "#FFFFFF", permissions: 0 };
    expectError(await as(null).post(`/${f.serverId}`, body), 401);
    expectError(await as(member).post(`/${f.serverId}`, body), 403, /MANAGE_ROLES/);
    expectError(await as(outsider).post(`/${f.serverId}`, body), 403);
    expectError(await as(f.owner).post(`/${UNKNOWN_ID}`, body), 404);
    expectError(await as(f.owner).post(`/${NOT_A_UUID}`, body), 404);
  });

  test("a member cannot grant bits they do not hold", async () => {
    const f = await setup();
    const { member, role } = await memberWith(f, P.MANAGE_ROLES | P.KICK_MEMBERS);
    expectError(await as(member).post(`/${f.serverId}`, { name: "r", color: "#FFFFFF", permissions: P.BAN_MEMBERS }), 403, /BAN_MEMBERS/);
    expectError(await as(member).post(`/${f.serverId}`, { name: "r", color: "#FFFFFF", permissions: P.ADMINISTRATOR }), 403, /ADMINISTRATOR/);
    // Bits from their role and from @everyone are fine; the new role goes just below theirs.
    const ok = await as(member).post(`/${f.serverId}`, { name: "r", color: "#FFFFFF", permissions: P.KICK_MEMBERS | P.SEND_MESSAGES });
    expect(ok.status).toBe(201);
    expect(ok.body.position).toBe(1);
    expect((await as(member).get(`/${f.serverId}/role/${role.id}`)).body.position).toBe(2);
  });

  test("effective permissions follow assignment: MANAGE_ROLES given, then taken away", async () => {
    const f = await setup();
    const member = await addMember(f.serverId);
    const managers = await createRole(f, { name: "managers", permissions: P.MANAGE_ROLES });
    const body = { name: "r", color: "#FFFFFF", permissions: 0 };
    expectError(await as(member).post(`/${f.serverId}`, body), 403);
    expect((await as(f.owner).post(`/${f.serverId}/assign`, { targetUserId: member.id, roleId: managers.id })).status).toBe(200);
    expect((await as(member).post(`/${f.serverId}`, body)).status).toBe(201);
    expect((await as(f.owner).del(`/${f.serverId}/assign/${member.id}/${managers.id}`)).status).toBe(200);
    expectError(await as(member).post(`/${f.serverId}`, body), 403);
  });
});

describe("PUT /roles/:serverId/:roleId", () => {
  test("updates, emits role:updated and writes ROLE_UPDATE with the changes", async () => {
    const f = await setup();
    const role = await createRole(f, { name: "old", color: "#111111", permissions: P.KICK_MEMBERS });
    const event = waitForEvent(f.socket, "role:updated");
    const res = await as(f.owner).put(`/${f.serverId}/${role.id}`, { name: "new", color: "#abcdef", permissions: P.BAN_MEMBERS, hoist: true });
    expect(res.status).toBe(200);
    expectRole(res.body, { id: role.id, name: "new", color: "#ABCDEF", permissions: P.BAN_MEMBERS, hoist: true, position: role.position, is_default: 0 });
    expect(await event).toEqual(res.body);
    const [entry] = await auditEntries(server, f.serverId, "ROLE_UPDATE");
    expect(entry).toMatchObject({ actor_id: f.owner.id, target_type: "role", target_id: role.id });
    expect(entry!.changes).toEqual({
      roleId: role.id,
      role: "new",
      name: { old: "old", new: "new" },
      color: { old: "#111111", new: "#ABCDEF" },
      permissions: { old: P.KICK_MEMBERS, new: P.BAN_MEMBERS },
      hoist: { old: false, new: true },
    });
    const partial = await as(f.owner).put(`/${f.serverId}/${role.id}`, { hoist: false });
    expect(partial.body).toMatchObject({ name: "new", color: "#ABCDEF", hoist: false });
  });

  test("the default role keeps its name but its permissions and color change", async () => {
    const f = await setup();
    expectError(await as(f.owner).put(`/${f.serverId}/${f.everyone.id}`, { name: "everyone" }), 400, /default role/);
    const res = await as(f.owner).put(`/${f.serverId}/${f.everyone.id}`, { name: "@everyone", permissions: P.VIEW_CHANNEL, color: "#123456" });
    expect(res.status).toBe(200);
    expectRole(res.body, { name: "@everyone", permissions: P.VIEW_CHANNEL, color: "#123456", position: 0, is_default: 1 });
  });

  test("taking VIEW_CHANNEL from @everyone removes members' sockets from channel rooms", async () => {
    const f = await setup();
    const member = await addMember(f.serverId);
    const socket = await server.connect(member.token);
    const [general] = await server.app.store.channels.listByServer(f.serverId);
    const room = `channel:${general!.id}`;
    server.app.io.in(`user:${member.id}`).socketsJoin(room);
    server.app.io.in(`user:${f.owner.id}`).socketsJoin(room);
    expect(await socketIdsIn(room)).toContain(socket.id!);
    const res = await as(f.owner).put(`/${f.serverId}/${f.everyone.id}`, { permissions: EVERYONE_PERMISSIONS & ~P.VIEW_CHANNEL });
    expect(res.status).toBe(200);
    const left = await socketIdsIn(room);
    expect(left).not.toContain(socket.id!);
    expect(left).toContain(f.socket.id!); // the owner sees everything
  });

  test("hierarchy: a non-admin edits only roles below their highest, and only bits they hold", async () => {
    const f = await setup();
    // Created top first: each new role starts at the bottom.
    const above = await createRole(f, { name: "above" });
    const { member, role: own } = await memberWith(f, P.MANAGE_ROLES | P.KICK_MEMBERS, "own");
    const below = await createRole(f, { name: "below", permissions: P.BAN_MEMBERS });
    expectError(await as(member).put(`/${f.serverId}/${own.id}`, { name: "mine" }), 403, /below your highest/);
    expectError(await as(member).put(`/${f.serverId}/${above.id}`, { name: "x" }), 403, /below your highest/);
    expect((await as(member).put(`/${f.serverId}/${below.id}`, { name: "renamed" })).status).toBe(200);
    // BAN_MEMBERS is on the role but not theirs: they may neither remove it nor add others they lack.
    expectError(await as(member).put(`/${f.serverId}/${below.id}`, { permissions: 0 }), 403, /BAN_MEMBERS/);
    expectError(await as(member).put(`/${f.serverId}/${below.id}`, { permissions: P.BAN_MEMBERS | P.MANAGE_SERVER }), 403, /MANAGE_SERVER/);
    const added = await as(member).put(`/${f.serverId}/${below.id}`, { permissions: P.BAN_MEMBERS | P.KICK_MEMBERS });
    expect(added.body.permissions).toBe(P.BAN_MEMBERS | P.KICK_MEMBERS);
    // @everyone sits at 0, below anyone with a custom role.
    expect((await as(member).put(`/${f.serverId}/${f.everyone.id}`, { color: "#222222" })).status).toBe(200);
  });

  test("a bot's managed role is edited by administrators only", async () => {
    const f = await setup();
    const { role: managed } = (await server.app.store.roles.create({
      serverId: f.serverId,
      name: "Bot",
      color: "#99AAB5",
      permissions: 0,
      hoist: false,
      managedBotId: UNKNOWN_ID,
      position: 1,
    }, 250))!;
    const { member } = await memberWith(f, P.MANAGE_ROLES, "managers");
    expectError(await as(member).put(`/${f.serverId}/${managed.id}`, { color: "#000000" }), 403, /managed role/);
    expect((await as(f.owner).put(`/${f.serverId}/${managed.id}`, { color: "#000000" })).status).toBe(200);
  });

  test("401, 403, 404 and 400", async () => {
    const f = await setup();
    const role = await createRole(f, { name: "r" });
    const member = await addMember(f.serverId);
    const outsider = await server.register();
    expectError(await as(null).put(`/${f.serverId}/${role.id}`, { name: "x" }), 401);
    expectError(await as(member).put(`/${f.serverId}/${role.id}`, { name: "x" }), 403, /MANAGE_ROLES/);
    expectError(await as(outsider).put(`/${f.serverId}/${role.id}`, { name: "x" }), 403);
    expectError(await as(f.owner).put(`/${f.serverId}/${UNKNOWN_ID}`, { name: "x" }), 404, "Role not found");
    expectError(await as(f.owner).put(`/${f.serverId}/${NOT_A_UUID}`, { name: "x" }), 404);
    expectError(await as(f.owner).put(`/${UNKNOWN_ID}/${role.id}`, { name: "x" }), 404);
    expectError(await as(f.owner).put(`/${f.serverId}/${role.id}`, { color: "#12345G" }), 400, /^color: /);
    expectError(await as(f.owner).put(`/${f.serverId}/${role.id}`, { permissions: 2 ** 24 }), 400, /^permissions: /);
    expectError(await as(f.owner).put(`/${f.serverId}/${role.id}`, { permissions: 2.5 }), 400, /^permissions: /);
    expectError(await as(f.owner).put(`/${f.serverId}/${role.id}`, { name: "" }), 400, /^name: /);
  });
});

describe("DELETE /roles/:serverId/:roleId", () => {
  test("deletes, moves the roles above down, emits role:deleted and member:roles-updated; ROLE_DELETE", async () => {
    const f = await setup();
    const b = await createRole(f, { name: "b" });
    const a = await createRole(f, { name: "a" }); // below b
    const member = await addMember(f.serverId);
    await as(f.owner).post(`/${f.serverId}/assign`, { targetUserId: member.id, roleId: a.id });
    const deleted = waitForEvent(f.socket, "role:deleted");
    const moved = waitForEvent(f.socket, "role:updated", { filter: (r: any) => r.id === b.id });
    const holders = waitForEvent(f.socket, "member:roles-updated");
    const res = await as(f.owner).del(`/${f.serverId}/${a.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect(await deleted).toBe(a.id);
    expect(await moved).toMatchObject({ id: b.id, position: 1 });
    expect(await holders).toEqual({ serverId: f.serverId, userId: member.id });
    expect((await as(f.owner).get(`/${f.serverId}`)).body.map((r: any) => r.id)).toEqual([b.id, f.everyone.id]);
    expect((await as(f.owner).get(`/${f.serverId}/member/${member.id}`)).body).toEqual([]);
    const [entry] = await auditEntries(server, f.serverId, "ROLE_DELETE");
    expect(entry).toMatchObject({ actor_id: f.owner.id, target_type: "role", target_id: a.id, changes: { roleId: a.id, role: "a" } });
  });

  test("the default role cannot be deleted", async () => {
    const f = await setup();
    expectError(await as(f.owner).del(`/${f.serverId}/${f.everyone.id}`), 400, /default role/);
  });

  test("hierarchy, and managed bot roles only by administrators", async () => {
    const f = await setup();
    const { member, role: own } = await memberWith(f, P.MANAGE_ROLES, "own");
    const below = await createRole(f, { name: "below" });
    expectError(await as(member).del(`/${f.serverId}/${own.id}`), 403);
    const { role: managed } = (await server.app.store.roles.create({
      serverId: f.serverId,
      name: "Bot",
      color: "#99AAB5",
      permissions: 0,
      hoist: false,
      managedBotId: UNKNOWN_ID,
      position: 1,
    }, 250))!;
    expectError(await as(member).del(`/${f.serverId}/${managed.id}`), 403, /managed role/);
    expect((await as(member).del(`/${f.serverId}/${below.id}`)).status).toBe(200);
    expect((await as(f.owner).del(`/${f.serverId}/${managed.id}`)).status).toBe(200);
  });

  test("401, 403, 404", async () => {
    const f = await setup();
    const role = await createRole(f, { name: "r" });
    const member = await addMember(f.serverId);
    const outsider = await server.register();
    expectError(await as(null).del(`/${f.serverId}/${role.id}`), 401);
    expectError(await as(member).del(`/${f.serverId}/${role.id}`), 403, /MANAGE_ROLES/);
    expectError(await as(outsider).del(`/${f.serverId}/${role.id}`), 403);
    expectError(await as(f.owner).del(`/${f.serverId}/${UNKNOWN_ID}`), 404);
    expectError(await as(f.owner).del(`/${f.serverId}/${NOT_A_UUID}`), 404);
    expectError(await as(f.owner).del(`/${UNKNOWN_ID}/${role.id}`), 404);
  });
});

describe("PUT /roles/:serverId/reorder", () => {
  test("moves roles into slots, answers the list, emits role:updated for each moved role", async () => {
    const f = await setup();
    // Straight into the store (on top, in order: a 1, b 2, c 3), so no create's events are in flight.
    const stored = async (name: string) => (await server.app.store.roles.create({ serverId: f.serverId, name, color: "#336699", permissions: 0, hoist: false }, 250))!;
    const { role: a } = await stored("a");
    const { role: b } = await stored("b");
    const { role: c } = await stored("c");
    const updates = recordEvents(f.socket, "role:updated");
    // a to the top: b and c each move down one.
    const res = await as(f.owner).put(`/${f.serverId}/reorder`, [{ id: a.id, position: 3 }]);
    expect(res.status).toBe(200);
    res.body.forEach((r: any) => expectRole(r));
    expect(res.body.map((r: any) => [r.name, r.position])).toEqual([
      ["a", 3],
      ["c", 2],
      ["b", 1],
      ["@everyone", 0],
    ]);
    await until(() => updates.length >= 3, "role:updated for the three moved");
    expect(updates.map((r) => [r.name, r.position]).sort()).toEqual([
      ["a", 3],
      ["b", 1],
      ["c", 2],
    ]);
    const entries = await auditEntries(server, f.serverId, "ROLE_UPDATE");
    expect(entries.find((e) => e.target_id === a.id)!.changes).toEqual({ roleId: a.id, role: "a", position: { old: 1, new: 3 } });
    // A full list, the default role included at 0, is accepted too.
    const full = await as(f.owner).put(`/${f.serverId}/reorder`, [
      { id: f.everyone.id, position: 0 },
      { id: a.id, position: 1 },
      { id: b.id, position: 2 },
      { id: c.id, position: 3 },
    ]);
    expect(full.body.map((r: any) => r.name)).toEqual(["c", "b", "a", "@everyone"]);
  });

  test("400 for the default role off 0, unknown or repeated ids, positions out of range, bad bodies", async () => {
    const f = await setup();
    const a = await createRole(f, { name: "a" });
    const b = await createRole(f, { name: "b" });
    const put = (body: unknown) => as(f.owner).put(`/${f.serverId}/reorder`, body);
    expectError(await put([{ id: f.everyone.id, position: 1 }]), 400, /default role/);
    expectError(await put([{ id: UNKNOWN_ID, position: 1 }]), 400, /not a role/);
    expectError(await put([{ id: a.id, position: 1 }, { id: a.id, position: 2 }]), 400, /twice/);
    expectError(await put([{ id: a.id, position: 2 }, { id: b.id, position: 2 }]), 400, /share/);
    expectError(await put([{ id: a.id, position: 3 }]), 400, /between 1 and 2/);
    expectError(await put([{ id: a.id, position: -1 }]), 400);
    expectError(await put([{ id: a.id, position: 1.5 }]), 400);
    expectError(await put([{ id: NOT_A_UUID, position: 1 }]), 400, /id/);
    expectError(await put({ id: a.id, position: 1 }), 400);
    expectError(await put([{ id: a.id }]), 400, /position/);
  });

  test("401, 403 without MANAGE_ROLES, for a non-member and past the hierarchy; 404 server", async () => {
    const f = await setup();
    const { member, role: own } = await memberWith(f, P.MANAGE_ROLES, "own");
    const low2 = await createRole(f, { name: "low2" });
    const low = await createRole(f, { name: "low" }); // low 1, low2 2, own 3
    const plain = await addMember(f.serverId);
    const outsider = await server.register();
    const body = [{ id: low.id, position: 2 }];
    expectError(await as(null).put(`/${f.serverId}/reorder`, body), 401);
    expectError(await as(plain).put(`/${f.serverId}/reorder`, body), 403, /MANAGE_ROLES/);
    expectError(await as(outsider).put(`/${f.serverId}/reorder`, body), 403);
    expectError(await as(f.owner).put(`/${UNKNOWN_ID}/reorder`, body), 404);
    expectError(await as(member).put(`/${f.serverId}/reorder`, [{ id: own.id, position: 1 }]), 403);
    expectError(await as(member).put(`/${f.serverId}/reorder`, [{ id: low.id, position: 3 }]), 403);
    const ok = await as(member).put(`/${f.serverId}/reorder`, body);
    expect(ok.status).toBe(200);
    expect(ok.body.map((r: any) => r.id)).toEqual([own.id, low.id, low2.id, f.everyone.id]);
  });
});

describe("POST /roles/:serverId/assign", () => {
  test("assigns, emits member:roles-updated, writes ROLE_ASSIGN; assigning again is a no-op", async () => {
    const f = await setup();
    const role = await createRole(f, { name: "VIP" });
    const member = await addMember(f.serverId);
    const event = waitForEvent(f.socket, "member:roles-updated");
    const res = await as(f.owner).post(`/${f.serverId}/assign`, { targetUserId: member.id, roleId: role.id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect(await event).toEqual({ serverId: f.serverId, userId: member.id });
    const entries = await auditEntries(server, f.serverId, "ROLE_ASSIGN");
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actor_id: f.owner.id, target_type: "member", target_id: member.id, target_username: member.username });
    expect(entries[0]!.changes).toEqual({ roleId: role.id, role: "VIP", userId: member.id, username: member.username });
    const roleList = await as(member).get(`/${f.serverId}/member/${member.id}`);
    expect(roleList.body).toEqual([role]);
    const members = await server.api("GET", `/api/v1/servers/${f.serverId}/members`, { token: f.owner.token });
    expect(members.body.find((m: any) => m.user_id === member.id).roles).toEqual([role.id]);

    expect((await as(f.owner).post(`/${f.serverId}/assign`, { targetUserId: member.id, roleId: role.id })).status).toBe(200);
    expect(await auditEntries(server, f.serverId, "ROLE_ASSIGN")).toHaveLength(1);
  });

  test("400 for the default role, a managed bot role on someone else, and bad bodies", async () => {
    const f = await setup();
    const member = await addMember(f.serverId);
    const role = await createRole(f, { name: "r" });
    const { role: managed } = (await server.app.store.roles.create({
      serverId: f.serverId,
      name: "Bot",
      color: "#99AAB5",
      permissions: 0,
      hoist: false,
      managedBotId: UNKNOWN_ID,
    }, 250))!;
    const post = (body: unknown) => as(f.owner).post(`/${f.serverId}/assign`, body);
    expectError(await post({ targetUserId: member.id, roleId: f.everyone.id }), 400, /default role/);
    expectError(await post({ targetUserId: member.id, roleId: managed.id }), 400, /managed role/);
    expectError(await post({ targetUserId: f.owner.id, roleId: managed.id }), 400, /managed role/);
    expectError(await post({ roleId: role.id }), 400, /^targetUserId: /);
    expectError(await post({ targetUserId: member.id }), 400, /^roleId: /);
    expectError(await post({ targetUserId: NOT_A_UUID, roleId: role.id }), 400, /^targetUserId: /);
    expectError(await post({ targetUserId: member.id, roleId: 7 }), 400, /^roleId: /);
  });

  test("401, 403 without MANAGE_ROLES or for a non-member, 404 for a non-member target or missing role", async () => {
    const f = await setup();
    const role = await createRole(f, { name: "r" });
    const member = await addMember(f.serverId);
    const outsider = await server.register();
    const body = { targetUserId: member.id, roleId: role.id };
    expectError(await as(null).post(`/${f.serverId}/assign`, body), 401);
    expectError(await as(member).post(`/${f.serverId}/assign`, body), 403, /MANAGE_ROLES/);
    expectError(await as(outsider).post(`/${f.serverId}/assign`, body), 403);
    expectError(await as(f.owner).post(`/${f.serverId}/assign`, { targetUserId: outsider.id, roleId: role.id }), 404, "Member not found");
    expectError(await as(f.owner).post(`/${f.serverId}/assign`, { targetUserId: member.id, roleId: UNKNOWN_ID }), 404, "Role not found");
    expectError(await as(f.owner).post(`/${UNKNOWN_ID}/assign`, body), 404);
  });

  test("hierarchy: outrank the target, the role below the actor's highest; self-assign below it", async () => {
    const f = await setup();
    const high = await createRole(f, { name: "high" });
    const { member: manager, role: managerRole } = await memberWith(f, P.MANAGE_ROLES, "manager");
    const low = await createRole(f, { name: "low" }); // low 1, manager 2, high 3
    const peer = await addMember(f.serverId);
    const senior = await addMember(f.serverId);
    await as(f.owner).post(`/${f.serverId}/assign`, { targetUserId: senior.id, roleId: high.id });
    const assign = (targetUserId: string, roleId: string) => as(manager).post(`/${f.serverId}/assign`, { targetUserId, roleId });
    expect((await assign(peer.id, low.id)).status).toBe(200);
    expectError(await assign(peer.id, high.id), 403, /below your highest/);
    expectError(await assign(peer.id, managerRole.id), 403, /below your highest/);
    expectError(await assign(senior.id, low.id), 403, /ranked at or above/);
    expectError(await assign(f.owner.id, low.id), 403);
    expect((await assign(manager.id, low.id)).status).toBe(200);
    expectError(await assign(manager.id, high.id), 403);
    // The owner assigns anything, to themselves too.
    expect((await as(f.owner).post(`/${f.serverId}/assign`, { targetUserId: f.owner.id, roleId: high.id })).status).toBe(200);
  });
});

describe("DELETE /roles/:serverId/assign/:targetUserId/:roleId", () => {
  test("unassigns, emits member:roles-updated, writes ROLE_UNASSIGN, hides channels the role revealed", async () => {
    const f = await setup();
    // @everyone cannot see channels; the role can.
    await as(f.owner).put(`/${f.serverId}/${f.everyone.id}`, { permissions: EVERYONE_PERMISSIONS & ~P.VIEW_CHANNEL });
    const { member, role } = await memberWith(f, P.VIEW_CHANNEL, "viewers");
    const socket = await server.connect(member.token);
    const [general] = await server.app.store.channels.listByServer(f.serverId);
    const room = `channel:${general!.id}`;
    server.app.io.in(`user:${member.id}`).socketsJoin(room);
    expect(await socketIdsIn(room)).toContain(socket.id!);
    const event = waitForEvent(f.socket, "member:roles-updated");
    const res = await as(f.owner).del(`/${f.serverId}/assign/${member.id}/${role.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect(await event).toEqual({ serverId: f.serverId, userId: member.id });
    expect(await socketIdsIn(room)).not.toContain(socket.id!);
    const [entry] = await auditEntries(server, f.serverId, "ROLE_UNASSIGN");
    expect(entry).toMatchObject({ actor_id: f.owner.id, target_type: "member", target_id: member.id });
    expect(entry!.changes).toEqual({ roleId: role.id, role: "viewers", userId: member.id, username: member.username });
    expect((await as(member).get(`/${f.serverId}/member/${member.id}`)).body).toEqual([]);
    // Not holding it: a no-op.
    expect((await as(f.owner).del(`/${f.serverId}/assign/${member.id}/${role.id}`)).status).toBe(200);
    expect(await auditEntries(server, f.serverId, "ROLE_UNASSIGN")).toHaveLength(1);
  });

  test("401, 403, 404, 400 and the hierarchy", async () => {
    const f = await setup();
    const { member: senior, role: high } = await memberWith(f, 0, "high");
    const { member: manager } = await memberWith(f, P.MANAGE_ROLES, "manager"); // below high
    const plain = await addMember(f.serverId);
    const outsider = await server.register();
    const path = `/${f.serverId}/assign/${senior.id}/${high.id}`;
    expectError(await as(null).del(path), 401);
    expectError(await as(plain).del(path), 403, /MANAGE_ROLES/);
    expectError(await as(outsider).del(path), 403);
    expectError(await as(manager).del(path), 403);
    expectError(await as(f.owner).del(`/${f.serverId}/assign/${outsider.id}/${high.id}`), 404, "Member not found");
    expectError(await as(f.owner).del(`/${f.serverId}/assign/${NOT_A_UUID}/${high.id}`), 404);
    expectError(await as(f.owner).del(`/${f.serverId}/assign/${senior.id}/${UNKNOWN_ID}`), 404, "Role not found");
    expectError(await as(f.owner).del(`/${f.serverId}/assign/${senior.id}/${NOT_A_UUID}`), 404);
    expectError(await as(f.owner).del(`/${UNKNOWN_ID}/assign/${senior.id}/${high.id}`), 404);
    expectError(await as(f.owner).del(`/${f.serverId}/assign/${senior.id}/${f.everyone.id}`), 400, /default role/);
    expect((await as(f.owner).del(path)).status).toBe(200);
  });
});

describe("GET /roles/:serverId/member/:targetUserId", () => {
  test("the member's custom roles, highest first, for any member", async () => {
    const f = await setup();
    const a = await createRole(f, { name: "a" });
    const b = await createRole(f, { name: "b" });
    const member = await addMember(f.serverId);
    const other = await addMember(f.serverId);
    for (const role of [a, b]) await as(f.owner).post(`/${f.serverId}/assign`, { targetUserId: member.id, roleId: role.id });
    const res = await as(other).get(`/${f.serverId}/member/${member.id}`);
    expect(res.status).toBe(200);
    res.body.forEach((r: any) => expectRole(r));
    expect(res.body.map((r: any) => r.id)).toEqual([a.id, b.id]); // a was pushed up by b
    expect((await as(other).get(`/${f.serverId}/member/${f.owner.id}`)).body).toEqual([]);
  });

  test("401, 403 for a non-member, 404 for a non-member target or bad ids", async () => {
    const f = await setup();
    const outsider = await server.register();
    expectError(await as(null).get(`/${f.serverId}/member/${f.owner.id}`), 401);
    expectError(await as(outsider).get(`/${f.serverId}/member/${f.owner.id}`), 403);
    expectError(await as(f.owner).get(`/${f.serverId}/member/${outsider.id}`), 404, "Member not found");
    expectError(await as(f.owner).get(`/${f.serverId}/member/${NOT_A_UUID}`), 404);
    expectError(await as(f.owner).get(`/${UNKNOWN_ID}/member/${f.owner.id}`), 404);
  });
});
