/**
 * The order of the member list (docs/web.md, "Servers"): online members first, grouped under the
 * highest role they hold that is shown separately (`hoist`, by the roles' positions, highest
 * first), then those of no such role, each group by name; then the others, by name when the app holds a server's whole list, and in the order the app came to know
 * them when it holds only part of a large server's (pages come by user id, so a page ordered by
 * name would land all over what is on screen, and scrolling to the end of such a list would never
 * stop loading). Kept sorted as members change one at a time: a presence event moves one entry
 * (a binary search and one array copy), it never re-sorts the list.
 */
import { hasColour } from "./role-colour.ts";
import type { Member, Role } from "./wire-types.ts";

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
  /** The ids of the roles shown separately, highest first (hoistedRoles); none when absent. */
  hoisted?: readonly string[];
}

/** The server's roles shown separately in the member list, highest position first (the default role never is). */
export function hoistedRoles(roles: readonly Role[]): Role[] {
  return roles.filter((r) => r.hoist && r.is_default !== 1).sort((a, b) => b.position - a.position || (a.id < b.id ? -1 : 1));
}

/** The index in `hoisted` of the highest hoisted role `member` holds; `hoisted.length` when none. */
export function hoistRank(member: Pick<Member, "roles">, rankOf: ReadonlyMap<string, number>, none: number): number {
  let rank = none;
  for (const id of member.roles) {
    const at = rankOf.get(id);
    if (at !== undefined && at < rank) rank = at;
  }
  return rank;
}

/** The list's order as a comparator; a total order (ties broken by user id). */
export function memberComparator(order: MemberOrder): (a: Member, b: Member) => number {
  const hoisted = order.hoisted ?? [];
  const rankOf = new Map(hoisted.map((id, at) => [id, at]));
  return (a, b) => {
    const online = isOnline(a);
    if (online !== isOnline(b)) return online ? -1 : 1;
    if (online && rankOf.size > 0) {
      const group = hoistRank(a, rankOf, hoisted.length) - hoistRank(b, rankOf, hoisted.length);
      if (group !== 0) return group;
    }
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

/** A run of the sorted list under one heading: a hoisted role's online members, the other online members, or the offline ones. */
export interface MemberGroup {
  key: string;
  title: string;
  /** A hoisted role's colour, when it has one. */
  color?: string;
  start: number;
  size: number;
}

/** The headings of a list sorted by memberComparator with these hoisted roles (highest first), in order. */
export function memberGroups(members: readonly Member[], hoisted: readonly Role[]): MemberGroup[] {
  const rankOf = new Map(hoisted.map((role, at) => [role.id, at]));
  const groups: MemberGroup[] = [];
  for (let i = 0; i < members.length; i++) {
    const member = members[i]!;
    let key = "offline";
    let title = "Offline";
    let color: string | undefined;
    if (isOnline(member)) {
      const role = hoisted[hoistRank(member, rankOf, hoisted.length)];
      key = role ? `role-${role.id}` : "online";
      title = role ? role.name : "Online";
      if (role && hasColour(role)) color = role.color;
    }
    const last = groups.at(-1);
    if (last?.key === key) last.size++;
    else groups.push({ key, title, start: i, size: 1, ...(color ? { color } : {}) });
  }
  return groups;
}
