import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";

/**
 * A modal panel rising from the bottom of a phone's screen (the member sheet) on the native
 * <dialog>: while open, focus is inside and the page behind is inert; Escape and a tap on the
 * backdrop close it, and focus goes back to the button that opens it (found by its id, as the
 * header that holds it may have been rendered anew meanwhile).
 */
export function Sheet({ open, label, opener, onClose, children }: {
  open: boolean;
  label: string;
  /** The id of the button that opens the sheet. */
  opener: string;
  onClose: () => void;
  children: ComponentChildren;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current!;
    if (open && !dialog.open) dialog.showModal();
    else if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      class="sheet"
      aria-label={label}
      onClose={() => {
        onClose();
        document.getElementById(opener)?.focus();
      }}
      onClick={(e) => {
        // The backdrop is the dialog element itself, outside its content.
        if (e.target === ref.current) ref.current!.close();
      }}
    >
      {children}
    </dialog>
  );
}
