/** The server settings' pure rules: who is offered what, role moves, audit entries in words. */
import { expect, test } from "bun:test";
import type { Member, Role } from "../../web/lib/wire-types.ts";
import type { AuditEntry } from "../../web/lib/wire-types.ts";
import { settingsAccess, isTimedOut } from "../../web/pages/settings/access.ts";
import { allowedIndexes, customRolesHighestFirst, positionAt } from "../../web/pages/settings/role-order.ts";
import { moveTo } from "../../web/lib/reorder.ts";
import { ACTION_LABELS, changeLines, entrySubject } from "../../web/pages/settings/audit-labels.ts";
import { ALL_PERMISSIONS, AUDIT_ACTIONS, PERMISSIONS as P } from "../../web/lib/shared-rules.ts";

const role = (id: string, position: number, permissions = 0, extra: Partial<Role> = {}): Role => ({
  id,
  server_id: "s",
  name: id,
  color: "#FFFFFF",
  position,
  permissions,
  hoist: false,
  is_default: 0,
  managed_bot_id: null,
  ...extra,
});
const everyone = role("everyone", 0, P.VIEW_CHANNEL | P.SEND_MESSAGES, { is_default: 1, name: "@everyone" });
const member = (user_id: string, builtin = "member", roles: string[] = [], is_bot: 0 | 1 = 0): Member => ({
  user_id,
  username: user_id,
  avatar: null,
  status: "online",
  role: builtin,
  roles,
  is_bot,
  joined_at: 0,
  timeout_until: null,
  custom_status: null,
});

const top = role("top", 4, P.MANAGE_ROLES | P.KICK_MEMBERS);
const managers = role("managers", 3, P.MANAGE_ROLES | P.MANAGE_CHANNELS);
const low = role("low", 2);
const botRole = role("botrole", 1, P.SEND_MESSAGES, { managed_bot_id: "bot" });
const roles = [everyone, top, managers, low, botRole];
const members = [
  member("owner"),
  member("admin", "admin"),
  member("mod", "moderator"),
  member("manager", "member", ["managers"]),
  member("plain", "member", ["low"]),
  member("bot", "member", ["botrole"], 1),
  member("boss", "member", ["top"]),
];
/** The reader's own member, as the app knows it (undefined for someone who is not one). */
const memberOf = (id: string) => members.find((m) => m.user_id === id);

test("a plain member is offered no section; the owner every one", () => {
  expect(settingsAccess(memberOf("plain"), roles, "owner", "plain").sections).toEqual([]);
  expect(settingsAccess(memberOf("owner"), roles, "owner", "owner").sections).toEqual([
    "overview", "roles", "channels", "emojis", "soundboard", "invites", "members", "bans", "audit-log", "webhooks", "bots",
  ]);
  // Someone who is not a member at all holds nothing.
  expect(settingsAccess(memberOf("stranger"), roles, "owner", "stranger").sections).toEqual([]);
});

test("a built-in moderator moderates members below them and sees nothing of MANAGE_SERVER", () => {
  const mod = settingsAccess(memberOf("mod"), roles, "owner", "mod");
  expect(mod.sections).toEqual(["members", "bans", "bots"]);
  expect(mod.canKick(members.find((m) => m.user_id === "plain")!)).toBe(true);
  expect(mod.canTimeout(members.find((m) => m.user_id === "plain")!)).toBe(true);
  expect(mod.canBan(members.find((m) => m.user_id === "admin")!)).toBe(false);
  expect(mod.canKick(members.find((m) => m.user_id === "owner")!)).toBe(false);
  expect(mod.canKick(members.find((m) => m.user_id === "mod")!)).toBe(false);
  expect(mod.canSetBuiltinRole(members.find((m) => m.user_id === "plain")!)).toBe(false);
});

