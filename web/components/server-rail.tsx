import { useState } from "preact/hooks";
import { store } from "../state/app-state.ts";
import { Avatar } from "./avatar.tsx";
import { CreateServerDialog, JoinServerDialog } from "./server-dialogs.tsx";
import { Icon } from "./icons.tsx";
import type { Server } from "../lib/wire-types.ts";
import { unreadLabel } from "../lib/notify-rules.ts";
import { ContextMenu, menuAt, type MenuAt } from "./context-menu.tsx";
import { notificationItems } from "./notification-menu.ts";
import { MentionBadge } from "./mention-badge.tsx";

/** The left rail: direct messages, the reader's servers, and the buttons to create or join one. */
export function ServerRail({ activeServerId }: { activeServerId: string }) {
  const [dialog, setDialog] = useState<"create" | "join" | null>(null);
  const [menu, setMenu] = useState<{ at: MenuAt; server: Server } | null>(null);
  const servers = store.servers.value;
  const unreadDms = store.unreadDmCount();
  return (
    <nav class="rail" aria-label="Servers">
      <a
        class={`rail-item home${activeServerId === "@me" ? " active" : ""}${unreadDms ? " unread" : ""}`}
        href="/channels/@me"
        aria-label={unreadLabel("Direct messages", unreadDms > 0, 0)}
        title="Direct messages"
        aria-current={activeServerId === "@me" ? "page" : undefined}
      >
        <Icon name="chat" size={24} />
        <MentionBadge count={unreadDms} />
      </a>
      <hr />
      <ul>
        {servers?.map((server) => {
          const shown = store.serverUnread(server.id);
          return (
            <li key={server.id} class={shown.unread ? "unread" : undefined}>
              <a
                class={`rail-item${server.id === activeServerId ? " active" : ""}${shown.muted ? " muted" : ""}`}
                href={`/channels/${server.id}`}
                aria-label={unreadLabel(server.name, shown.unread, shown.mentions)}
                title={server.name}
                aria-current={server.id === activeServerId ? "page" : undefined}
                onContextMenu={(event) => {
                  event.preventDefault();
                  setMenu({ at: menuAt(event), server });
                }}
              >
                <Avatar name={server.name} src={server.icon} size={48} />
                <MentionBadge count={shown.mentions} />
              </a>
            </li>
          );
        })}
      </ul>
      {store.serversError.value && <p class="error small" role="alert">{store.serversError.value}</p>}
      <button type="button" class="rail-item add" aria-label="Create a server" title="Create a server" onClick={() => setDialog("create")}>
        <Icon name="plus" size={24} />
      </button>
      <button type="button" class="rail-item add" aria-label="Join a server" title="Join a server" onClick={() => setDialog("join")}>
        <Icon name="join" size={22} />
      </button>
      {menu && (
        <ContextMenu
          label={`${menu.server.name} options`}
          at={menu.at}
          onClose={() => setMenu(null)}
          items={[
            { label: "Mark as read", disabled: !store.serverUnread(menu.server.id).unread && store.serverUnread(menu.server.id).mentions === 0, onSelect: () => void store.markServerRead(menu.server.id) },
            ...notificationItems("server", menu.server.id),
          ]}
        />
      )}
      {dialog === "create" && <CreateServerDialog onClose={() => setDialog(null)} />}
      {dialog === "join" && <JoinServerDialog onClose={() => setDialog(null)} />}
    </nav>
  );
}
