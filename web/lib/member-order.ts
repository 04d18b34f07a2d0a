/**
 * The order of the member list (docs/web.md, "Servers"): online members first, by name; then the
 * others, by name when the app holds a server's whole list, and in the order the app came to know
 * them when it holds only part of a large server's (pages come by user id, so a page ordered by
 * name would land all over what is on screen, and scrolling to the end of such a list would never
 * stop loading). Kept sorted as members change one at a time: a presence event moves one entry
 * (a binary search and one array copy), it never re-sorts the list.
 */
import type { Member } from "./wire-types.ts";

export const isOnline = (member: Pick<Member, "status">): boolean => member.status !== "offline";

const collator = new Intl.Collator(undefined, { sensitivity: "base" });

/** Two names as the list orders them (case and accents set aside, then as written). */
export function compareNames(a: string, b: string): number {
  return collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
}

export interface MemberOrder {
  /** Whether the whole membership is known: offline members by name too. */
  byName: boolean;
  /** When the app came to know a member (smaller: earlier); read for offline members of a partial list. */
  seqOf(userId: string): number;
}

/** The list's order as a comparator; a total order (ties broken by user id). */
export function memberComparator(order: MemberOrder): (a: Member, b: Member) => number {
  return (a, b) => {
    const online = isOnline(a);
    if (online !== isOnline(b)) return online ? -1 : 1;
    const byName = online || order.byName;
    const first = byName ? compareNames(a.username, b.username) : order.seqOf(a.user_id) - order.seqOf(b.user_id);
    return first || (a.user_id < b.user_id ? -1 : a.user_id > b.user_id ? 1 : 0);
  };
}

/** Where `member` goes in `list` (sorted by `compare`): the first index whose entry sorts after it. */
export function insertionIndex(list: readonly Member[], member: Member, compare: (a: Member, b: Member) => number): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compare(list[middle]!, member) <= 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The list with `previous` (an entry of it, or undefined) replaced by `next` (or removed when
 * `next` is undefined), still sorted. `previous` is found by binary search, so the list must be
 * sorted by `compare` as it stands.
 */
export function replaceSorted(
  list: readonly Member[],
  previous: Member | undefined,
  next: Member | undefined,
  compare: (a: Member, b: Member) => number,
): Member[] {
  const out = list.slice();
  if (previous) {
    let at = insertionIndex(out, previous, compare) - 1;
    // Found by order; by identity when the entry is not where its fields say (never, if kept sorted).
    if (out[at]?.user_id !== previous.user_id) at = out.findIndex((m) => m.user_id === previous.user_id);
    if (at !== -1) {
      if (next && compare(previous, next) === 0) {
        out[at] = next;
        return out;
      }
      out.splice(at, 1);
    }
  }
  if (next) out.splice(insertionIndex(out, next, compare), 0, next);
  return out;
}

/** The members whose name starts with (or contains) `query`, case set aside, by name. */
export function matchingNames(list: readonly Member[], query: string, limit: number, substring: boolean): Member[] {
  const wanted = query.toLowerCase();
  const matches = (name: string) => (substring ? name.toLowerCase().includes(wanted) : name.toLowerCase().startsWith(wanted));
  return list
    .filter((m) => matches(m.username))
    .sort((a, b) => compareNames(a.username, b.username))
    .slice(0, limit);
}
