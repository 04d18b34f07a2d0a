/**
 * The reader's account settings, opened from their avatar in the account panel: who is logged in,
 * and "Log out everywhere" (every session of the account ends, this one included), asked first.
 */
import { useState } from "preact/hooks";
import { logOutEverywhere, session, store } from "../state/app-state.ts";
import { errorMessage } from "../lib/api-errors.ts";
import { ConfirmDialog } from "./confirm-dialog.tsx";
import { Dialog } from "./dialog.tsx";
import { ErrorAlert } from "./error-alert.tsx";
import { Switch } from "./switch.tsx";

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
      <NotificationSection />
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

/** Desktop notifications and their sound: the account's preferences (every device), and this browser's permission. */
function NotificationSection() {
  const [error, setError] = useState<string | null>(null);
  const account = store.notifications.account.value;
  const permission = store.notifier.permission.value;
  const change = (field: "desktop" | "sounds") => (on: boolean) => {
    setError(null);
    store.notifications.changeAccount({ [field]: on }).catch((failure) => setError(errorMessage(failure)));
  };
  return (
    <>
      <h3>Notifications</h3>
      <Switch label="Desktop notifications" checked={account?.desktop ?? true} disabled={!account} onChange={change("desktop")}>
        {permission === "granted"
          ? "Messages that notify you show on your desktop while Hearth is in the background or another channel is open."
          : permission === "denied"
            ? "This browser blocks notifications from Hearth: allow them in the site settings of the browser."
            : permission === "unsupported"
              ? "This browser cannot show desktop notifications."
              : "This browser has not been allowed to show them yet."}
      </Switch>
      {permission === "default" && (account?.desktop ?? true) && (
        <div class="actions">
          <button type="button" class="secondary" onClick={() => void store.notifier.enable()}>
            Enable desktop notifications
          </button>
        </div>
      )}
      <Switch label="Notification sounds" checked={account?.sounds ?? true} disabled={!account} onChange={change("sounds")}>
        A short chime for each message that notifies you.
      </Switch>
      <ErrorAlert message={error} />
    </>
  );
}
