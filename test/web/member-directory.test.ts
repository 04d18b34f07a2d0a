/**
 * The web app's MemberDirectory (web/state/member-directory.ts) against a real Hearth: a small
 * server loaded whole, a large one (LARGE_SERVER_MEMBERS = 3 here) in pages, plus the reader,
 * lookups and searches, and events applied one member at a time without asking for a list.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { RestClient } from "../../sdk/src/client.ts";
import { MEMBER_PAGE, MemberDirectory } from "../../web/state/member-directory.ts";
import type { PresenceStatus, Role } from "../../web/lib/wire-types.ts";
import { addMember, createServer } from "../helpers/community.ts";
import { startServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { eventually } from "../helpers/wait.ts";
import { addBulkMembers } from "../helpers/seed.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ largeServerMembers: 3 });
});
afterAll(() => server.stop());

/** A directory as the app makes one, for `reader`, with every request it sends recorded. */
function directoryFor(reader: TestUser, serverId: string, count: number) {
  const requests: string[] = [];
  const rest = new RestClient({
    baseUrl: server.url,
    token: reader.token,
    fetch: (input, init) => {
      const url = new URL(String(input instanceof Request ? input.url : input));
      requests.push(`${url.pathname.replace(`/api/v1/servers/${serverId}`, "")}${url.search}`);
      return fetch(input, init);
    },
  });
  let status: PresenceStatus = "online";
  const directory = new MemberDirectory(serverId, {
    rest,
    self: () => ({ id: reader.id, status }),
    largeServerMembers: async () => 3,
  });
  directory.setCount(count);
  return { directory, requests, setSelfStatus: (next: PresenceStatus) => (status = next) };
}

const names = (directory: MemberDirectory) => (directory.members.peek() ?? []).map((m) => m.username);
const tags = { n: 0 };
const tag = () => `d${process.pid.toString(36)}${(++tags.n).toString(36)}`;

test("a small server is loaded whole, once, in the list's order; events change it without a request", async () => {
  const owner = await server.register(`${tag()}owner`);
  const serverId = await createServer(server, owner);
  const friend = await server.register(`${tag()}friend`);
  await addMember(server, serverId, friend);
  const { directory, requests } = directoryFor(owner, serverId, 2);
  await directory.ensureLoaded();
  await directory.ensureLoaded();
  expect(requests).toEqual(["/members"]);
  expect(directory.complete.peek()).toBe(true);
  expect(directory.large.peek()).toBe(false);
  // The reader is online as the gateway says, whatever the list said.
  expect(names(directory)).toEqual([owner.username, friend.username]);
  expect(directory.self.peek()?.status).toBe("online");

  directory.setStatus(friend.id, "dnd");
  expect(directory.peek(friend.id)?.status).toBe("dnd");
  directory.setBuiltinRole(friend.id, "moderator");
  directory.setTimeoutUntil(friend.id, 1234);
  expect(directory.peek(friend.id)).toMatchObject({ role: "moderator", timeout_until: 1234 });
  directory.left(friend.id);
  directory.left(friend.id); // the kick's answer, then its event: counted once
  expect(names(directory)).toEqual([owner.username]);
  expect(directory.count.peek()).toBe(1);
  // A lookup in a whole list never asks: someone not in it is not a member.
  expect(directory.lookup(friend.id)).toBeUndefined();
  // A search of a whole list is answered from it.
  expect((await directory.search(owner.username.slice(0, 4).toUpperCase())).map((m) => m.user_id)).toEqual([owner.id]);
  expect(requests).toEqual(["/members"]);
});

