/** The member list's order (web/lib/member-order.ts): online first, by name or by when known, kept by single moves. */
import { expect, test } from "bun:test";
import { compareNames, hoistedRoles, insertionIndex, matchingNames, memberComparator, memberGroups, replaceSorted } from "../../web/lib/member-order.ts";
import type { Member, PresenceStatus, Role } from "../../web/lib/wire-types.ts";

const member = (user_id: string, username: string, status: PresenceStatus = "offline"): Member => ({
  user_id,
  username,
  avatar: null,
  status,
  role: "member",
  roles: [],
  is_bot: 0,
  joined_at: 0,
  timeout_until: null,
  custom_status: null,
});
const names = (list: readonly Member[]) => list.map((m) => m.username);

test("compareNames: case and accents set aside first, then as written", () => {
  const cases: [string, string, number][] = [
    ["alice", "Bob", -1],
    ["Bob", "alice", 1],
    ["ann", "Ann", 1],
    ["Ann", "ann", -1],
    ["élan", "elan", 1],
    ["zed", "zed", 0],
  ];
  for (const [a, b, sign] of cases) expect(Math.sign(compareNames(a, b))).toBe(sign);
});

test("a whole list: online by name, then offline by name; ties by user id", () => {
  const compare = memberComparator({ byName: true, seqOf: () => 0 });
  const list = [member("1", "zoe"), member("2", "Bob", "idle"), member("3", "amy"), member("4", "cat", "dnd"), member("6", "bob"), member("5", "bob")];
  expect(names(list.slice().sort(compare))).toEqual(["Bob", "cat", "amy", "bob", "bob", "zoe"]);
  expect(list.slice().sort(compare).filter((m) => m.username === "bob").map((m) => m.user_id)).toEqual(["5", "6"]);
});

test("a partial list: online by name, offline in the order they became known", () => {
  const seq = new Map([["a", 2], ["b", 0], ["c", 1], ["d", 3]]);
  const compare = memberComparator({ byName: false, seqOf: (id) => seq.get(id)! });
  const list = [member("a", "alpha"), member("b", "zulu"), member("c", "mike", "online"), member("d", "bravo", "online")];
  expect(names(list.slice().sort(compare))).toEqual(["bravo", "mike", "zulu", "alpha"]);
});

test("insertionIndex: after equal entries, at the ends", () => {
  const compare = memberComparator({ byName: true, seqOf: () => 0 });
  const list = [member("1", "b"), member("2", "d"), member("3", "f")];
  const cases: [string, number][] = [["a", 0], ["c", 1], ["e", 2], ["g", 3]];
  for (const [name, at] of cases) expect(insertionIndex(list, member("9", name), compare)).toBe(at);
  expect(insertionIndex([], member("9", "x"), compare)).toBe(0);
});

test("replaceSorted: a status change moves one entry, a change in place keeps its slot, removal and insertion", () => {
  const compare = memberComparator({ byName: true, seqOf: () => 0 });
  const list = [member("1", "amy", "online"), member("2", "bob", "online"), member("3", "cat"), member("4", "dan")].sort(compare);
  // dan comes online: he moves among the online members, by name.
  const online = replaceSorted(list, list[3], { ...list[3]!, status: "online" }, compare);
  expect(names(online)).toEqual(["amy", "bob", "dan", "cat"]);
  expect(list.map((m) => m.username)).toEqual(["amy", "bob", "cat", "dan"]); // the old list is untouched
  // bob goes idle: still online, same slot, a new object there.
  const idle = replaceSorted(online, online[1], { ...online[1]!, status: "idle" }, compare);
  expect(names(idle)).toEqual(["amy", "bob", "dan", "cat"]);
  expect(idle[1]!.status).toBe("idle");
  // amy goes offline: first among the offline by name.
  expect(names(replaceSorted(idle, idle[0], { ...idle[0]!, status: "offline" }, compare))).toEqual(["bob", "dan", "amy", "cat"]);
  // Removed, added.
  expect(names(replaceSorted(idle, idle[3], undefined, compare))).toEqual(["amy", "bob", "dan"]);
  expect(names(replaceSorted(idle, undefined, member("5", "bea"), compare))).toEqual(["amy", "bob", "dan", "bea", "cat"]);
  expect(names(replaceSorted([], undefined, member("5", "bea"), compare))).toEqual(["bea"]);
});

