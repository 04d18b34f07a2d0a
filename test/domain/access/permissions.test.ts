import { describe, expect, test } from "bun:test";
import { ALL_PERMISSIONS, DEFAULT_EVERYONE_PERMISSIONS, PERMISSIONS as P } from "../../../src/domain/access/permission-bits.ts";
import {
  computeBasePermissions,
  computeChannelPermissions,
  isRestrainedByTimeout,
  isTimedOut,
  outranks,
  TIMEOUT_PERMISSIONS,
  type BuiltinRole,
  type MemberPermissionInput,
  type Override,
} from "../../../src/domain/access/permissions.ts";

const EVERYONE = "everyone";
const member = (overrides: Partial<MemberPermissionInput> = {}): MemberPermissionInput => ({
  isOwner: false,
  builtinRole: "member",
  everyonePermissions: P.VIEW_CHANNEL | P.SEND_MESSAGES,
  everyoneRoleId: EVERYONE,
  roles: [],
  timeoutUntil: null,
  ...overrides,
});
const o = (roleId: string, allow: number, deny: number): Override => ({ roleId, allow, deny });
const role = (id: string, permissions: number) => ({ id, permissions });

const VIEW = P.VIEW_CHANNEL;
const SEND = P.SEND_MESSAGES;
const REACT = P.ADD_REACTIONS;

describe("computeBasePermissions", () => {
  test.each<[string, Partial<MemberPermissionInput>, number]>([
    ["@everyone only", {}, VIEW | SEND],
    ["custom roles are OR-ed in", { roles: [role("a", REACT), role("b", P.ATTACH_FILES)] }, VIEW | SEND | REACT | P.ATTACH_FILES],
    ["owner has every bit", { isOwner: true, everyonePermissions: 0 }, ALL_PERMISSIONS],
    ["ADMINISTRATOR stored alone grants every bit", { roles: [role("admin", P.ADMINISTRATOR)], everyonePermissions: 0 }, ALL_PERMISSIONS],
    ["ADMINISTRATOR on @everyone grants every bit", { everyonePermissions: P.ADMINISTRATOR }, ALL_PERMISSIONS],
    ["built-in admin grants every bit", { builtinRole: "admin", everyonePermissions: 0 }, ALL_PERMISSIONS],
    ["built-in moderator adds moderation bits", { builtinRole: "moderator", everyonePermissions: 0 }, P.KICK_MEMBERS | P.BAN_MEMBERS | P.MANAGE_MESSAGES | P.MUTE_MEMBERS | P.DEAFEN_MEMBERS | P.MOVE_MEMBERS | P.MANAGE_REACTIONS],
    ["unknown high bits are dropped", { everyonePermissions: VIEW | (1 << 30) }, VIEW],
    ["the contract's @everyone default", { everyonePermissions: DEFAULT_EVERYONE_PERMISSIONS }, DEFAULT_EVERYONE_PERMISSIONS],
    ["no permissions at all", { everyonePermissions: 0 }, 0],
  ])("%s", (_name, input, expected) => {
    expect(computeBasePermissions(member(input))).toBe(expected);
  });
});

