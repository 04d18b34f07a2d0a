/**
 * Channel changes cost what the connected sockets cost, not what the server's size does (issue
 * 42, point 4; docs/gateway.md, "Channel events"): creating, renaming, moving and deleting a
 * channel in a server of ~20,000 members (built through the store, test/helpers/seed.ts) runs
 * exactly as many store queries as in the same server at 4 members, with the same sockets
 * connected. The count is of the queries the store runs (every get, all, run and exec on the
 * database and in its transactions), never a time. Visibility holds all along: a member who
 * cannot view the channel gets none of its events, one who can gets each, including a socket
 * that resumes after missing them (docs/gateway.md, "Resume").
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PERMISSIONS as P } from "../../src/domain/access/permission-bits.ts";
import type { Database, Transaction } from "../../src/store/database.ts";
import { addMember, createServer } from "../helpers/community.ts";
import { connectResumable, drop, reconnect } from "../helpers/resume.ts";
import { addBulkMembers } from "../helpers/seed.ts";
import { recordEvents, startServer, waitForEvent, type ClientSocket, type TestServer, type TestUser } from "../helpers/server.ts";
import { quietWindow } from "../helpers/wait.ts";

const MEMBERS = 20_000;

/**
 * Counts every statement the database runs, in transactions too (the calls pass through
 * unchanged); `since(mark)` lists the statements run since `count` was `mark`, for a failure's message.
 */
function countQueries(db: Database): { readonly count: number; since(mark: number): string } {
  const statements: string[] = [];
  // A database may hand the same transaction object to each of its transactions: wrapped once.
  const wrapped = new WeakSet<object>();
  const wrap = <Q extends Database | Transaction>(target: Q): void => {
    if (wrapped.has(target)) return;
    wrapped.add(target);
    for (const method of ["get", "all", "run", "exec"] as const) {
      const original = target[method].bind(target) as (...args: unknown[]) => Promise<unknown>;
      (target as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
        const [statement] = args as [string | { sql: string }];
        statements.push((typeof statement === "string" ? statement : statement.sql).replace(/\s+/g, " ").slice(0, 120));
        return original(...args);
      };
    }
  };
  wrap(db);
  const transaction = db.transaction.bind(db);
  db.transaction = (work, options) =>
    transaction((tx) => {
      wrap(tx);
      return work(tx);
    }, options);
  return {
    get count() {
      return statements.length;
    },
    since: (mark) => statements.slice(mark).join("\n"),
  };
}

let server: TestServer;
let owner: TestUser;
let insider: TestUser;
let outsider: TestUser;
let serverId: string;
let insidersRole: string;
let privateCategory: string;
let sockets: ClientSocket[];
let insiderSocket: ClientSocket;
let outsiderSocket: ClientSocket;
let queries: ReturnType<typeof countQueries>;
/** The queries of each round's deletion of a role nobody holds (warm, small, big; a large server's takes another path). */
const roleDeletes: number[] = [];

const api = (method: string, path: string, body?: unknown) => server.api(method, path, { token: owner.token, body });

beforeAll(async () => {
  server = await startServer();
  // The background deletes' worker would run its batches while a change is counted: the jobs a
  // channel deletion queues wait here (docs/channels.md, "Delete"), so only the request's own
  // queries are counted.
  await server.app.domain.deletions.stop();
  owner = await server.register("scale_owner");
  insider = await server.register("scale_insider");
  outsider = await server.register("scale_outsider");
  serverId = await createServer(server, owner, "Scale");
  await addMember(server, serverId, insider);
  await addMember(server, serverId, outsider);
  insidersRole = (await api("POST", `/api/v1/roles/${serverId}`, { name: "insiders", color: "#112233", permissions: 0 })).body.id;
  expect((await api("POST", `/api/v1/roles/${serverId}/assign`, { targetUserId: insider.id, roleId: insidersRole })).status).toBe(200);
  // A category @everyone cannot view and the insiders can: its channels are private.
  privateCategory = (await api("POST", `/api/v1/channels/${serverId}/categories`, { name: "staff" })).body.id;
  const everyone = (await server.app.store.access.member(serverId, owner.id))!.everyone_id;
  expect((await api("PUT", `/api/v1/channels/categories/${privateCategory}/permissions/${everyone}`, { allow: 0, deny: P.VIEW_CHANNEL })).status).toBe(200);
  expect((await api("PUT", `/api/v1/channels/categories/${privateCategory}/permissions/${insidersRole}`, { allow: P.VIEW_CHANNEL, deny: 0 })).status).toBe(200);
  sockets = await Promise.all([owner, insider, outsider].map((user) => server.connect(user.token)));
  for (const socket of sockets) expect((await socket.emitWithAck("server:join", serverId)).ok).toBe(true);
  [, insiderSocket, outsiderSocket] = sockets as [ClientSocket, ClientSocket, ClientSocket];
  queries = countQueries(server.app.store.db);
}, 60_000);
afterAll(async () => {
  for (const socket of sockets) socket.close();
  await server.stop();
});