test("a large server: the first page and the reader, more pages on request, lookups, searches and events", async () => {
  const owner = await server.register(`${tag()}owner`);
  const serverId = await createServer(server, owner);
  const prefix = tag();
  const bulk = await addBulkMembers(server.app.store, serverId, 250, prefix);
  const { directory, requests } = directoryFor(owner, serverId, 251);
  await directory.ensureLoaded();
  expect(directory.large.peek()).toBe(true);
  expect(directory.complete.peek()).toBe(false);
  expect(requests.sort()).toEqual([`/members/${owner.id}`, `/members?limit=${MEMBER_PAGE}`].sort());
  // The bulk users' ids come first; the owner is not in the first page but is known.
  const first = directory.members.peek()!;
  expect(first).toHaveLength(MEMBER_PAGE + 1);
  // Online first (the reader), then the others in the order they came.
  expect(first[0]!.user_id).toBe(owner.id);
  expect(first.slice(1).map((m) => m.user_id)).toEqual(Array.from({ length: MEMBER_PAGE }, (_, i) => bulk.idOf(i + 1)));
  expect(directory.hasMore.peek()).toBe(true);

  requests.length = 0;
  await directory.loadMore();
  await directory.loadMore();
  expect(requests).toEqual([`/members?limit=${MEMBER_PAGE}&after=${bulk.idOf(100)}`, `/members?limit=${MEMBER_PAGE}&after=${bulk.idOf(200)}`]);
  // The last page held the rest (50 bulk users and the owner, whose id sorts after them): short, so the end.
  expect(directory.members.peek()).toHaveLength(251);
  expect(directory.hasMore.peek()).toBe(false);
  await directory.loadMore();
  expect(requests).toHaveLength(2);
});

test("a large server: search, lookup, join, roles, role deletion and leaving each cost at most one member's request", async () => {
  const owner = await server.register(`${tag()}owner`);
  const serverId = await createServer(server, owner);
  const prefix = tag();
  const bulk = await addBulkMembers(server.app.store, serverId, 150, prefix);
  const { directory, requests } = directoryFor(owner, serverId, 151);
  await directory.ensureLoaded();
  requests.length = 0;

  // A search asks the server and what it finds becomes known.
  const found = await directory.search(`${prefix}00014`);
  expect(found.map((m) => m.username)).toEqual([bulk.nameOf(140), bulk.nameOf(141), bulk.nameOf(142), bulk.nameOf(143), bulk.nameOf(144), bulk.nameOf(145), bulk.nameOf(146), bulk.nameOf(147), bulk.nameOf(148), bulk.nameOf(149)]);
  expect(requests).toEqual([`/members?query=${prefix}00014&limit=100`]);
  expect(directory.peek(bulk.idOf(145))?.username).toBe(bulk.nameOf(145));

  // A lookup of someone not known asks once, shares the request, and remembers a non-member.
  requests.length = 0;
  expect(directory.lookup(bulk.idOf(150))).toBeUndefined();
  expect(directory.lookup(bulk.idOf(150))).toBeUndefined();
  await eventually(() => directory.nameOf(bulk.idOf(150)) === bulk.nameOf(150), "the lookup");
  const stranger = await server.register();
  directory.lookup(stranger.id);
  await eventually(() => requests.length === 2, "the second lookup");
  await Bun.sleep(20);
  directory.lookup(stranger.id);
  await Bun.sleep(20);
  expect(requests).toEqual([`/members/${bulk.idOf(150)}`, `/members/${stranger.id}`]);

  // Someone joins: known at once from the event, completed by one lookup (online: connected).
  requests.length = 0;
  const socket = await server.connect(stranger.token);
  await addMember(server, serverId, stranger);
  directory.joined({ userId: stranger.id, username: stranger.username, avatar: null });
  expect(directory.peek(stranger.id)?.username).toBe(stranger.username);
  expect(directory.count.peek()).toBe(152);
  await eventually(() => directory.peek(stranger.id)?.status === "online", "the joiner's presence");
  expect(requests).toEqual([`/members/${stranger.id}`]);

  // Roles: the member is asked for again, alone; a role deleted is taken off locally.
  requests.length = 0;
  const role = await server.api("POST", `/api/v1/roles/${serverId}`, { token: owner.token, body: { name: "crew" } });
  await server.api("POST", `/api/v1/roles/${serverId}/assign`, { token: owner.token, body: { targetUserId: stranger.id, roleId: role.body.id } });
  directory.rolesChanged(stranger.id);
  directory.rolesChanged(stranger.id); // while the first is on its way: asked once more after it
  await eventually(() => directory.peek(stranger.id)?.roles.includes(role.body.id) === true, "the new role");
  await eventually(() => requests.length === 2, "the second ask");
  expect(requests).toEqual([`/members/${stranger.id}`, `/members/${stranger.id}`]);
  // A member the app does not know: nothing to ask.
  directory.rolesChanged(bulk.idOf(120));
  directory.roleDeleted(role.body.id);
  expect(directory.peek(stranger.id)?.roles).toEqual([]);

  // Presence: one entry moves; an offline member coming online goes first, by name.
  const before = directory.members.peek()!;
  directory.setStatus(bulk.idOf(50), "online");
  const after = directory.members.peek()!;
  expect(after.slice(0, 3).map((m) => m.username).sort()).toEqual([owner.username, stranger.username, bulk.nameOf(50)].sort());
  expect(after.filter((m) => m.status === "offline").map((m) => m.user_id)).toEqual(before.filter((m) => m.status === "offline" && m.user_id !== bulk.idOf(50)).map((m) => m.user_id));

  // Leaving: gone, counted.
  directory.left(stranger.id);
  expect(directory.peek(stranger.id)).toBeUndefined();
  expect(directory.count.peek()).toBe(151);
  expect(requests.filter((r) => r.startsWith("/members?") && !r.includes("query="))).toEqual([]);
  socket.close();
});