describe("computeChannelPermissions", () => {
  const withRoles = (...ids: string[]) => ({ roles: ids.map((id) => role(id, 0)) });
  test.each<[string, Partial<MemberPermissionInput>, Override[], Override[], number]>([
    ["no overrides: the base", {}, [], [], VIEW | SEND],
    ["@everyone deny on the channel", {}, [], [o(EVERYONE, 0, SEND)], VIEW],
    ["@everyone allow on the channel", {}, [], [o(EVERYONE, REACT, 0)], VIEW | SEND | REACT],
    ["role allow beats @everyone deny", withRoles("r"), [], [o(EVERYONE, 0, SEND), o("r", SEND, 0)], VIEW | SEND],
    ["role deny beats @everyone allow", withRoles("r"), [], [o(EVERYONE, REACT, 0), o("r", 0, REACT)], VIEW | SEND],
    ["one role's allow beats another role's deny (allows applied after denies)", withRoles("a", "b"), [], [o("a", 0, SEND), o("b", SEND, 0)], VIEW | SEND],
    ["a bit in both allow and deny of one role override is denied", withRoles("r"), [], [o("r", SEND, SEND)], VIEW],
    ["a bit in both allow and deny of @everyone is denied", {}, [], [o(EVERYONE, REACT | SEND, SEND)], VIEW | REACT],
    ["...unless another role allows it", withRoles("a", "b"), [], [o("a", SEND, SEND), o("b", SEND, 0)], VIEW | SEND],
    ["overrides of roles the member lacks are ignored", withRoles("mine"), [], [o("other", 0, VIEW)], VIEW | SEND],
    ["category deny applies to the channel", {}, [o(EVERYONE, 0, VIEW)], [], SEND],
    ["channel allow restores a category deny", {}, [o(EVERYONE, 0, VIEW)], [o(EVERYONE, VIEW, 0)], VIEW | SEND],
    ["channel deny after a category allow", {}, [o(EVERYONE, REACT, 0)], [o(EVERYONE, 0, REACT)], VIEW | SEND],
    ["category role allow, channel @everyone deny: channel wins", withRoles("r"), [o("r", REACT, 0)], [o(EVERYONE, 0, REACT)], VIEW | SEND],
    ["category @everyone deny, channel role allow", withRoles("r"), [o(EVERYONE, 0, SEND)], [o("r", SEND, 0)], VIEW | SEND],
    ["channel role deny beats category role allow", withRoles("r"), [o("r", REACT, 0)], [o("r", 0, REACT)], VIEW | SEND],
    ["owner ignores overrides", { isOwner: true }, [o(EVERYONE, 0, ALL_PERMISSIONS)], [o(EVERYONE, 0, ALL_PERMISSIONS)], ALL_PERMISSIONS],
    ["ADMINISTRATOR ignores overrides", { roles: [role("adm", P.ADMINISTRATOR)] }, [], [o(EVERYONE, 0, VIEW), o("adm", 0, VIEW)], ALL_PERMISSIONS],
    ["built-in admin ignores overrides", { builtinRole: "admin" }, [], [o(EVERYONE, 0, VIEW)], ALL_PERMISSIONS],
    ["an allow can grant a bit the base lacks", withRoles("r"), [], [o("r", P.MANAGE_MESSAGES, 0)], VIEW | SEND | P.MANAGE_MESSAGES],
    ["an override cannot grant ADMINISTRATOR's power", withRoles("r"), [], [o("r", P.ADMINISTRATOR, 0)], VIEW | SEND | P.ADMINISTRATOR],
    ["denying VIEW leaves other bits (callers check VIEW first)", {}, [], [o(EVERYONE, 0, VIEW)], SEND],
    ["moderator bits can be denied per channel", { builtinRole: "moderator", everyonePermissions: VIEW }, [], [o(EVERYONE, 0, P.MANAGE_MESSAGES)], VIEW | P.KICK_MEMBERS | P.BAN_MEMBERS | P.MUTE_MEMBERS | P.DEAFEN_MEMBERS | P.MOVE_MEMBERS | P.MANAGE_REACTIONS],
    ["empty overrides change nothing", withRoles("r"), [o(EVERYONE, 0, 0)], [o("r", 0, 0)], VIEW | SEND],
  ])("%s", (_name, input, category, channel, expected) => {
    expect(computeChannelPermissions(member(input), category, channel)).toBe(expected);
  });
});

describe("outranks", () => {
  const m = (builtinRole: BuiltinRole, highestRolePosition = 0, isOwner = false) => ({ builtinRole, highestRolePosition, isOwner });
  test.each([
    ["owner over admin", m("owner", 0, true), m("admin"), true],
    ["nobody over the owner", m("admin", 99), m("owner", 0, true), false],
    ["admin over moderator", m("admin"), m("moderator", 50), true],
    ["moderator over member", m("moderator"), m("member", 50), true],
    ["member over moderator", m("member", 99), m("moderator"), false],
    ["same built-in role, higher custom role", m("moderator", 5), m("moderator", 2), true],
    ["same built-in role, same position", m("moderator", 2), m("moderator", 2), false],
    ["admin over admin with a lower role", m("admin", 3), m("admin", 1), true],
  ])("%s", (_name, actor, target, expected) => {
    expect(outranks(actor, target)).toBe(expected);
  });
});

