/**
 * The friends page's lists (docs/friends.md): friends and pending requests, each kept sorted by
 * username as the server sorts them, one entry per user, changed one entry at a time by the
 * gateway's friend events and presence.
 */
import { compareNames } from "./member-order.ts";
import type { CustomStatus, PresenceStatus } from "./wire-types.ts";
import { customStatusAfter, type CustomStatusNews } from "./custom-status.ts";

/** What every entry of the lists has: the other user's id and name. */
export interface FriendEntry {
  user_id: string;
  username: string;
}

/** `list` with `entry` in it, in username order; an entry of the same user is replaced. */
export function withEntry<T extends FriendEntry>(list: readonly T[], entry: T): T[] {
  const out = list.filter((e) => e.user_id !== entry.user_id);
  let at = out.findIndex((e) => compareNames(e.username, entry.username) > 0);
  if (at === -1) at = out.length;
  out.splice(at, 0, entry);
  return out;
}

/** `list` in the app's name order (the server's is by code point regardless of case; the app's follows the reader's language, as member lists do). */
export function sortedByName<T extends FriendEntry>(list: readonly T[]): T[] {
  return [...list].sort((a, b) => compareNames(a.username, b.username));
}

/** `list` without the user's entry (the same list when it has none). */
export function withoutUser<T extends FriendEntry>(list: readonly T[], userId: string): readonly T[] {
  return list.some((e) => e.user_id === userId) ? list.filter((e) => e.user_id !== userId) : list;
}

/** `list` with the user's status and custom status changed as `user:status` told (the same list when the user is not in it). */
export function withStatus<T extends FriendEntry & { status: PresenceStatus; custom_status: CustomStatus | null }>(
  list: readonly T[],
  userId: string,
  status: PresenceStatus,
  custom?: CustomStatusNews,
): readonly T[] {
  if (!list.some((e) => e.user_id === userId)) return list;
  return list.map((e) => (e.user_id === userId ? { ...e, status, custom_status: customStatusAfter(e.custom_status, status, custom) } : e));
}

/** The friends shown under "Online": every status but offline. */
export function onlineFriends<T extends { status: PresenceStatus }>(list: readonly T[]): T[] {
  return list.filter((f) => f.status !== "offline");
}
