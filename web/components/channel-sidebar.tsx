import { useState } from "preact/hooks";
import { useLocation } from "preact-iso/router";
import type { Category, Channel, Server } from "../lib/wire-types.ts";
import type { ServerState } from "../state/server-state.ts";
import { InviteDialog } from "./server-dialogs.tsx";
import { LeaveServerDialog } from "./server-exit-dialogs.tsx";
import { UserPanel } from "./user-panel.tsx";
import { useSettingsFocus } from "./use-settings-focus.ts";
import { Icon } from "./icons.tsx";
import { rest, session } from "../state/app-state.ts";
import { settingsAccess } from "../pages/settings/access.ts";
import { ConnectionBars } from "../voice/voice-bar.tsx";
import { store } from "../state/app-state.ts";
import { unreadLabel } from "../lib/notify-rules.ts";
import { ContextMenu, menuAt, type MenuAt, type MenuItem } from "./context-menu.tsx";
import { markReadItem, notificationItems } from "./notification-menu.ts";
import { MentionBadge } from "./mention-badge.tsx";
import { ErrorAlert } from "./error-alert.tsx";
import { useAction } from "./use-async.ts";
import { useReorder } from "./use-reorder.ts";
import { moveTo, sameIds } from "../lib/reorder.ts";
import {
  categoryOrder,
  channelLayout,
  channelPlacement,
  channelWhere,
  layoutFits,
  placeChannel,
  stepChannel,
  withCategoryOrder,
  type ChannelLayout,
} from "../lib/channel-order.ts";
import "./channel-manage.css";
import { VoiceOccupants } from "./voice-occupants.tsx";
import { CategoryDialog, CreateChannelDialog, DeleteCategoryDialog, DeleteChannelDialog, EditChannelDialog } from "./channel-dialogs.tsx";

type Managing =
  | { kind: "create-channel"; categoryId: string | null }
  | { kind: "create-category" }
  | { kind: "edit-channel"; channel: Channel }
  | { kind: "delete-channel"; channel: Channel }
  | { kind: "edit-category"; category: Category }
  | { kind: "delete-category"; category: Category };

/**
 * The server's channels by category (only those the reader may view), who is in each voice
 * channel under it, plus "Invite people".
 * Those with MANAGE_CHANNELS also create, edit, delete and move channels and categories here
 * (drag, or a "Move <name>" handle and the keyboard).
 */