describe("the timeout rule", () => {
  const NOW = 1_700_000_000;
  const READ = P.VIEW_CHANNEL | P.READ_MESSAGE_HISTORY;
  const running = { timeoutUntil: NOW + 60 };
  const moderatorBits = P.KICK_MEMBERS | P.BAN_MEMBERS | P.MANAGE_MESSAGES | P.MUTE_MEMBERS | P.DEAFEN_MEMBERS | P.MOVE_MEMBERS | P.MANAGE_REACTIONS;
  const withRoles = (...ids: string[]) => ({ roles: ids.map((id) => role(id, 0)) });

  test("what a timeout leaves is reading", () => {
    expect(TIMEOUT_PERMISSIONS).toBe(READ);
  });

  test.each<[string, Partial<MemberPermissionInput>, number]>([
    ["no timeout: the roles' bits", { everyonePermissions: DEFAULT_EVERYONE_PERMISSIONS }, DEFAULT_EVERYONE_PERMISSIONS],
    ["a timeout that ran out counts for nothing", { everyonePermissions: DEFAULT_EVERYONE_PERMISSIONS, timeoutUntil: NOW - 1 }, DEFAULT_EVERYONE_PERMISSIONS],
    ["a timeout ending now has ended", { everyonePermissions: DEFAULT_EVERYONE_PERMISSIONS, timeoutUntil: NOW }, DEFAULT_EVERYONE_PERMISSIONS],
    ["a running timeout leaves the read bits of @everyone's default", { everyonePermissions: DEFAULT_EVERYONE_PERMISSIONS, ...running }, READ],
    ["a timed-out moderator keeps no moderation bit", { builtinRole: "moderator", everyonePermissions: DEFAULT_EVERYONE_PERMISSIONS, ...running }, READ],
    ["nor does a role's management bits", { everyonePermissions: VIEW, roles: [role("mgr", P.MANAGE_CHANNELS | P.MANAGE_ROLES | P.MANAGE_SERVER | P.MANAGE_MESSAGES)], ...running }, VIEW],
    ["a timeout gives no bit the roles lack", { everyonePermissions: SEND, ...running }, 0],
    ["the owner is not bound", { isOwner: true, ...running }, ALL_PERMISSIONS],
    ["the built-in admin is not bound", { builtinRole: "admin", ...running }, ALL_PERMISSIONS],
    ["a custom ADMINISTRATOR role is not bound", { roles: [role("root", P.ADMINISTRATOR)], ...running }, ALL_PERMISSIONS],
  ])("base: %s", (_name, input, expected) => {
    expect(computeBasePermissions(member(input), NOW)).toBe(expected);
  });

  test.each<[string, Partial<MemberPermissionInput>, Override[], Override[], number]>([
    ["a channel allow gives nothing back", { ...withRoles("r"), ...running }, [], [o("r", SEND | REACT | P.MANAGE_MESSAGES, 0)], VIEW],
    ["an @everyone allow on the category neither", { ...running }, [o(EVERYONE, P.CONNECT | P.SPEAK, 0)], [], VIEW],
    ["a deny of VIEW still hides the channel", { ...running }, [], [o(EVERYONE, 0, VIEW)], 0],
    ["READ_MESSAGE_HISTORY allowed on the channel is kept", { ...running }, [], [o(EVERYONE, P.READ_MESSAGE_HISTORY, 0)], READ],
    ["moderator bits allowed per channel are not kept", { builtinRole: "moderator", everyonePermissions: VIEW, ...running }, [], [o(EVERYONE, P.MANAGE_MESSAGES, 0)], VIEW],
    ["the owner ignores both", { isOwner: true, ...running }, [], [o(EVERYONE, 0, ALL_PERMISSIONS)], ALL_PERMISSIONS],
    ["ADMINISTRATOR ignores both", { roles: [role("adm", P.ADMINISTRATOR)], ...running }, [], [o(EVERYONE, 0, VIEW)], ALL_PERMISSIONS],
    ["after it ran out, the overrides apply as ever", { ...withRoles("r"), timeoutUntil: NOW - 5 }, [], [o("r", REACT, 0)], VIEW | SEND | REACT],
  ])("channel: %s", (_name, input, category, channel, expected) => {
    expect(computeChannelPermissions(member(input), category, channel, NOW)).toBe(expected);
  });

  test.each<[string, Partial<MemberPermissionInput>, boolean, boolean]>([
    ["no timeout", {}, false, false],
    ["a running timeout", running, true, true],
    ["one that ran out", { timeoutUntil: NOW - 1 }, false, false],
    ["the owner under a running timeout", { isOwner: true, ...running }, true, false],
    ["an administrator under a running timeout", { builtinRole: "admin", ...running }, true, false],
    ["a moderator under a running timeout", { builtinRole: "moderator", ...running }, true, true],
  ])("isTimedOut / isRestrainedByTimeout: %s", (_name, input, timedOut, restrained) => {
    expect(isTimedOut(member(input), NOW)).toBe(timedOut);
    expect(isRestrainedByTimeout(member(input), NOW)).toBe(restrained);
  });

  test("moderator bits are there without the timeout (the table above is not vacuous)", () => {
    expect(computeBasePermissions(member({ builtinRole: "moderator", everyonePermissions: 0 }), NOW)).toBe(moderatorBits);
  });
});
