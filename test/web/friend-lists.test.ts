/** The Friends page's lists (web/lib/friend-lists.ts): sorted by username, one entry per user, changed one entry at a time. */
import { expect, test } from "bun:test";
import { onlineFriends, sortedByName, withEntry, withoutUser, withStatus } from "../../web/lib/friend-lists.ts";
import type { CustomStatus, PresenceStatus } from "../../web/lib/wire-types.ts";

const friend = (user_id: string, username: string, status: PresenceStatus = "offline") => ({ user_id, username, status });
const names = (list: readonly { username: string }[]) => list.map((f) => f.username);

test("withEntry inserts in username order regardless of case, and replaces the same user's entry", () => {
  const list = [friend("1", "alice"), friend("3", "Carol")];
  expect(names(withEntry(list, friend("2", "Bob")))).toEqual(["alice", "Bob", "Carol"]);
  expect(names(withEntry(list, friend("4", "aaron")))).toEqual(["aaron", "alice", "Carol"]);
  expect(names(withEntry(list, friend("5", "zed")))).toEqual(["alice", "Carol", "zed"]);
  expect(names(withEntry([], friend("5", "zed")))).toEqual(["zed"]);
  const replaced = withEntry(list, friend("1", "alice", "online"));
  expect(replaced).toHaveLength(2);
  expect(replaced[0]).toEqual(friend("1", "alice", "online"));
  expect(list[0]!.status).toBe("offline");
});

test("withoutUser drops one user's entry, and keeps the same list when there is none", () => {
  const list = [friend("1", "alice"), friend("2", "bob")];
  expect(names(withoutUser(list, "1"))).toEqual(["bob"]);
  expect(withoutUser(list, "9")).toBe(list);
});

test("withStatus changes one user's status and custom status, only when told; nobody else's", () => {
  const busy = { text: "busy", emoji: "📅", expires_at: "2026-12-02T20:00:00.000Z" };
  type Shown = ReturnType<typeof friend> & { custom_status: CustomStatus | null };
  const list: Shown[] = [{ ...friend("1", "alice"), custom_status: null }, { ...friend("2", "bob", "online"), custom_status: busy }];
  const changed = withStatus(list, "2", "dnd");
  expect(changed[1]).toEqual({ user_id: "2", username: "bob", status: "dnd", custom_status: busy });
  expect(changed[0]).toBe(list[0]);
  expect(withStatus(list, "2", "idle", { text: null, emoji: null })[1]!.custom_status).toBeNull();
  expect(withStatus(list, "2", "idle", { text: "lunch", emoji: null })[1]!.custom_status).toEqual({ text: "lunch", emoji: null, expires_at: null });
  // The same text keeps the expiry the list knew (the event carries none).
  expect(withStatus(list, "2", "idle", { text: "busy", emoji: "📅" })[1]!.custom_status).toEqual(busy);
  // Nothing of an offline friend's is shown.
  expect(withStatus(list, "2", "offline")[1]!.custom_status).toBeNull();
  expect(withStatus(list, "9", "online")).toBe(list);
});

test("onlineFriends: every status but offline", () => {
  const list = [friend("1", "a", "online"), friend("2", "b", "idle"), friend("3", "c", "dnd"), friend("4", "d", "offline")];
  expect(names(onlineFriends(list))).toEqual(["a", "b", "c"]);
});

test("sortedByName: the app's name order, a new list", () => {
  const list = [friend("1", "zed"), friend("2", "Alice"), friend("3", "bob")];
  expect(names(sortedByName(list))).toEqual(["Alice", "bob", "zed"]);
  expect(names(list)).toEqual(["zed", "Alice", "bob"]);
});
