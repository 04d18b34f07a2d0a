/** A member's name colour (web/lib/role-colour.ts): the highest role they hold that has a colour, in the member list and in messages. */
import { expect, test } from "bun:test";
import { nameColour } from "../../web/lib/role-colour.ts";
import type { Role } from "../../web/lib/wire-types.ts";

const role = (id: string, position: number, color: string): Role => ({
  id,
  server_id: "s",
  name: id,
  color,
  position,
  permissions: 0,
  hoist: false,
  is_default: 0,
  managed_bot_id: null,
});

// Listed out of position order: the position decides, not the list's order. #000000 is "no colour".
const roles = [role("green", 2, "#2F9E44"), role("plain", 5, "#000000"), role("orange", 3, "#E8590C"), role("red", 1, "#E03131")];

test("the highest coloured role held wins; higher roles without a colour are passed over", () => {
  expect(nameColour(["red", "green", "orange"], roles)).toBe("#E8590C");
  expect(nameColour(["red", "green", "plain"], roles)).toBe("#2F9E44");
  expect(nameColour(["red"], roles)).toBe("#E03131");
});

test("no role, or only roles without a colour, or roles no longer known: no colour", () => {
  expect(nameColour([], roles)).toBeUndefined();
  expect(nameColour(["plain"], roles)).toBeUndefined();
  expect(nameColour(["gone"], roles)).toBeUndefined();
});
