/**
 * The colour a member's name is shown in (member list, messages): that of the highest role they
 * hold that has one, as Discord does. `#000000` is a role's "no colour".
 */
import type { Role } from "./wire-types.ts";

export const hasColour = (role: Pick<Role, "color">): boolean => Boolean(role.color) && role.color !== "#000000";

export function nameColour(roleIds: readonly string[], roles: readonly Role[]): string | undefined {
  if (roleIds.length === 0) return undefined;
  let best: Role | undefined;
  for (const role of roles) if (hasColour(role) && roleIds.includes(role.id) && (!best || role.position > best.position)) best = role;
  return best?.color;
}
