import type { ComponentChildren } from "preact";
import { useEffect, useLayoutEffect, useRef } from "preact/hooks";

/**
 * A modal dialog on the native <dialog> element: focus moves into it and stays there, Escape
 * and "Cancel" close it, and focus returns where it was.
 */
export function Dialog({ title, onClose, children, class: extra }: { title: string; onClose: () => void; children: ComponentChildren; class?: string }) {
  const ref = useRef<HTMLDialogElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  // Opened as it enters the document, before the first paint: a key or a click the moment it
  // appears already finds it modal.
  useLayoutEffect(() => {
    opener.current = document.activeElement as HTMLElement | null;
    ref.current!.showModal();
  }, []);
  // The focus goes back from a passive cleanup, which runs once the dialog has left the
  // document: a layout cleanup runs while it is still modal and the page behind it inert.
  useEffect(() => () => opener.current?.focus?.(), []);
  return (
    <dialog
      ref={ref}
      class={extra ? `dialog ${extra}` : "dialog"}
      aria-labelledby="dialog-title"
      onClose={onClose}
      onKeyDown={(e) => trapTab(e, ref.current!)}
      onClick={(e) => {
        // A click on the backdrop (the dialog element itself, outside its content) closes it.
        if (e.target === ref.current) ref.current!.close();
      }}
    >
      <div class="dialog-body">
        <h2 id="dialog-title">{title}</h2>
        {children}
      </div>
    </dialog>
  );
}

export const FOCUSABLE = "a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), summary, [tabindex]:not([tabindex='-1'])";

/**
 * Keeps Tab inside the dialog (a <dialog> here, the phone's navigation drawer too): a modal
 * <dialog> makes the page behind it inert, but Tab from its last control would still leave for
 * the browser's own interface.
 */
export function trapTab(event: KeyboardEvent, dialog: HTMLElement): void {
  if (event.key !== "Tab") return;
  const items = [...dialog.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => el.offsetParent !== null || el === document.activeElement);
  // A group of radios is one stop: only the checked one (or the first) takes the focus.
  const stops = items.filter((el) => !(el instanceof HTMLInputElement && el.type === "radio" && !el.checked && items.some((o) => o !== el && o instanceof HTMLInputElement && o.type === "radio" && o.name === el.name && o.checked)));
  const first = stops[0];
  const last = stops.at(-1);
  if (!first || !last) return;
  if (event.shiftKey && document.activeElement === first) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && document.activeElement === last) {
    event.preventDefault();
    first.focus();
  }
}
