/**
 * The window of a place's messages the app holds when it is not at the present: what a page
 * `around` a message says about what lies beyond it (docs/messages.md: `floor(limit / 2)` older
 * messages, then the message and the newer ones, a short side filled from the other). Pure.
 */
import type { Message } from "./wire-types.ts";

export interface WindowEdges {
  /** Older messages may exist before the page. */
  hasOlder: boolean;
  /** Newer messages may exist after the page (the window is not at the present). */
  hasNewer: boolean;
}

/**
 * The edges of a page asked `around=<targetId>&limit=<limit>` (any order). A side that got fewer
 * than its share was exhausted; a side that got exactly its share may have more (the next page
 * that way says, possibly with nothing). A page shorter than `limit` holds everything.
 */
export function aroundPageEdges(page: readonly Pick<Message, "id">[], targetId: string, limit: number): WindowEdges {
  if (page.length < limit) return { hasOlder: false, hasNewer: false };
  const olderShare = Math.floor(limit / 2);
  const older = page.filter((m) => m.id < targetId).length;
  if (older < olderShare) return { hasOlder: false, hasNewer: true };
  if (older > olderShare) return { hasOlder: true, hasNewer: false };
  return { hasOlder: true, hasNewer: true };
}

/** The messages of `live` newer than everything in `window` (oldest first): what arrived after the window's page was read. */
export function newerThanWindow(window: readonly Message[], live: readonly Message[]): Message[] {
  const newest = window[window.length - 1]?.id;
  return newest === undefined ? [...live] : live.filter((m) => m.id > newest);
}

/**
 * Where to scroll for a message that may not be in the window (deleted since it was found): the
 * message itself, else the first one after its place, else the last one. Undefined for an empty window.
 */
export function nearestMessage(window: readonly Message[], messageId: string): { id: string; exact: boolean } | undefined {
  if (window.some((m) => m.id === messageId)) return { id: messageId, exact: true };
  const after = window.find((m) => m.id > messageId) ?? window[window.length - 1];
  return after && { id: after.id, exact: false };
}
