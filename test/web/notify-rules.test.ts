import { describe, expect, test } from "bun:test";
import { channelLevel, dmLevel, mayMention, mutedNow, notifies, titleWithCount, unreadLabel } from "../../web/lib/notify-rules.ts";
import type { NotificationOverride, NotificationSettings } from "../../web/lib/wire-types.ts";

const account = (message_notifications: NotificationSettings["message_notifications"], dm_notifications = true): NotificationSettings => ({
  message_notifications,
  dm_notifications,
  friend_request_notifications: true,
  sounds: true,
  desktop: true,
});
const setting = (level: NotificationOverride["level"], muted = false, muted_until: number | null = null): NotificationOverride => ({
  target_type: "channel",
  target_id: "c",
  level,
  muted,
  muted_until,
});

describe("unread names", () => {
  test.each([
    ["general", false, 0, "general"],
    ["general", true, 0, "general, unread"],
    ["general", true, 1, "general, 1 mention"],
    ["general", true, 2, "general, 2 mentions"],
    ["general", false, 3, "general, 3 mentions"],
  ] as const)("%s unread=%p mentions=%p -> %s", (name, unread, mentions, expected) => {
    expect(unreadLabel(name, unread, mentions)).toBe(expected);
  });

  test("the tab title gets one count, replaced as it changes and gone at zero", () => {
    expect(titleWithCount("Hearth", 3)).toBe("(3) Hearth");
    expect(titleWithCount("(3) Hearth", 5)).toBe("(5) Hearth");
    expect(titleWithCount("(5) Hearth", 0)).toBe("Hearth");
  });
});

describe("levels", () => {
  test.each([
    ["the channel's own level wins", account("all"), setting("mentions"), setting("none"), "all", "none"],
    ["a default channel takes the server's", account("all"), setting("none"), setting("default"), "all", "none"],
    ["then the account's, when it says less than all", account("mentions"), undefined, undefined, "all", "mentions"],
    ["then the server's default_notifications", account("all"), undefined, undefined, "mentions", "mentions"],
    ["with nothing set: all", null, undefined, undefined, "all", "all"],
  ] as const)("%s", (_, acc, server, channel, serverDefault, expected) => {
    expect(channelLevel(acc, server, channel, serverDefault)).toBe(expected);
  });

  test("DMs: their own level, else the account's dm_notifications", () => {
    expect(dmLevel(account("none"), undefined)).toBe("all");
    expect(dmLevel(account("all", false), undefined)).toBe("none");
    expect(dmLevel(account("all", false), setting("all"))).toBe("all");
  });

  test("what notifies at each level", () => {
    expect([notifies("all", false), notifies("mentions", false), notifies("mentions", true), notifies("none", true)]).toEqual([true, false, true, false]);
  });
});

describe("mutes", () => {
  test("in force until their time, forever with none, never when off", () => {
    expect(mutedNow(setting("default", true, null), 100)).toBe(true);
    expect(mutedNow(setting("default", true, 200), 100)).toBe(true);
    expect(mutedNow(setting("default", true, 50), 100)).toBe(false);
    expect(mutedNow(setting("all", false), 100)).toBe(false);
    expect(mutedNow(undefined, 100)).toBe(false);
  });
});

describe("which live messages make the app ask for the mention count", () => {
  const me = "0193a1b2-0000-7000-8000-000000000001";
  test.each([
    ["plain text", "hello", null, false],
    ["a mention of the reader", `hi <@${me}>`, null, true],
    ["a role mention", "hi <@&0193a1b2-0000-7000-8000-000000000009>", null, true],
    ["@everyone", "@everyone look", null, true],
    ["@here", "@here look", null, true],
    ["a reply", "sure", "0193a1b2-0000-7000-8000-000000000005", true],
  ] as const)("%s", (_, content, replyTo, expected) => {
    expect(mayMention(content, replyTo, me)).toBe(expected);
  });
});
