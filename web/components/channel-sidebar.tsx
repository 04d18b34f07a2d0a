import { useState } from "preact/hooks";
import type { Channel, Server } from "../lib/wire-types.ts";
import { channelTree } from "../lib/channel-tree.ts";
import type { ServerState } from "../state/server-state.ts";
import { InviteDialog } from "./server-dialogs.tsx";
import { LeaveServerDialog } from "./server-exit-dialogs.tsx";
import { UserPanel } from "./user-panel.tsx";
import { Icon } from "./icons.tsx";
import { session } from "../state/app-state.ts";
import { settingsAccess } from "../pages/settings/access.ts";
import { ConnectionBars } from "../voice/voice-bar.tsx";
import { store } from "../state/app-state.ts";
import { unreadLabel } from "../lib/notify-rules.ts";
import { ContextMenu, menuAt, type MenuAt } from "./context-menu.tsx";
import { markReadItem, notificationItems } from "./notification-menu.ts";
import { MentionBadge } from "./mention-badge.tsx";

/** The server's channels by category (only those the reader may view), plus "Invite people". */
export function ChannelSidebar({ server, state, activeChannelId }: { server: Server; state: ServerState; activeChannelId: string | undefined }) {
  const [inviting, setInviting] = useState(false);
  const [leaving, setLeaving] = useState(false);
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const [menu, setMenu] = useState<{ at: MenuAt; channel: Channel } | null>(null);
  const channels = state.channels.value;
  const groups = channels ? channelTree(channels, state.categories.value) : [];
  // Server settings are offered to those who may change something there.
  const me = session.value?.user.id ?? "";
  const self = state.members.self.value;
  const canSettings = self !== undefined && settingsAccess(self, state.roles.value, server.owner_id, me).sections.length > 0;
  const toggle = (id: string) => {
    const next = new Set(collapsed);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setCollapsed(next);
  };
  return (
    <div class="sidebar">
      {/* The landmark holds the list only: the voice bar and the reader's own panel are not channels. */}
      <nav class="sidebar-nav" aria-label="Channels">
        <header class="sidebar-header">
          <h2 title={server.name}>{server.name}</h2>
          <div class="sidebar-buttons">
            <button type="button" class="secondary small" onClick={() => setInviting(true)}>
              Invite people
            </button>
            {canSettings && (
              <a class="button small" href={`/servers/${server.id}/settings`}>
                Server settings
              </a>
            )}
            <button type="button" class="secondary small" onClick={() => setLeaving(true)}>
              Leave server
            </button>
          </div>
        </header>
        <div class="sidebar-scroll">
          {channels === null && !state.error.value && <p class="muted pad" role="status">Loading channels…</p>}
          {state.error.value && channels === null && <p class="error pad" role="alert">{state.error.value}</p>}
          {channels?.length === 0 && <p class="empty pad">There are no channels you can see here.</p>}
          {groups.map((group) => {
            const id = group.category?.id ?? "none";
            const open = !collapsed.has(id);
            return (
              <div key={id} class="channel-group" role={group.category ? "group" : undefined} aria-label={group.category?.name}>
                {group.category && (
                  <h3>
                    <button type="button" class="category" aria-expanded={open} onClick={() => toggle(id)}>
                      <span aria-hidden="true">{open ? "▾" : "▸"} </span>
                      {group.category.name}
                    </button>
                  </h3>
                )}
                {open && (
                  <ul>
                    {group.channels.map((channel) => {
                      const shown = store.channelUnread(server.id, channel.id);
                      const active = channel.id === activeChannelId;
                      return (
                        <li key={channel.id}>
                          <a
                            class={`channel-link${active ? " active" : ""}${shown.unread ? " unread" : ""}${shown.muted ? " muted" : ""}`}
                            href={`/channels/${server.id}/${channel.id}`}
                            aria-label={unreadLabel(channel.name, shown.unread, shown.mentions)}
                            aria-current={active ? "page" : undefined}
                            onContextMenu={(event) => {
                              event.preventDefault();
                              setMenu({ at: menuAt(event), channel });
                            }}
                          >
                            <span class="channel-icon">
                              <Icon name={channel.type === "voice" ? "speaker" : "hash"} size={16} />
                            </span>
                            <span class="channel-name">{channel.name}</span>
                            <MentionBadge count={shown.mentions} />
                          </a>
                        </li>
                      );
                    })}
                    {group.channels.length === 0 && <li class="muted small pad">No channels</li>}
                  </ul>
                )}
              </div>
            );
          })}
        </div>
      </nav>
      <ConnectionBars />
      <UserPanel />
      {menu && (
        <ContextMenu
          label={`${menu.channel.name} options`}
          at={menu.at}
          onClose={() => setMenu(null)}
          items={[
            markReadItem({ kind: "channel", channelId: menu.channel.id }, menu.channel.id),
            ...notificationItems("channel", menu.channel.id),
          ]}
        />
      )}
      {inviting && <InviteDialog serverId={server.id} serverName={server.name} onClose={() => setInviting(false)} />}
      {leaving && <LeaveServerDialog server={server} onClose={() => setLeaving(false)} />}
    </div>
  );
}
