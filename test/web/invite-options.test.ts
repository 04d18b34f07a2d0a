/** The invite dialog's choices and texts (web/lib/invite-options.ts). */
import { expect, test } from "bun:test";
import { expiryText, INVITE_EXPIRY_CHOICES, INVITE_USE_CHOICES, stillUsable } from "../../web/lib/invite-options.ts";

test("expiry from 30 minutes to never, uses from no limit to 100, within the server's limits", () => {
  expect(INVITE_EXPIRY_CHOICES.map((c) => c.label)).toEqual(["30 minutes", "1 hour", "6 hours", "12 hours", "1 day", "7 days", "Never"]);
  expect(INVITE_EXPIRY_CHOICES.at(-1)!.seconds).toBe(0);
  expect(INVITE_USE_CHOICES.map((c) => c.label)).toEqual(["No limit", "1 use", "5 uses", "10 uses", "25 uses", "50 uses", "100 uses"]);
});

test("a remembered link is shown again while it has a minute to live", () => {
  expect(stillUsable(null, 100)).toBe(false);
  expect(stillUsable({ code: "a", expires_at: null }, 100)).toBe(true);
  expect(stillUsable({ code: "a", expires_at: 160 }, 100)).toBe(true);
  expect(stillUsable({ code: "a", expires_at: 159 }, 100)).toBe(false);
});

test("what the dialog says of a link's expiry", () => {
  expect(expiryText(null, 0)).toBe("This link never expires.");
  expect(expiryText(7 * 86400, 0)).toBe("This link expires in 7 days.");
  expect(expiryText(86400, 0)).toBe("This link expires in 1 day.");
  expect(expiryText(6 * 3600, 0)).toBe("This link expires in 6 hours.");
  expect(expiryText(1800, 0)).toBe("This link expires in 30 minutes.");
  expect(expiryText(10, 0)).toBe("This link expires in 1 minute.");
});
