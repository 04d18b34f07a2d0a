import { useState } from "preact/hooks";
import { logOut, session, store } from "../state/app-state.ts";
import { AccountDialog } from "./account-dialog.tsx";
import { Avatar, STATUS_LABELS } from "./avatar.tsx";
import { Icon } from "./icons.tsx";

/**
 * The reader at the bottom of the sidebar: who they are (their avatar opens the account settings),
 * whether the app is connected, and "Log out".
 */
export function UserPanel() {
  const [accountOpen, setAccountOpen] = useState(false);
  const [leaving, setLeaving] = useState(false);
  const user = session.value?.user;
  if (!user) return null;
  const connected = store.connected.value;
  const status = store.shownSelfStatus();
  return (
    <section class="user-panel" aria-label="Your account">
      <button type="button" class="user-panel-account" aria-label="Account settings" title="Account settings" aria-haspopup="dialog" onClick={() => setAccountOpen(true)}>
        <Avatar name={user.username} src={user.avatar} size={32} status={status} />
      </button>
      <div class="user-panel-text">
        <strong>{user.username}</strong>
        <span class="muted small">{connected ? STATUS_LABELS[status] : "Connecting…"}</span>
      </div>
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
      {accountOpen && <AccountDialog onClose={() => setAccountOpen(false)} />}
    </section>
  );
}