test("roles shown separately group the online members; a change of the hoisted roles sorts once, without a request", async () => {
  const owner = await server.register(`${tag()}owner`);
  const serverId = await createServer(server, owner);
  const zed = await server.register(`z${tag()}`);
  await addMember(server, serverId, zed);
  const { directory, requests } = directoryFor(owner, serverId, 2);
  await directory.ensureLoaded();
  directory.setStatus(zed.id, "online");
  expect(names(directory)).toEqual([owner.username, zed.username]);
  const post = (path: string, method: string, body: unknown) =>
    fetch(`${server.url}/api/v1/roles/${serverId}${path}`, { method, headers: { authorization: `Bearer ${owner.token}`, "content-type": "application/json" }, body: JSON.stringify(body) });
  const crew = (await (await post("", "POST", { name: "Crew", hoist: true })).json()) as Role;
  expect((await post("/assign", "POST", { targetUserId: zed.id, roleId: crew.id })).status).toBe(200);
  directory.rolesChanged(zed.id);
  await eventually(() => directory.peek(zed.id)?.roles.includes(crew.id), "the member with its new role");
  directory.setStatus(zed.id, "online"); // the lookup answered the server's presence: no socket, offline
  // The member's new roles do not move it until the order knows the role is hoisted.
  expect(names(directory)).toEqual([owner.username, zed.username]);
  directory.setRoles([crew]);
  expect(names(directory)).toEqual([zed.username, owner.username]);
  directory.setRoles([{ ...crew, hoist: false }]);
  expect(names(directory)).toEqual([owner.username, zed.username]);
  expect(requests).toEqual(["/members", `/members/${zed.id}`]);
});

test("a large server that becomes small again is loaded whole", async () => {
  const owner = await server.register(`${tag()}owner`);
  const serverId = await createServer(server, owner);
  const members = [await server.register(), await server.register(), await server.register()];
  for (const m of members) await addMember(server, serverId, m);
  const { directory, requests } = directoryFor(owner, serverId, 4);
  await directory.ensureLoaded();
  expect(directory.complete.peek()).toBe(false);
  await server.api("DELETE", `/api/v1/servers/${serverId}/leave`, { token: members[0]!.token });
  directory.left(members[0]!.id);
  await eventually(() => directory.complete.peek(), "the whole list");
  expect(requests.at(-1)).toBe("/members");
  expect(directory.members.peek()!.map((m) => m.user_id).sort()).toEqual([owner.id, members[1]!.id, members[2]!.id].sort());
});
