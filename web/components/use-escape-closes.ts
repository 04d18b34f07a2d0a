import { useLayoutEffect } from "preact/hooks";

/**
 * Escape closes a page or panel (settings, a side panel) unless something open above it takes
 * the key first: a dialog, a menu, or a control that handled it (`defaultPrevented`). Listening
 * starts as the page enters the document (a layout effect), not after the browser has painted it:
 * a key pressed as soon as the page shows is not lost.
 */
export function useEscapeCloses(close: () => void): void {
  useLayoutEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Escape" || event.defaultPrevented) return;
      if (document.querySelector("dialog[open], [role=menu]")) return;
      event.preventDefault();
      close();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [close]);
}
