/**
 * How an open channel or DM is read (docs/web.md, "Unread and notifications"): it is the place
 * being read while shown; the "New messages" divider stays where the read point was when it was
 * opened; reaching the newest message marks it read (once the tab is visible again if it is
 * hidden), and so does Escape, as in Discord.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { store } from "../state/app-state.ts";
import type { Timeline } from "../state/timeline.ts";

export function useReadTracking(timeline: Timeline): { newMessagesAfter: string | null; onReachedBottom: () => void } {
  const loaded = store.readStates.loaded.value;
  /** undefined: not decided yet (read states still loading); null: nothing was unread. */
  const [after, setAfter] = useState<string | null | undefined>(undefined);
  const pending = useRef(false);
  const reached = useRef(false);

  useEffect(() => {
    store.viewing.value = timeline.key;
    return () => {
      if (store.viewing.value === timeline.key) store.viewing.value = null;
    };
  }, [timeline.key]);

  useEffect(() => {
    if (!loaded || after !== undefined) return;
    const entry = store.readStates.get(timeline.key);
    // Never read: every loaded message is new.
    setAfter(entry ? (entry.lastRead ?? "") : null);
    if (reached.current) markRead();
  }, [loaded]);

  function markRead() {
    if (document.visibilityState !== "visible") {
      pending.current = true;
      return;
    }
    pending.current = false;
    store.markPlaceRead(timeline);
  }

  useEffect(() => {
    const onVisible = () => {
      if (document.visibilityState === "visible" && pending.current) markRead();
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Escape" || event.defaultPrevented || document.querySelector("dialog[open], [role=dialog], [role=menu]")) return;
      store.markPlaceRead(timeline);
    };
    document.addEventListener("visibilitychange", onVisible);
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("visibilitychange", onVisible);
      document.removeEventListener("keydown", onKey);
    };
  }, [timeline.key]);

  return {
    newMessagesAfter: after ?? null,
    onReachedBottom: () => {
      reached.current = true;
      markRead();
    },
  };
}