/** What the tests read of channel:created, channel:updated and channel:deleted. */
interface ChannelEvent {
  id: string;
  name?: string;
  server_id: string;
}

/** Store queries of one change, and the events about `channelId` (any, when not given) the insider and the outsider got from it. */
async function change(name: string, run: () => Promise<{ status: number }>, event: string, channelId?: string) {
  const about = (payload: ChannelEvent) => channelId === undefined || payload.id === channelId;
  const outsiderSaw = recordEvents<ChannelEvent>(outsiderSocket, event);
  const insiderGets = waitForEvent(insiderSocket, event, { filter: about });
  const before = queries.count;
  const res = await run();
  const used = queries.count - before;
  expect(res.status, name).toBeLessThan(300);
  const insiderGot = await insiderGets;
  await quietWindow();
  return { used, insiderGot, outsiderGot: outsiderSaw.filter(about) };
}

/** Creates, renames and deletes a private channel, and creates a public one; the queries of each. */
async function changes(tag: string): Promise<Record<string, number>> {
  const used: Record<string, number> = {};
  const created = await change("create", () => api("POST", `/api/v1/channels/${serverId}`, { name: `plans-${tag}`, type: "text", category_id: privateCategory }), "channel:created");
  const channelId = created.insiderGot.id as string;
  expect(created.insiderGot.name).toBe(`plans-${tag}`);
  expect(created.outsiderGot).toEqual([]);
  used.create = created.used;

  const renamed = await change("rename", () => api("PUT", `/api/v1/channels/${channelId}`, { name: `secret-${tag}` }), "channel:updated", channelId);
  expect(renamed.insiderGot.name).toBe(`secret-${tag}`);
  expect(renamed.outsiderGot).toEqual([]);
  used.rename = renamed.used;

  const moved = await change("reorder", () => api("PUT", `/api/v1/channels/${serverId}/reorder`, { order: [{ id: channelId, position: 0 }] }), "channel:updated", channelId);
  expect(moved.insiderGot.id).toBe(channelId);
  expect(moved.outsiderGot).toEqual([]);
  used.reorder = moved.used;

  const deleted = await change("delete", () => api("DELETE", `/api/v1/channels/${channelId}`), "channel:deleted", channelId);
  expect(deleted.insiderGot).toEqual({ id: channelId, server_id: serverId });
  expect(deleted.outsiderGot).toEqual([]);
  used.delete = deleted.used;

  // A public channel: everyone connected hears of it.
  const outsiderHears = waitForEvent(outsiderSocket, "channel:created");
  const before = queries.count;
  const open = await api("POST", `/api/v1/channels/${serverId}`, { name: `open-${tag}`, type: "text" });
  used.createPublic = queries.count - before;
  expect(open.status).toBe(201);
  expect((await outsiderHears).id).toBe(open.body.id);
  // Role changes: one the outsider is given, whose permissions change, that moves, is taken back and deleted.
  const role = (await api("POST", `/api/v1/roles/${serverId}`, { name: `scratch-${tag}`, color: "#445566", permissions: 0 })).body.id as string;
  const counted = async (name: string, run: () => Promise<{ status: number }>) => {
    const at = queries.count;
    const res = await run();
    used[name] = queries.count - at;
    expect(res.status, name).toBeLessThan(300);
  };
  // Each member:roles-updated awaited, so that none arrives during a later count.
  const rolesUpdated = () => waitForEvent(outsiderSocket, "member:roles-updated");
  let told = rolesUpdated();
  await counted("roleAssign", () => api("POST", `/api/v1/roles/${serverId}/assign`, { targetUserId: outsider.id, roleId: role }));
  await told;
  await counted("rolePermissions", () => api("PUT", `/api/v1/roles/${serverId}/${role}`, { permissions: P.SEND_MESSAGES }));
  await counted("roleReorder", () => api("PUT", `/api/v1/roles/${serverId}/reorder`, [{ id: role, position: 1 }]));
  told = rolesUpdated();
  await counted("roleUnassign", () => api("DELETE", `/api/v1/roles/${serverId}/assign/${outsider.id}/${role}`));
  await told;
  const at = queries.count;
  expect((await api("DELETE", `/api/v1/roles/${serverId}/${role}`)).status).toBe(200);
  roleDeletes.push(queries.count - at);

  // Gone again, so that every round starts from the same channels.
  const gone = waitForEvent(outsiderSocket, "channel:deleted");
  expect((await api("DELETE", `/api/v1/channels/${open.body.id}`)).status).toBe(200);
  await gone;
  return used;
}

