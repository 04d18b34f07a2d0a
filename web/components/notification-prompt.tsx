/**
 * The page's own question before the browser's: shown once a message would have raised a desktop
 * notification that the browser does not allow yet (never on a first load with nothing to tell).
 * "Enable desktop notifications" asks the browser; "Not now" hides it for this device.
 */
import { useState } from "preact/hooks";
import { store } from "../state/app-state.ts";

const DISMISSED = "hearth.notifications-prompt-dismissed";

export function NotificationPrompt() {
  const [dismissed, setDismissed] = useState(() => localStorage.getItem(DISMISSED) === "1");
  const notifier = store.notifier;
  if (dismissed || !notifier.wanted.value || notifier.permission.value !== "default" || store.notifications.account.value?.desktop === false) return null;
  return (
    <section class="notification-prompt" aria-label="Desktop notifications">
      <p>Get a notification when someone messages or mentions you while Hearth is in the background.</p>
      <button type="button" class="secondary small" onClick={() => void notifier.enable()}>
        Enable desktop notifications
      </button>
      <button
        type="button"
        class="secondary small"
        onClick={() => {
          localStorage.setItem(DISMISSED, "1");
          setDismissed(true);
        }}
      >
        Not now
      </button>
    </section>
  );
}
