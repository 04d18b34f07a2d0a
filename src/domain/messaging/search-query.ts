import { LIMITS } from "../shared/limits.ts";

/** Control characters end an FTS5 string early (NUL) or mean nothing in a search. */
const CONTROL = /\p{Cc}+/gu;

/**
 * A user's search text as a safe FTS5 MATCH expression: every whitespace-separated word becomes
 * a quoted phrase (inner quotes doubled), so FTS5 syntax (`"`, `*`, `OR`, `NEAR(`, `-`, `:`,
 * column filters) is matched as text and never parsed. The phrases are ANDed. Null when nothing
 * searchable is left (the caller answers no results).
 */
export function toFtsMatch(query: string): string | null {
  const tokens = query.replace(CONTROL, " ").split(/\s+/).filter(Boolean).slice(0, LIMITS.message.searchWords);
  if (tokens.length === 0) return null;
  return tokens.map((token) => `"${token.replaceAll('"', '""')}"`).join(" ");
}
