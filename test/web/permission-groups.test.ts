/** The permission bits as people read them (web/lib/permission-groups.ts): groups, labels, hints, override states. */
import { describe, expect, test } from "bun:test";
import { overrideStateOf, PERMISSION_GROUPS, PERMISSION_HINTS, permissionLabel, withOverrideState, withPermission } from "../../web/lib/permission-groups.ts";
import { ALL_PERMISSIONS, PERMISSIONS as P, PERMISSION_LABELS } from "../../src/domain/access/permission-bits.ts";

describe("PERMISSION_GROUPS", () => {
  test("every permission bit is in exactly one group, and has a hint", () => {
    const names: string[] = PERMISSION_GROUPS.flatMap((group) => group.names);
    expect(names.length).toBe(Object.keys(P).length);
    expect(new Set(names)).toEqual(new Set(Object.keys(P)));
    expect(names.map((n) => P[n as keyof typeof P]).reduce((a, b) => a | b, 0)).toBe(ALL_PERMISSIONS);
    expect(Object.keys(PERMISSION_HINTS).sort()).toEqual(Object.keys(P).sort());
    expect(new Set(PERMISSION_GROUPS.map((g) => g.key)).size).toBe(PERMISSION_GROUPS.length);
  });

  test("labels are the spec's bit names in words", () => {
    expect(permissionLabel("SEND_MESSAGES")).toBe("Send Messages");
    expect(permissionLabel("VIEW_CHANNEL")).toBe(PERMISSION_LABELS.VIEW_CHANNEL);
  });

  test("withPermission sets and clears one bit", () => {
    expect(withPermission(0, "SEND_MESSAGES", true)).toBe(4096);
    expect(withPermission(4096 | 2048, "SEND_MESSAGES", false)).toBe(2048);
    expect(withPermission(2048, "SEND_MESSAGES", false)).toBe(2048);
    expect(withPermission(2048, "VIEW_CHANNEL", true)).toBe(2048);
  });
});

test("override states: deny wins, and setting one bit leaves the others", () => {
  expect(overrideStateOf(P.SEND_MESSAGES, P.SEND_MESSAGES, P.SEND_MESSAGES)).toBe("deny");
  expect(overrideStateOf(P.SEND_MESSAGES, P.SEND_MESSAGES, 0)).toBe("allow");
  expect(overrideStateOf(P.SEND_MESSAGES, P.VIEW_CHANNEL, 0)).toBe("neutral");
  const allowed = withOverrideState(P.SEND_MESSAGES, "allow", P.VIEW_CHANNEL, P.SEND_MESSAGES | P.ATTACH_FILES);
  expect(allowed).toEqual({ allow: P.VIEW_CHANNEL | P.SEND_MESSAGES, deny: P.ATTACH_FILES });
  expect(withOverrideState(P.VIEW_CHANNEL, "neutral", allowed.allow, allowed.deny)).toEqual({ allow: P.SEND_MESSAGES, deny: P.ATTACH_FILES });
  expect(withOverrideState(P.VIEW_CHANNEL, "deny", 0, 0)).toEqual({ allow: 0, deny: P.VIEW_CHANNEL });
});
