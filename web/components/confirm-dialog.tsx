/**
 * "Are you sure?" before something that cannot be undone (deleting, kicking, resetting a token):
 * the consequences in `children`, Cancel and a button named `confirm` (danger red unless
 * `danger={false}`). The first control takes the focus: a field of the dialog's own (a ban's
 * reason), else Cancel, so Enter does no harm. The server's refusal is shown in the dialog, which
 * stays open; success closes it.
 */
import type { ComponentChildren } from "preact";
import { Dialog } from "./dialog.tsx";
import { ErrorAlert } from "./error-alert.tsx";
import { useAction } from "./use-async.ts";

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
            // What opened the dialog may be gone (a deleted row): the page's own heading takes the focus.
            setTimeout(() => {
              if (document.activeElement === document.body) document.querySelector<HTMLElement>("h1[tabindex='-1']")?.focus();
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
