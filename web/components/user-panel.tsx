import { session, signOut } from "../state/app-state.ts";
import { gateway, store } from "../state/app-state.ts";
import { Avatar, STATUS_LABELS } from "./avatar.tsx";

/** The reader at the bottom of the sidebar: who they are, whether the app is connected, and "Log out". */
export function UserPanel() {
  const user = session.value?.user;
  if (!user) return null;
  const connected = gateway.connected.value;
  const status = store.shownSelfStatus();
  return (
    <section class="user-panel" aria-label="Your account">
      <Avatar name={user.username} src={user.avatar} size={32} status={status} />
      <div class="user-panel-text">
        <strong>{user.username}</strong>
        <span class="muted small">{connected ? STATUS_LABELS[status] : "Connecting…"}</span>
      </div>
      {/* The API reference is a page of its own, served by Hearth (docs/reference.md). */}
      <a class="small" href="/docs" target="_blank" rel="noopener">
        API docs
      </a>
      <button type="button" class="secondary small" onClick={() => signOut()}>
        Log out
      </button>
    </section>
  );
}
