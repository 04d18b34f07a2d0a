/**
 * The order of the role list (highest first) and the moves a reader may make in it, as
 * docs/roles.md "Reorder" says: custom roles hold positions 1..n (n at the top); someone who is
 * not an administrator moves only roles below their highest role, to positions below it.
 */
import type { Role } from "../../lib/wire-types.ts";

/** Custom roles, highest first (`@everyone` is not in it: it stays at the bottom). */
export const customRolesHighestFirst = (roles: Role[]): Role[] =>
  roles.filter((r) => r.is_default !== 1).sort((a, b) => b.position - a.position);

/** The position a role at `index` of a highest-first list of `count` roles holds. */
export const positionAt = (index: number, count: number): number => count - index;

/** The indexes (highest first) a role may be moved to: none when it may not move. */
export function allowedIndexes(role: Role, count: number, highest: number, isAdmin: boolean): { first: number; last: number } | null {
  if (isAdmin) return { first: 0, last: count - 1 };
  if (role.position >= highest) return null;
  // Positions 1..highest-1 are indexes count-highest+1 .. count-1.
  return { first: count - highest + 1, last: count - 1 };
}
