/**
 * The reader's account settings, opened from their avatar in the account panel: who is logged in,
 * and "Log out everywhere" (every session of the account ends, this one included), asked first.
 */
import { useState } from "preact/hooks";
import { logOutEverywhere, session } from "../state/app-state.ts";
import { ConfirmDialog } from "./confirm-dialog.tsx";
import { Dialog } from "./dialog.tsx";

export function AccountDialog({ onClose }: { onClose: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const user = session.value?.user;
  if (!user) return null;
  if (confirming) {
    return (
      <ConfirmDialog title="Log out everywhere?" confirm="Log out everywhere" onConfirm={logOutEverywhere} onClose={onClose}>
        <p>
          Every browser, device and app logged in as <strong>{user.username}</strong> is logged out, this one included. Logging in again
          needs your password.
        </p>
      </ConfirmDialog>
    );
  }
  return (
    <Dialog title="Account settings" onClose={onClose}>
      <p>
        Logged in as <strong>{user.username}</strong> <span class="muted">({user.email})</span>
      </p>
      <h3>Sessions</h3>
      <p class="muted">Logged in somewhere you no longer use, or lost a device? Log out everywhere ends every session of this account. Your bots keep their tokens.</p>
      <div class="actions">
        <button type="button" class="secondary" onClick={onClose}>
          Close
        </button>
        <button type="button" class="danger" onClick={() => setConfirming(true)}>
          Log out everywhere
        </button>
      </div>
    </Dialog>
  );
}