test("a role manager edits and moves only roles below their highest, grants only bits they hold, never a bot's role", () => {
  const manager = settingsAccess(memberOf("manager"), roles, "owner", "manager");
  expect(manager.sections).toEqual(["roles", "channels", "members", "webhooks", "bots"]);
  expect(manager.isAdmin).toBe(false);
  expect(manager.highest).toBe(3);
  expect([top, managers, low, botRole, everyone].map((r) => manager.canEditRole(r))).toEqual([false, false, true, false, true]);
  expect(manager.holds(P.MANAGE_CHANNELS | P.SEND_MESSAGES)).toBe(true);
  expect(manager.holds(P.KICK_MEMBERS)).toBe(false);
  expect(manager.notHeld(P.SEND_MESSAGES)).toBeNull();
  expect(manager.notHeld(P.KICK_MEMBERS)).toBe("You do not hold it, so you cannot change it.");
  const plain = members.find((m) => m.user_id === "plain")!;
  const boss = members.find((m) => m.user_id === "boss")!;
  const bot = members.find((m) => m.user_id === "bot")!;
  expect(manager.canAssignRole(low, plain)).toBe(true);
  expect(manager.canAssignRole(low, members.find((m) => m.user_id === "manager")!)).toBe(true); // oneself
  expect(manager.canAssignRole(low, boss)).toBe(false); // ranks above
  expect(manager.canAssignRole(managers, plain)).toBe(false); // their own highest
  expect(manager.canAssignRole(everyone, plain)).toBe(false);
  expect(manager.canAssignRole(botRole, bot)).toBe(false); // administrators only
  // An administrator may give a bot its own role back, never to anyone else.
  const admin = settingsAccess(memberOf("admin"), roles, "owner", "admin");
  expect(admin.canAssignRole(botRole, bot)).toBe(true);
  expect(admin.canAssignRole(botRole, plain)).toBe(false);
  expect(admin.canEditRole(top)).toBe(true);
  expect(admin.holds(ALL_PERMISSIONS)).toBe(true);
  expect(admin.notHeld(P.KICK_MEMBERS)).toBeNull();
  expect(admin.canSetBuiltinRole(plain)).toBe(true);
  expect(admin.canSetBuiltinRole(members.find((m) => m.user_id === "owner")!)).toBe(false);
});

test("role moves: positions from indexes, the slots a non-administrator may use, moving an id", () => {
  const list = customRolesHighestFirst(roles);
  expect(list.map((r) => r.id)).toEqual(["top", "managers", "low", "botrole"]);
  expect(list.map((_, i) => positionAt(i, list.length))).toEqual([4, 3, 2, 1]);
  expect(allowedIndexes(low, 4, 3, false)).toEqual({ first: 2, last: 3 });
  expect(allowedIndexes(managers, 4, 3, false)).toBeNull();
  expect(allowedIndexes(top, 4, 0, true)).toEqual({ first: 0, last: 3 });
  expect(moveTo(["a", "b", "c", "d"], "d", 0)).toEqual(["d", "a", "b", "c"]);
  expect(moveTo(["a", "b", "c", "d"], "a", 2)).toEqual(["b", "c", "a", "d"]);
  expect(moveTo(["a", "b"], "a", 9)).toEqual(["b", "a"]);
});

test("every audit action has a label", () => {
  expect(Object.keys(ACTION_LABELS).sort()).toEqual([...AUDIT_ACTIONS].sort());
});

test("audit entries in words: what they acted on and their changes, without repeated ids", () => {
  const entry = (action: string, target_type: string | null, changes: Record<string, unknown>, target_username: string | null = null): AuditEntry => ({
    id: "e", server_id: "s", actor_id: "a", actor_username: "ann", actor_avatar: null, action, target_type, target_id: "t", target_username, changes, created_at: 0,
  });
  expect(entrySubject(entry("MEMBER_KICK", "member", { username: "old" }, "bob"))).toBe("bob");
  expect(entrySubject(entry("MEMBER_UNBAN", "member", { username: "carl" }))).toBe("carl");
  expect(entrySubject(entry("ROLE_UPDATE", "role", { roleId: "r", role: "Mods" }))).toBe("Mods");
  expect(entrySubject(entry("CHANNEL_CREATE", "channel", { name: "news" }))).toBe("#news");
  expect(entrySubject(entry("CATEGORY_CREATE", "category", { name: "Info" }))).toBe("Info");
  expect(entrySubject(entry("INVITE_CREATE", "invite", { code: "abc" }))).toBe("abc");
  expect(changeLines(entry("ROLE_UPDATE", "role", { roleId: "r", role: "Mods", color: { old: "#000000", new: "#FFFFFF" } }))).toEqual([
    "role: Mods",
    "color: #000000 → #FFFFFF",
  ]);
  expect(changeLines(entry("MEMBER_BAN", "member", { reason: null, userId: "u" }))).toEqual(["reason: none"]);
});

test("timeouts run until their end", () => {
  expect(isTimedOut({ ...member("x"), timeout_until: 200 }, 100)).toBe(true);
  expect(isTimedOut({ ...member("x"), timeout_until: 100 }, 100)).toBe(false);
  expect(isTimedOut(member("x"), 100)).toBe(false);
});
