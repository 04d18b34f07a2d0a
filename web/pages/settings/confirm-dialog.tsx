import type { ComponentChildren } from "preact";
import { Dialog } from "../../components/dialog.tsx";
import { ErrorAlert } from "../../components/error-alert.tsx";
import { useAction } from "../../components/use-async.ts";

/**
 * Asks before a change that cannot be undone (deleting, kicking, regenerating). The server's
 * refusal is shown in the dialog, which stays open; success closes it.
 */
export function ConfirmDialog({ title, children, confirm, danger = true, onConfirm, onClose }: {
  title: string;
  children?: ComponentChildren;
  confirm: string;
  danger?: boolean;
  onConfirm: () => Promise<unknown>;
  onClose: () => void;
}) {
  const action = useAction();
  return (
    <Dialog title={title} onClose={onClose}>
      <form
        class="form"
        onSubmit={async (event) => {
          event.preventDefault();
          if (await action.run(onConfirm)) {
            onClose();
            // What opened the dialog may be gone (a deleted row): the section's heading takes the focus.
            setTimeout(() => {
              if (document.activeElement === document.body) document.getElementById("settings-title")?.focus();
            }, 0);
          }
        }}
      >
        {children}
        <ErrorAlert message={action.error} />
        <div class="actions">
          <button type="button" class="secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" class={danger ? "danger" : "primary"} disabled={action.busy}>
            {confirm}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
