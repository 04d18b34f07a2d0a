/**
 * Notifications: the account's preferences (`/users/me/notifications`, every device) — which
 * server messages notify, direct messages, friend requests, desktop notifications and their
 * sound — and this browser's permission, asked only by "Enable desktop notifications". Servers,
 * channels and DMs have their own level and mute in their context menus (docs/web.md).
 */
import { useState } from "preact/hooks";
import { ErrorAlert } from "../../components/error-alert.tsx";
import { Switch } from "../../components/switch.tsx";
import { errorMessage } from "../../lib/api-errors.ts";
import type { NotificationSettings } from "../../lib/wire-types.ts";
import { store } from "../../state/app-state.ts";

const LEVELS: { value: NotificationSettings["message_notifications"]; label: string; about: string }[] = [
  { value: "all", label: "All messages", about: "Every message in your servers' channels, unless a server says mentions only." },
  { value: "mentions", label: "Only mentions", about: "Messages that mention you, a role of yours, @everyone or @here, and replies to you." },
  { value: "none", label: "Nothing", about: "No server message notifies you (direct messages follow their own switch)." },
];

export function NotificationsSection() {
  const [error, setError] = useState<string | null>(null);
  const account = store.notifications.account.value;
  const permission = store.notifier.permission.value;
  const change = (fields: Partial<NotificationSettings>) => {
    setError(null);
    store.notifications.changeAccount(fields).catch((failure) => setError(errorMessage(failure)));
  };
  const toggle = (field: "desktop" | "sounds" | "dm_notifications" | "friend_request_notifications") => (on: boolean) => change({ [field]: on });
  return (
    <div class="settings-stack">
      {!account && (
        <p class="muted" role="status">
          Loading your notification settings…
        </p>
      )}
      <ErrorAlert message={error} />
      <section class="settings-card" aria-labelledby="notifications-desktop">
        <h2 id="notifications-desktop">Desktop and sound</h2>
        <Switch label="Desktop notifications" checked={account?.desktop ?? true} disabled={!account} onChange={toggle("desktop")}>
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
            <button type="button" class="primary" onClick={() => void store.notifier.enable()}>
              Enable desktop notifications
            </button>
          </div>
        )}
        <Switch label="Notification sounds" checked={account?.sounds ?? true} disabled={!account} onChange={toggle("sounds")}>
          A short chime for each message that notifies you.
        </Switch>
      </section>
      <fieldset class="settings-card level-choices" disabled={!account}>
        <legend>Server messages that notify you</legend>
        {LEVELS.map((level) => (
          <label key={level.value} class="level-choice">
            <input
              type="radio"
              name="message-notifications"
              value={level.value}
              aria-label={level.label}
              aria-describedby={`level-${level.value}-about`}
              checked={account?.message_notifications === level.value}
              onChange={() => change({ message_notifications: level.value })}
            />
            <span>
              <strong>{level.label}</strong>
              <span class="muted small" id={`level-${level.value}-about`}>
                {level.about}
              </span>
            </span>
          </label>
        ))}
        <p class="muted small">
          A server, a channel or a direct message can say otherwise, and be muted: right-click it (or press the Menu key on it) in the lists.
        </p>
      </fieldset>
      <section class="settings-card" aria-labelledby="notifications-people">
        <h2 id="notifications-people">People</h2>
        <Switch label="Direct messages" checked={account?.dm_notifications ?? true} disabled={!account} onChange={toggle("dm_notifications")}>
          Every message sent to you in a direct message or a group notifies you, unless that conversation is set to notify for nothing.
        </Switch>
        <Switch label="Friend requests" checked={account?.friend_request_notifications ?? true} disabled={!account} onChange={toggle("friend_request_notifications")}>
          Whether a friend request sent to you should notify you. Saved with your account for every device.
        </Switch>
      </section>
    </div>
  );
}
