/**
 * "Are you sure?" before something that cannot be undone: Cancel (focused first, so Enter does
 * no harm) and a danger button named `confirm`. The question's consequences go in `children`.
 */
import type { ComponentChildren } from "preact";
import { Dialog } from "./dialog.tsx";

export function ConfirmDialog({ title, confirm, onConfirm, onClose, children }: {
  title: string;
  confirm: string;
  onConfirm: () => void;
  onClose: () => void;
  children: ComponentChildren;
}) {
  return (
    <Dialog title={title} onClose={onClose}>
      {children}
      <form method="dialog" class="actions">
        <button type="submit" class="secondary" autoFocus>
          Cancel
        </button>
        <button
          type="button"
          class="danger"
          onClick={() => {
            onClose();
            onConfirm();
          }}
        >
          {confirm}
        </button>
      </form>
    </Dialog>
  );
}