export function ChannelSidebar({ server, state, activeChannelId }: { server: Server; state: ServerState; activeChannelId: string | undefined }) {
  const { route } = useLocation();
  const [inviting, setInviting] = useState(false);
  const [leaving, setLeaving] = useState(false);
  const [managing, setManaging] = useState<Managing | null>(null);
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const [menu, setMenu] = useState<{ at: MenuAt; channel: Channel } | null>(null);
  const settingsLink = useSettingsFocus<HTMLAnchorElement>("server");
  const channels = state.channels.value;
  const categories = state.categories.value;
  const inVoice = state.voice.rooms.value;
  // Server settings are offered to those who may change something there.
  const me = session.value?.user.id ?? "";
  const self = state.members.self.value;
  const access = self !== undefined ? settingsAccess(self, state.roles.value, server.owner_id, me) : undefined;
  const canSettings = (access?.sections.length ?? 0) > 0;
  const manage = access?.has("MANAGE_CHANNELS") ?? false;
  const move = useAction();

  const channelById = new Map((channels ?? []).map((c) => [c.id, c]));
  const categoryById = new Map(categories.map((c) => [c.id, c]));
  const live = channelLayout(channels ?? [], categories);
  const categoryName = (id: string) => categoryById.get(id)?.name ?? "";

  const channelMoves = useReorder<ChannelLayout>({
    current: live,
    fits: (draft) => layoutFits(draft, live),
    step: stepChannel,
    where: (order, id) => channelWhere(order, id, categoryName),
    onStart: () => move.reset(),
    commit: async (id, order) => {
      const name = channelById.get(id)?.name ?? "";
      const placement = channelPlacement(order, live, id);
      if (!placement) return `${name} stays, ${channelWhere(order, id, categoryName)}.`;
      const ok = await move.run(async () => {
        // Only the moved rows are written and sent back as events: the list is not answered (its cost follows the server's channel count).
        await rest.request("reorderChannels", { params: { id: server.id }, headers: { Prefer: "return=minimal" }, body: { order: placement } });
        state.placeChannels(placement);
      });
      return ok ? `${name} moved, ${channelWhere(order, id, categoryName)}.` : `${name} could not be moved.`;
    },
  });
  const liveCategories = categoryOrder(live);
  const categoryMoves = useReorder<string[]>({
    current: liveCategories,
    fits: (draft) => sameIds(draft, liveCategories),
    step: (order, id, by) => {
      const next = order.indexOf(id) + by;
      return next >= 0 && next < order.length ? moveTo(order, id, next) : null;
    },
    where: (order, id) => `category ${order.indexOf(id) + 1} of ${order.length}`,
    onStart: () => move.reset(),
    commit: async (id, order) => {
      const name = categoryName(id);
      const where = `category ${order.indexOf(id) + 1} of ${order.length}`;
      if (order.every((x, i) => x === liveCategories[i])) return `${name} stays, ${where}.`;
      const ok = await move.run(async () => {
        state.categories.value = await rest.request("reorderCategories", { params: { id: server.id }, body: { order } });
      });
      return ok ? `${name} moved, ${where}.` : `${name} could not be moved.`;
    },
  });
  const layout = withCategoryOrder(channelMoves.order, categoryMoves.order);

  const toggle = (id: string) => {
    const next = new Set(collapsed);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setCollapsed(next);
  };
  const close = () => setManaging(null);

  /** While a channel is dragged over `category`'s group at `index`. */
  const dragChannelTo = (event: DragEvent, category: string | null, index: number) => {
    const from = channelMoves.dragging();
    if (!from) return;
    event.preventDefault();
    const next = placeChannel(channelMoves.order, from, category, index);
    if (!layoutsEqual(next, channelMoves.order)) channelMoves.dragOver(next);
  };
  const dropProps = (reorder: { drop: () => void }) => ({
    onDrop: (event: DragEvent) => {
      event.preventDefault();
      reorder.drop();
    },
  });

  const menuItems = (channel: Channel): MenuItem[] => [
    markReadItem({ kind: "channel", channelId: channel.id }, channel.id),
    ...notificationItems("channel", channel.id),
    ...(manage
      ? [
          { label: "Edit channel", separated: true, onSelect: () => setManaging({ kind: "edit-channel", channel }) },
          { label: "Delete channel", onSelect: () => setManaging({ kind: "delete-channel", channel }) },
        ]
      : []),
  ];

  return (
    <div class="sidebar">
      {/* The landmark holds the list only: the voice bar and the reader's own panel are not channels. */}
      <nav class="sidebar-nav" aria-label="Channels">
        <header class="sidebar-header">
          <div class="sidebar-title">
            <h2 title={server.name}>{server.name}</h2>
            {manage && (
              <span class="row-tools shown">
                <button type="button" class="tool" aria-label="Create channel" title="Create channel" onClick={() => setManaging({ kind: "create-channel", categoryId: null })}>
                  <Icon name="plus" size={16} />
                </button>
                <button type="button" class="tool" aria-label="Create category" title="Create category" onClick={() => setManaging({ kind: "create-category" })}>
                  <Icon name="folder-plus" size={16} />
                </button>
              </span>
            )}
          </div>
          <div class="sidebar-buttons">
            <button type="button" class="secondary small" onClick={() => setInviting(true)}>
              Invite people
            </button>
            {canSettings && (
              <a ref={settingsLink} class="button small" href={`/servers/${server.id}/settings`}>
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
          {channels?.length === 0 && categories.length === 0 && <p class="empty pad">There are no channels you can see here.</p>}
          {manage && (
            <p id="channel-reorder-help" class="sr-only">
              Drag a channel or a category to move it, or focus its Move button, press Space, move it with the arrow keys and press Space again.
            </p>
          )}
          <ErrorAlert message={move.error} />
          {layout.map((group) => {
            const category = group.category === null ? null : categoryById.get(group.category);
            // The uncategorized group shows only when it has channels (or one is moved into it).
            if (group.category !== null && !category) return null;
            if (!category && group.ids.length === 0) return null;
            const id = category?.id ?? "none";
            const open = !collapsed.has(id) || (channelMoves.grabbed !== null && group.ids.includes(channelMoves.grabbed));
            return (
              <div
                key={id}
                class={`channel-group${category && categoryMoves.grabbed === category.id ? " grabbed" : ""}`}
                role={category ? "group" : undefined}
                aria-label={category?.name}
              >
                {category && (
                  <h3
                    class="category-head"
                    draggable={manage}
                    onDragStart={manage ? (e) => categoryMoves.dragStart(category.id, e, category.name) : undefined}
                    onDragOver={(e) => {
                      const from = categoryMoves.dragging();
                      if (from) {
                        e.preventDefault();
                        const order = categoryMoves.order;
                        if (from !== category.id) categoryMoves.dragOver(moveTo(order, from, order.indexOf(category.id)));
                      } else dragChannelTo(e, category.id, 0);
                    }}
                    onDrop={(e) => {
                      e.preventDefault();
                      if (categoryMoves.dragging()) categoryMoves.drop();
                      else channelMoves.drop();
                    }}
                    onDragEnd={categoryMoves.dragEnd}
                  >
                    <button type="button" class="category" aria-expanded={open} onClick={() => toggle(id)}>
                      <span aria-hidden="true">{open ? "▾" : "▸"} </span>
                      {category.name}
                    </button>
                    {manage && (
                      <span class="row-tools">
                        <button type="button" class="drag-handle tool" aria-describedby="channel-reorder-help" {...categoryMoves.handle(category.id, category.name)}>
                          <span aria-hidden="true">⠿</span>
                        </button>
                        <button type="button" class="tool" aria-label="Edit category" title="Edit category" onClick={() => setManaging({ kind: "edit-category", category })}>
                          <Icon name="edit" size={14} />
                        </button>
                        <button
                          type="button"
                          class="tool"
                          aria-label={`Create channel in ${category.name}`}
                          title="Create channel"
                          onClick={() => setManaging({ kind: "create-channel", categoryId: category.id })}
                        >
                          <Icon name="plus" size={14} />
                        </button>
                      </span>
                    )}
                  </h3>
                )}
                {open && (
                  <ul onDragOver={(e) => e.target === e.currentTarget && dragChannelTo(e, group.category, group.ids.length)} {...dropProps(channelMoves)}>
                    {group.ids.map((channelId, index) => {
                      const channel = channelById.get(channelId);
                      if (!channel) return null;
                      const shown = store.channelUnread(server.id, channel.id);
                      const active = channel.id === activeChannelId;
                      const room = channel.type === "voice" ? inVoice.get(channel.id) : undefined;
                      return (
                        <li
                          key={channel.id}
                          class={`channel-row${channelMoves.grabbed === channel.id ? " grabbed" : ""}${room ? " has-occupants" : ""}`}
                          draggable={manage}
                          onDragStart={manage ? (e) => channelMoves.dragStart(channel.id, e, channel.name) : undefined}
                          onDragOver={(e) => dragChannelTo(e, group.category, index)}
                          {...dropProps(channelMoves)}
                          onDragEnd={channelMoves.dragEnd}
                        >
                          <a
                            class={`channel-link${active ? " active" : ""}${shown.unread ? " unread" : ""}${shown.muted ? " muted" : ""}`}
                            href={`/channels/${server.id}/${channel.id}`}
                            draggable={manage ? false : undefined}
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
                          {manage && (
                            <span class="row-tools" role="group" aria-label={channel.name}>
                              <button type="button" class="drag-handle tool" aria-describedby="channel-reorder-help" {...channelMoves.handle(channel.id, channel.name)}>
                                <span aria-hidden="true">⠿</span>
                              </button>
                              <button type="button" class="tool" aria-label="Edit channel" title="Edit channel" onClick={() => setManaging({ kind: "edit-channel", channel })}>
                                <Icon name="edit" size={14} />
                              </button>
                            </span>
                          )}
                          <VoiceOccupants channelName={channel.name} room={room} />
                        </li>
                      );
                    })}
                    {group.ids.length === 0 && <li class="muted small pad">No channels</li>}
                  </ul>
                )}
              </div>
            );
          })}
          {manage && (
            <>
              <p class="sr-only" aria-live="assertive">
                {channelMoves.announcement}
              </p>
              <p class="sr-only" aria-live="assertive">
                {categoryMoves.announcement}
              </p>
            </>
          )}
        </div>
      </nav>
      <ConnectionBars />
      <UserPanel />
      {menu && <ContextMenu label={`${menu.channel.name} options`} at={menu.at} onClose={() => setMenu(null)} items={menuItems(menu.channel)} />}
      {inviting && <InviteDialog serverId={server.id} serverName={server.name} onClose={() => setInviting(false)} />}
      {leaving && <LeaveServerDialog server={server} onClose={() => setLeaving(false)} />}
      {managing?.kind === "create-channel" && (
        <CreateChannelDialog
          serverId={server.id}
          state={state}
          categoryId={managing.categoryId}
          onClose={close}
          onCreated={(channel) => {
            close();
            route(`/channels/${server.id}/${channel.id}`);
          }}
        />
      )}
      {managing?.kind === "create-category" && <CategoryDialog serverId={server.id} state={state} onClose={close} />}
      {managing?.kind === "edit-category" && (
        <CategoryDialog
          serverId={server.id}
          state={state}
          category={managing.category}
          onClose={close}
          onDelete={() => setManaging({ kind: "delete-category", category: managing.category })}
        />
      )}
      {managing?.kind === "delete-category" && <DeleteCategoryDialog category={managing.category} state={state} onClose={close} />}
      {managing?.kind === "edit-channel" && (
        <EditChannelDialog
          channel={managing.channel}
          state={state}
          onClose={close}
          onDelete={() => setManaging({ kind: "delete-channel", channel: managing.channel })}
        />
      )}
      {managing?.kind === "delete-channel" && (
        <DeleteChannelDialog
          channel={managing.channel}
          state={state}
          onClose={close}
          onDeleted={() => {
            if (managing.channel.id === activeChannelId) route(`/channels/${server.id}`);
          }}
        />
      )}
    </div>
  );
}

const layoutsEqual = (a: ChannelLayout, b: ChannelLayout) =>
  a.length === b.length && a.every((g, i) => g.category === b[i]!.category && g.ids.join() === b[i]!.ids.join());
