import { useState } from "preact/hooks";
import { useLocation } from "preact-iso/router";
import { gateway, logOut, session, store } from "../state/app-state.ts";
import { errorMessage } from "../lib/api-errors.ts";
import { rememberSettingsReturn } from "../lib/settings-return.ts";
import { useSettingsFocus } from "./use-settings-focus.ts";
import type { PresenceStatus } from "../lib/wire-types.ts";
import { Avatar, STATUS_LABELS } from "./avatar.tsx";
import { ContextMenu, type MenuAt } from "./context-menu.tsx";
import { CustomStatusDialog, CustomStatusLine, useUnexpired } from "./custom-status.tsx";
import { Icon } from "./icons.tsx";

/** The status picker's choices; `offline` while connected is "Invisible" (docs/gateway.md, "Presence"). */
const STATUS_CHOICES: { status: PresenceStatus; label: string }[] = [
  { status: "online", label: "Online" },
  { status: "idle", label: "Idle" },
  { status: "dnd", label: "Do Not Disturb" },
  { status: "offline", label: "Invisible" },
];

/**
 * The reader at the bottom of the sidebar: who they are (their avatar opens "Set status", which
 * also opens "Set custom status"), their custom status or whether the app is connected,
 * "User settings" and "Log out".
 */
export function UserPanel() {
  const [picker, setPicker] = useState<MenuAt | null>(null);
  const [statusError, setStatusError] = useState<string | null>(null);
  const [leaving, setLeaving] = useState(false);
  const [editing, setEditing] = useState(false);
  const { route, url } = useLocation();
  const settingsButton = useSettingsFocus<HTMLButtonElement>("user");
  const user = session.value?.user;
  const custom = useUnexpired(user?.custom_status);
  if (!user) return null;
  const connected = store.connected.value;
  const status = store.shownSelfStatus();
  const invisible = connected && store.selfStatus.value === "offline";
  const setStatus = async (next: PresenceStatus) => {
    setStatusError(null);
    try {
      store.selfStatus.value = (await gateway.emit("status:set", { status: next })).status;
    } catch (failure) {
      setStatusError(`Your status was not changed: ${errorMessage(failure)}`);
    }
  };
  return (
    <section class="user-panel" aria-label="Your account">
      {/* Named exactly "Set status" (issue 43 pins it); the current status is its description. */}
      <button
        type="button"
        class="user-panel-account"
        aria-label="Set status"
        aria-description={`now ${invisible ? "Invisible" : STATUS_LABELS[status]}`}
        title="Set status"
        aria-haspopup="menu"
        aria-expanded={picker !== null}
        onClick={(event) => {
          const box = event.currentTarget.getBoundingClientRect();
          setPicker({ x: box.left, y: box.top - 8 - 5 * 36 - 9, opener: event.currentTarget });
        }}
      >
        <Avatar name={user.username} src={user.avatar} size={32} status={status} />
      </button>
      <div class="user-panel-text">
        <strong title={user.username}>{user.username}</strong>
        {connected && custom ? (
          <CustomStatusLine status={custom} class="muted small" />
        ) : (
          <span class="muted small">{connected ? (invisible ? "Invisible" : STATUS_LABELS[status]) : "Connecting…"}</span>
        )}
        {statusError && (
          <span class="error small" role="alert">
            {statusError}
          </span>
        )}
      </div>
      <button
        ref={settingsButton}
        type="button"
        class="tool"
        aria-label="User settings"
        title="User settings"
        onClick={() => {
          rememberSettingsReturn(url);
          route("/settings/account");
        }}
      >
        <Icon name="settings" size={18} />
      </button>
      {/* Two pages of their own: the portal (the app's) and the API reference (served by Hearth, docs/reference.md). */}
      <a class="tool" href="/developers" aria-label="Developer portal" title="Developer portal">
        <Icon name="code" size={18} />
      </a>
      <a class="tool" href="/docs" target="_blank" rel="noopener" aria-label="API docs" title="API docs (opens a new tab)">
        <Icon name="book" size={18} />
      </a>
      <button
        type="button"
        class="tool"
        aria-label="Log out"
        title="Log out"
        disabled={leaving}
        onClick={() => {
          setLeaving(true);
          void logOut();
        }}
      >
        <Icon name="logout" size={18} />
      </button>
      {picker && (
        <ContextMenu
          label="Set status"
          at={picker}
          onClose={() => setPicker(null)}
          items={[
            ...STATUS_CHOICES.map((choice) => ({
              label: choice.label,
              checked: connected && (store.selfStatus.value ?? "online") === choice.status,
              disabled: !connected,
              onSelect: () => void setStatus(choice.status),
            })),
            { label: "Set custom status", separated: true, onSelect: () => setEditing(true) },
          ]}
        />
      )}
      {editing && <CustomStatusDialog onClose={() => setEditing(false)} />}
    </section>
  );
}