test("replaceSorted keeps a long list sorted through many random moves", () => {
  const seq = new Map<string, number>();
  const compare = memberComparator({ byName: false, seqOf: (id) => seq.get(id)! });
  const statuses: PresenceStatus[] = ["online", "idle", "dnd", "offline"];
  let list: Member[] = [];
  let random = 7;
  const next = () => (random = (random * 1103515245 + 12345) % 2 ** 31);
  for (let i = 0; i < 300; i++) {
    const id = `u${i.toString().padStart(3, "0")}`;
    seq.set(id, i);
    list = replaceSorted(list, undefined, member(id, `n${next() % 1000}`, statuses[next() % 4]), compare);
  }
  for (let step = 0; step < 2000; step++) {
    const at = next() % list.length;
    const previous = list[at]!;
    list = replaceSorted(list, previous, { ...previous, status: statuses[next() % 4]! }, compare);
  }
  expect(list).toHaveLength(300);
  expect(list).toEqual(list.slice().sort(compare));
  expect(new Set(list.map((m) => m.user_id)).size).toBe(300);
});

test("matchingNames: a prefix or a substring, case set aside, by name, at most limit", () => {
  const list = [member("1", "Bobby"), member("2", "rob"), member("3", "bob"), member("4", "alice")];
  expect(names(matchingNames(list, "BO", 10, false))).toEqual(["bob", "Bobby"]);
  expect(names(matchingNames(list, "ob", 10, true))).toEqual(["bob", "Bobby", "rob"]);
  expect(names(matchingNames(list, "", 2, false))).toEqual(["alice", "bob"]);
  expect(matchingNames(list, "zz", 10, true)).toEqual([]);
});

const role = (id: string, name: string, position: number, hoist: boolean, is_default: 0 | 1 = 0): Role => ({
  id,
  server_id: "s",
  name,
  color: "#000000",
  position,
  permissions: 0,
  hoist,
  is_default,
  managed_bot_id: null,
});

test("hoisted roles: online members under their highest hoisted role, highest first; offline members are not grouped", () => {
  const roles = [role("every", "@everyone", 0, true, 1), role("mod", "Moderators", 2, true), role("admin", "Admins", 3, true), role("vip", "VIP", 4, false)];
  const hoisted = hoistedRoles(roles);
  expect(hoisted.map((r) => r.name)).toEqual(["Admins", "Moderators"]);
  const compare = memberComparator({ byName: true, seqOf: () => 0, hoisted: hoisted.map((r) => r.id) });
  const withRoles = (m: Member, roles: string[]): Member => ({ ...m, roles });
  const list = [
    withRoles(member("1", "amy", "online"), []),
    withRoles(member("2", "zed", "online"), ["mod"]),
    withRoles(member("3", "bob", "online"), ["mod", "admin"]),
    withRoles(member("4", "cat", "idle"), ["vip", "mod"]),
    withRoles(member("5", "abe"), ["admin"]),
    withRoles(member("6", "dan", "dnd"), ["vip"]),
  ].sort(compare);
  expect(names(list)).toEqual(["bob", "cat", "zed", "amy", "dan", "abe"]);
  expect(memberGroups(list, hoisted).map((g) => [g.title, g.start, g.size])).toEqual([
    ["Admins", 0, 1],
    ["Moderators", 1, 2],
    ["Online", 3, 2],
    ["Offline", 5, 1],
  ]);
  // Kept by single moves too: zed stops being a moderator and goes to the plain online group.
  const moved = replaceSorted(list, list[2], { ...list[2]!, roles: [] }, compare);
  expect(names(moved)).toEqual(["bob", "cat", "amy", "dan", "zed", "abe"]);
  // No hoisted roles: the plain order, one Online and one Offline group.
  expect(memberGroups(list.slice().sort(memberComparator({ byName: true, seqOf: () => 0 })), []).map((g) => g.title)).toEqual(["Online", "Offline"]);
});
