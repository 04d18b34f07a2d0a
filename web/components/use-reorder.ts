/**
 * A list whose items move by dragging or by the keyboard: focus an item's "Move <name>" handle,
 * Space (or Enter) picks it up, the arrow keys move it, Space drops it, Escape (or leaving the
 * handle) puts it back; each step is said in a live region. The caller knows the order's shape
 * (a flat list, channels in categories) and how to save it; this keeps the draft, the picked-up
 * item, the focus and the announcements.
 */
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { reorderKey } from "../lib/reorder.ts";

export interface ReorderOptions<O> {
  /** The live order (from the server and its events). */
  current: O;
  /** Whether a draft still fits the live items (something added or removed meanwhile: the live order shows). */
  fits: (draft: O) => boolean;
  /** `order` with `id` moved one step, or null when it cannot move further that way. */
  step: (order: O, id: string, by: -1 | 1) => O | null;
  /** Where `id` is in `order`, as said aloud ("position 2 of 5"). */
  where: (order: O, id: string) => string;
  /** Saves `order` (if `id` really moved); answers what to announce. */
  commit: (id: string, order: O) => Promise<string>;
  /** Called when a move starts (to forget the last error). */
  onStart?: () => void;
}

export interface Reorder<O> {
  /** The order to show: the draft while a move is under way, else the live one. */
  order: O;
  grabbed: string | null;
  announcement: string;
  /** Props for an item's handle button (the caller adds its class and content). */
  handle: (id: string, name: string) => {
    ref: (el: HTMLButtonElement | null) => void;
    "aria-label": string;
    "aria-pressed": boolean;
    onKeyDown: (event: KeyboardEvent) => void;
    onBlur: () => void;
  };
  /** The item being dragged, if any. */
  dragging: () => string | null;
  dragStart: (id: string, event: DragEvent, name: string) => void;
  /** Shows `order` while dragging (the caller worked out where the dragged item goes). */
  dragOver: (order: O) => void;
  drop: () => void;
  dragEnd: () => void;
}

export function useReorder<O>(options: ReorderOptions<O>): Reorder<O> {
  const [draft, setDraft] = useState<O | null>(null);
  const [grabbed, setGrabbed] = useState<string | null>(null);
  const [announcement, setAnnouncement] = useState("");
  const dragged = useRef<string | null>(null);
  const handles = useRef(new Map<string, HTMLButtonElement>());
  // A live change (another manager) shows at once unless it conflicts with the move under way.
  const order = draft !== null && options.fits(draft) ? draft : options.current;

  // A moved element loses the focus in the DOM; the picked-up item's handle keeps it.
  useLayoutEffect(() => {
    if (grabbed) handles.current.get(grabbed)?.focus();
  });

  async function finish(id: string, at: O) {
    const said = await options.commit(id, at);
    setDraft(null);
    setAnnouncement(said);
  }

  function onKey(event: KeyboardEvent, id: string, name: string) {
    const action = reorderKey(event.key, grabbed === id);
    if (!action) return;
    event.preventDefault();
    if (action === "toggle") {
      if (grabbed === id) {
        setGrabbed(null);
        void finish(id, order);
      } else {
        options.onStart?.();
        setGrabbed(id);
        setDraft(order);
        setAnnouncement(
          `${name} picked up, ${options.where(order, id)}. Press the up and down arrow keys to move it, Space to drop it, Escape to cancel.`,
        );
      }
    } else if (action === "cancel") {
      event.stopPropagation();
      setGrabbed(null);
      setDraft(null);
      setAnnouncement(`Move cancelled. ${name} is back where it was.`);
    } else {
      const next = options.step(order, id, action === "up" ? -1 : 1);
      if (next) setDraft(next);
      setAnnouncement(next ? `${name}, ${options.where(next, id)}.` : `${name} cannot move further.`);
    }
  }

  return {
    order,
    grabbed,
    announcement,
    handle: (id, name) => ({
      ref: (el) => {
        if (el) handles.current.set(id, el);
        else handles.current.delete(id);
      },
      "aria-label": `Move ${name}`,
      "aria-pressed": grabbed === id,
      onKeyDown: (event) => onKey(event, id, name),
      onBlur: () => {
        // Tabbing away while an item is picked up puts it back.
        setTimeout(() => {
          if (grabbed === id && document.activeElement !== handles.current.get(id)) {
            setGrabbed(null);
            setDraft(null);
          }
        }, 0);
      },
    }),
    dragging: () => dragged.current,
    dragStart: (id, event, name) => {
      dragged.current = id;
      setDraft(order);
      options.onStart?.();
      event.dataTransfer?.setData("text/plain", name);
      if (event.dataTransfer) event.dataTransfer.effectAllowed = "move";
    },
    dragOver: (next) => setDraft(next),
    drop: () => {
      const id = dragged.current;
      dragged.current = null;
      if (id) void finish(id, order);
    },
    dragEnd: () => {
      if (dragged.current) {
        dragged.current = null;
        setDraft(null);
      }
    },
  };
}
