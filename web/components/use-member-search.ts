/**
 * Members matching what the reader types: the member list's "Search members", the composer's
 * `@name` suggestions and the command pickers. When the app holds a server's whole list, it is
 * filtered where it is; in a large server the members already known that match show at once, and
 * the server's search (`?query=`, a username prefix) is asked once typing pauses: what it finds
 * becomes known (web/state/member-directory.ts) and shows with them.
 */
import { useEffect, useState } from "preact/hooks";
import { matchingNames } from "../lib/member-order.ts";
import type { Member } from "../lib/wire-types.ts";
import type { MemberDirectory } from "../state/member-directory.ts";

/** Typing pauses this long before the server is asked. */
export const MEMBER_SEARCH_DEBOUNCE_MS = 200;
/** No username or bot name is longer (the search route's bound). */
const QUERY_MAX = 32;

export interface MemberSearch {
  results: Member[];
  /** The server has not answered the latest query yet. */
  searching: boolean;
}

/**
 * `query` null: not searching (nothing is read or asked). `substring`: names containing the query
 * match too (among members known; the server matches prefixes only).
 */
export function useMemberSearch(directory: MemberDirectory | null, query: string | null, options: { limit: number; substring?: boolean }): MemberSearch {
  const [pending, setPending] = useState(false);
  useEffect(() => {
    if (!directory || query === null || query.length === 0 || query.length > QUERY_MAX || directory.complete.peek()) {
      setPending(false);
      return;
    }
    const controller = new AbortController();
    setPending(true);
    const timer = setTimeout(() => {
      directory.search(query, controller.signal).then(
        () => setPending(false),
        () => {
          if (!controller.signal.aborted) setPending(false);
        },
      );
    }, MEMBER_SEARCH_DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [directory, query]);
  // Read only while searching: a closed picker does not re-render on every presence change.
  const known = directory && query !== null ? directory.members.value : null;
  if (!known || query === null) return { results: [], searching: false };
  return { results: matchingNames(known, query, options.limit, options.substring ?? false), searching: pending };
}
