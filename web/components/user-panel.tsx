import { useLocation } from "preact-iso/router";
import { session, signOut } from "../state/app-state.ts";
import { gateway, store } from "../state/app-state.ts";
import { Avatar, STATUS_LABELS } from "./avatar.tsx";
import { Icon } from "./icons.tsx";

/** The reader at the bottom of the sidebar: who they are, whether the app is connected, and "Log out". */
export function UserPanel() {
  const { route } = useLocation();
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
      {/* A button, not a link: the panel sits in the "Channels" landmark, whose links are the channels. */}
      <button type="button" class="tool" aria-label="Developer portal" title="Developer portal" onClick={() => route("/developers")}>
        <Icon name="code" size={18} />
      </button>
      <button type="button" class="secondary small" onClick={() => signOut()}>
        Log out
      </button>
    </section>
  );
}