describe("channel changes in a big server", () => {
  test(`create, rename, reorder and delete run as many store queries with ${MEMBERS.toLocaleString("en-US")} members as with 3`, async () => {
    await changes("warm");
    const small = await changes("small");
    // Half of them hold the insiders role: what they may view differs, and none is connected.
    await addBulkMembers(server.app.store, serverId, MEMBERS / 2, "scale");
    await addBulkMembers(server.app.store, serverId, MEMBERS / 2, "scalein", { roleId: insidersRole });
    expect((await server.api("GET", `/api/v1/servers/${serverId}`, { token: owner.token })).body.member_count).toBe(MEMBERS + 3);
    const big = await changes("big");
    expect(big).toEqual(small);
  }, 60_000);

  test("deleting a role 5,000 members hold tells them with role:deleted alone, in as many queries as a role nobody holds", async () => {
    const crowd = (await api("POST", `/api/v1/roles/${serverId}`, { name: "crowd", color: "#778899", permissions: 0 })).body.id as string;
    await addBulkMembers(server.app.store, serverId, 5_000, "crowd", { roleId: crowd });
    const assigned = waitForEvent(outsiderSocket, "member:roles-updated");
    expect((await api("POST", `/api/v1/roles/${serverId}/assign`, { targetUserId: outsider.id, roleId: crowd })).status).toBe(200);
    expect(await assigned).toEqual({ serverId, userId: outsider.id });
    const rolesUpdated = recordEvents(outsiderSocket, "member:roles-updated");
    const deleted = waitForEvent(outsiderSocket, "role:deleted");
    const at = queries.count;
    expect((await api("DELETE", `/api/v1/roles/${serverId}/${crowd}`)).status).toBe(200);
    expect(queries.count - at, queries.since(at)).toBeLessThanOrEqual(roleDeletes[2]!);
    expect(await deleted).toBe(crowd);
    await quietWindow();
    expect(rolesUpdated).toEqual([]);
    // The outsider holds it no more.
    const roles = await server.api("GET", `/api/v1/roles/${serverId}/member/${outsider.id}`, { token: owner.token });
    expect(roles.body.map((r: { id: string }) => r.id)).not.toContain(crowd);
  });

  test("a socket that resumes after missing them gets the channel events it may see, and none of the others", async () => {
    // Users whose only socket is the one that drops: nobody of theirs was in the room to check.
    const away = await server.register("scale_away");
    const awayInsider = await server.register("scale_away_in");
    for (const user of [away, awayInsider]) await addMember(server, serverId, user);
    expect((await api("POST", `/api/v1/roles/${serverId}/assign`, { targetUserId: awayInsider.id, roleId: insidersRole })).status).toBe(200);
    const outsiderResumable = await connectResumable(server.url, away.token);
    const insiderResumable = await connectResumable(server.url, awayInsider.token);
    for (const socket of [insiderResumable, outsiderResumable]) expect((await socket.emitWithAck("server:join", serverId)).ok).toBe(true);
    await drop(insiderResumable);
    await drop(outsiderResumable);
    const privateChannel = (await api("POST", `/api/v1/channels/${serverId}`, { name: "while-away", type: "text", category_id: privateCategory })).body.id as string;
    const publicChannel = (await api("POST", `/api/v1/channels/${serverId}`, { name: "lobby-while-away", type: "text" })).body.id as string;
    const insiderGot = recordEvents(insiderResumable, "channel:created");
    const outsiderGot = recordEvents(outsiderResumable, "channel:created");
    await reconnect(insiderResumable);
    await reconnect(outsiderResumable);
    expect(insiderResumable.recovered).toBe(true);
    expect(outsiderResumable.recovered).toBe(true);
    await quietWindow();
    expect(insiderGot.map((c) => c.id)).toEqual([privateChannel, publicChannel]);
    expect(outsiderGot.map((c) => c.id)).toEqual([publicChannel]);

    // A channel deleted while away cannot be checked any more: that session is not resumed (the client reloads).
    await drop(insiderResumable);
    expect((await api("DELETE", `/api/v1/channels/${privateChannel}`)).status).toBe(200);
    await reconnect(insiderResumable);
    expect(insiderResumable.recovered).toBe(false);
    insiderResumable.close();
    outsiderResumable.close();
  });
});
