/** The pure parts of the app's state: message lists, reactions, the channel tree, permissions. */
import { expect, test } from "bun:test";
import { testMessage } from "./fixtures.ts";
import type { Category, Channel, Member, Message, Role } from "../../web/lib/wire-types.ts";
import { channelTree, firstTextChannel } from "../../web/lib/channel-tree.ts";
import { applyReaction, continuesGroup, mergeMessages, removeMessage } from "../../web/lib/message-list.ts";
import { basePermissionsOf, can } from "../../web/lib/permissions.ts";

const msg = testMessage;

test("mergeMessages keeps id order without duplicates, appends fast, replaces edits", () => {
  const list = [msg("01"), msg("03")];
  expect(mergeMessages(list, [msg("05"), msg("04")]).map((m) => m.id)).toEqual(["01", "03", "04", "05"]);
  expect(mergeMessages(list, [msg("02"), msg("00"), msg("03")]).map((m) => m.id)).toEqual(["00", "01", "02", "03"]);
  const edited = mergeMessages(list, [msg("03", { content: "new" })]);
  expect(edited.map((m) => m.content)).toEqual(["01", "new"]);
  expect(mergeMessages(list, [])).toBe(list);
  expect(mergeMessages([], [msg("02"), msg("02")]).map((m) => m.id)).toEqual(["02"]);
  expect(removeMessage(list, "01").map((m) => m.id)).toEqual(["03"]);
  expect(removeMessage(list, "zz")).toBe(list);
});

test("continuesGroup: same author within 7 minutes, not a reply, not a webhook after its creator", () => {
  const a = msg("01", { created_at: 1000 });
  expect(continuesGroup(undefined, a)).toBe(false);
  expect(continuesGroup(a, msg("02", { created_at: 1000 + 419 }))).toBe(true);
  expect(continuesGroup(a, msg("02", { created_at: 1000 + 420 }))).toBe(false);
  expect(continuesGroup(a, msg("02", { user_id: "u2" }))).toBe(false);
  expect(continuesGroup(a, msg("02", { reply_to: "01" }))).toBe(false);
  expect(continuesGroup(a, msg("02", { webhook_id: "w", username: "Hook" }))).toBe(false);
});

test("applyReaction counts each user once and drops an emoji at zero", () => {
  let list = applyReaction([], { emoji: "👍", userId: "a", action: "added" }, "ann");
  list = applyReaction(list, { emoji: "👍", userId: "b", action: "added" }, "bob");
  list = applyReaction(list, { emoji: "👍", userId: "b", action: "added" }, "bob");
  list = applyReaction(list, { emoji: "🎉", userId: "a", action: "added" }, "ann");
  expect(list).toEqual([
    { emoji: "👍", count: 2, users: [{ id: "a", username: "ann" }, { id: "b", username: "bob" }] },
    { emoji: "🎉", count: 1, users: [{ id: "a", username: "ann" }] },
  ]);
  list = applyReaction(list, { emoji: "👍", userId: "a", action: "removed" });
  list = applyReaction(list, { emoji: "🎉", userId: "a", action: "removed" });
  list = applyReaction(list, { emoji: "🎉", userId: "a", action: "removed" });
  expect(list).toEqual([{ emoji: "👍", count: 1, users: [{ id: "b", username: "bob" }] }]);
});

const channel = (id: string, position: number, category_id: string | null = null, type: "text" | "voice" = "text"): Channel => ({
  id,
  server_id: "s",
  name: id,
  type,
  category_id,
  position,
  topic: null,
  slowmode: 0,
  nsfw: false,
  chat_enabled: false,
  is_meeting: false,
});
const category = (id: string, position: number): Category => ({ id, server_id: "s", name: id.toUpperCase(), position });

test("channelTree: uncategorized first, then categories by position, channels by position then age", () => {
  const tree = channelTree(
    [channel("c-voice", 0, "k2", "voice"), channel("b-text", 1, "k2"), channel("a-text", 1, "k2"), channel("loose", 5), channel("orphan", 0, "gone"), channel("k1-only", 0, "k1")],
    [category("k2", 0), category("k1", 1), category("k3", 2)],
  );
  expect(tree.map((g) => [g.category?.id ?? null, g.channels.map((c) => c.id)])).toEqual([
    [null, ["orphan", "loose"]],
    ["k2", ["c-voice", "a-text", "b-text"]],
    ["k1", ["k1-only"]],
    ["k3", []],
  ]);
  expect(firstTextChannel([channel("v", 0, null, "voice"), channel("t", 1, "k")], [category("k", 0)])?.id).toBe("t");
  expect(firstTextChannel([channel("v", 0, null, "voice")], [])).toBeUndefined();
});

test("basePermissionsOf: owner, built-in roles, @everyone and custom roles, ADMINISTRATOR", () => {
  const roles: Role[] = [
    { id: "everyone", server_id: "s", name: "@everyone", color: "#000000", position: 0, permissions: 2048 | 4096, hoist: false, is_default: 1, managed_bot_id: null },
    { id: "pins", server_id: "s", name: "Pinners", color: "#FFFFFF", position: 1, permissions: 16, hoist: false, is_default: 0, managed_bot_id: null },
    { id: "admin", server_id: "s", name: "Admins", color: "#FFFFFF", position: 2, permissions: 512, hoist: false, is_default: 0, managed_bot_id: null },
  ];
  const member = (role: string, custom: string[] = [], user_id = "m"): Member => ({ user_id, username: "x", avatar: null, status: "online", role, roles: custom, is_bot: 0, joined_at: 0, timeout_until: null, custom_status: null });
  const plain = basePermissionsOf(member("member"), roles, "owner");
  expect(can(plain, "SEND_MESSAGES")).toBe(true);
  expect(can(plain, "MANAGE_MESSAGES")).toBe(false);
  expect(can(basePermissionsOf(member("member", ["pins"]), roles, "owner"), "MANAGE_MESSAGES")).toBe(true);
  expect(can(basePermissionsOf(member("moderator"), roles, "owner"), "MANAGE_MESSAGES")).toBe(true);
  expect(can(basePermissionsOf(member("member", ["admin"]), roles, "owner"), "MANAGE_SERVER")).toBe(true);
  expect(can(basePermissionsOf(member("member", [], "owner"), roles, "owner"), "BAN_MEMBERS")).toBe(true);
  expect(basePermissionsOf(undefined, roles, "owner")).toBe(0);
});
