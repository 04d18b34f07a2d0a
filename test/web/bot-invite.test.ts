/** The pure parts of the bot invite page and the developer portal: invite links. */
import { describe, expect, test } from "bun:test";
import { botInviteUrl, parseBotInviteQuery } from "../../web/lib/bot-invite.ts";
import { inviteUrl } from "../../src/domain/bots/applications.ts";
import { ALL_PERMISSIONS } from "../../src/domain/access/permission-bits.ts";

const BOT = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";

describe("parseBotInviteQuery", () => {
  test("reads the bot and the bitfield of the spec's link", () => {
    expect(parseBotInviteQuery({ bot: BOT, permissions: "6144" })).toEqual({ botUserId: BOT, permissions: 6144, invalidPermissions: null });
    expect(parseBotInviteQuery({ bot: ` ${BOT} `, permissions: " 0 " })).toEqual({ botUserId: BOT, permissions: 0, invalidPermissions: null });
    expect(parseBotInviteQuery({ bot: BOT, permissions: String(ALL_PERMISSIONS) }).permissions).toBe(ALL_PERMISSIONS);
  });

  test("a link without permissions leaves them to the bot's defaults", () => {
    expect(parseBotInviteQuery({ bot: BOT })).toEqual({ botUserId: BOT, permissions: null, invalidPermissions: null });
    expect(parseBotInviteQuery({ bot: BOT, permissions: "" })).toEqual({ botUserId: BOT, permissions: null, invalidPermissions: null });
  });

  test("a bitfield that is not a number of defined bits is reported, not used", () => {
    for (const bad of ["banana", "-1", "1.5", "0x10", "1e3", String(ALL_PERMISSIONS + 1), "99999999999"]) {
      expect(parseBotInviteQuery({ bot: BOT, permissions: bad })).toEqual({ botUserId: BOT, permissions: null, invalidPermissions: bad });
    }
  });

  test("no bot: null", () => {
    expect(parseBotInviteQuery({}).botUserId).toBeNull();
    expect(parseBotInviteQuery({ bot: "  " }).botUserId).toBeNull();
  });
});

test("botInviteUrl is the server's invite_url on this origin, and reads back", () => {
  expect(botInviteUrl("http://localhost:3000", BOT, 8895488)).toBe(`http://localhost:3000${inviteUrl(BOT, 8895488)}`);
  const url = new URL(botInviteUrl("https://chat.example.org", BOT, 2048));
  expect(url.pathname).toBe("/invite");
  expect(parseBotInviteQuery(Object.fromEntries(url.searchParams))).toEqual({ botUserId: BOT, permissions: 2048, invalidPermissions: null });
});
