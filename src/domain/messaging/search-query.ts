import { LIMITS } from "../shared/limits.ts";

/** Control characters end an FTS5 string early (NUL) or mean nothing in a search. */
const CONTROL = /\p{Cc}+/gu;

/**
 * The words of a user's search text: split on whitespace, control characters dropped, at most
 * `LIMITS.message.searchWords`. Every word must appear, each as a phrase of its tokens; the
 * store turns them into its database's query (never parsed as query syntax: docs/messages.md).
 * Empty when nothing searchable is left (the caller answers no results).
 */
export function searchWords(query: string): string[] {
  return query.replace(CONTROL, " ").split(/\s+/).filter(Boolean).slice(0, LIMITS.message.searchWords);
}
