import { useEffect, useState } from "preact/hooks";
import { useLocation } from "preact-iso/router";
import { errorMessage } from "../lib/api-errors.ts";
import { rest, session, store } from "../state/app-state.ts";
import { dmName, placeOf } from "../state/store.ts";
import { Avatar } from "./avatar.tsx";
import { Dialog } from "./dialog.tsx";
import { UserPanel } from "./user-panel.tsx";
import { ErrorAlert } from "./error-alert.tsx";
import { MEMBER_SEARCH_DEBOUNCE_MS } from "./use-member-search.ts";
import { ConnectionBars } from "../voice/voice-bar.tsx";
import type { Dm } from "../lib/wire-types.ts";
import { unreadLabel } from "../lib/notify-rules.ts";
import { ContextMenu, menuAt, type MenuAt } from "./context-menu.tsx";
import { markReadItem, notificationItems } from "./notification-menu.ts";
import { Icon } from "./icons.tsx";
import { MentionBadge } from "./mention-badge.tsx";
import { incomingText } from "./friends-page.tsx";

/**
 * "Friends" (the home page, with the count of incoming friend requests) and the reader's DMs and
 * group DMs, newest activity first, live from `dm:new`.
 */
export function DmSidebar({ activeId }: { activeId: string | undefined }) {
  const [creating, setCreating] = useState(false);
  const [menu, setMenu] = useState<{ at: MenuAt; dm: Dm } | null>(null);
  const dms = store.dms.value;
  // The incoming requests' count shows here from the first visit, whichever page opened first.
  useEffect(() => store.friends.ensureLoaded(), []);
  const incoming = store.friends.incomingCount.value;
  return (
    <div class="sidebar">
      {/* The landmark holds the list only: the voice bar and the reader's own panel are not channels. */}
      <nav class="sidebar-nav" aria-label="Channels">
        <header class="sidebar-header">
          <h2>Direct messages</h2>
          <button type="button" class="secondary small" onClick={() => setCreating(true)}>
            New group
          </button>
        </header>
        <div class="sidebar-scroll">
          <a
            class={`channel-link dm friends-link${activeId ? "" : " active"}`}
            href="/channels/@me"
            aria-current={activeId ? undefined : "page"}
            aria-describedby={incoming > 0 ? "friends-link-count" : undefined}
          >
            <Icon name="users" size={20} />
            <span class="dm-name">Friends</span>
            <MentionBadge count={incoming} />
          </a>
          <span id="friends-link-count" hidden>
            {incomingText(incoming)}
          </span>
          {dms === null && <p class="muted pad" role="status">Loading…</p>}
          {dms?.length === 0 && (
            <p class="empty pad">No conversations yet. Press “Message” beside a friend, or beside someone in a server’s member list.</p>
          )}
          <ul>
            {dms?.map((c) => {
              const name = dmName(c);
              const other = c.type === "dm" ? c.recipients[0] : undefined;
              const shown = store.dmUnread(c.id);
              return (
                <li key={c.id}>
                  <a
                    class={`channel-link dm${c.id === activeId ? " active" : ""}${shown.unread ? " unread" : ""}${shown.muted ? " muted" : ""}`}
                    href={`/channels/@me/${c.id}`}
                    aria-label={unreadLabel(name, shown.unread, 0)}
                    aria-current={c.id === activeId ? "page" : undefined}
                    onContextMenu={(event) => {
                      event.preventDefault();
                      setMenu({ at: menuAt(event), dm: c });
                    }}
                  >
                    <Avatar name={name} src={other?.avatar} size={28} status={other?.status} />
                    <span class="dm-name">{name}</span>
                    {c.type === "group" && <span class="muted small">{c.recipients.length + 1} members</span>}
                  </a>
                </li>
              );
            })}
          </ul>
        </div>
      </nav>
      <ConnectionBars />
      <UserPanel />
      {menu && (
        <ContextMenu
          label={`${dmName(menu.dm)} options`}
          at={menu.at}
          onClose={() => setMenu(null)}
          items={[
            markReadItem(placeOf(menu.dm), menu.dm.id),
            ...notificationItems("dm", menu.dm.id),
          ]}
        />
      )}
      {creating && <NewGroupDialog onClose={() => setCreating(false)} />}
    </div>
  );
}

/**
 * A group DM with people the reader shares a server with: the members the app knows of each
 * server (a small server's whole list, what has been loaded of a large one) and, for a name typed
 * in "Find people", each large server's search for it.
 */
function NewGroupDialog({ onClose }: { onClose: () => void }) {
  const { route } = useLocation();
  const [name, setName] = useState("");
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  const [filter, setFilter] = useState("");
  const [error, setError] = useState<string | null>(null);
  const meId = session.value?.user.id;
  const states = (store.servers.value ?? []).map((server) => store.server(server.id));
  const typed = filter.trim();
  useEffect(() => {
    if (!typed || typed.length > 32) return;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      for (const state of states) if (!state.members.complete.peek()) state.members.search(typed, controller.signal).catch(() => {});
    }, MEMBER_SEARCH_DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [typed, states.length]);
  const people = new Map<string, { id: string; username: string }>();
  for (const state of states) {
    for (const m of state.members.members.value ?? []) {
      if (m.is_bot === 0 && m.user_id !== meId) people.set(m.user_id, { id: m.user_id, username: m.username });
    }
  }
  for (const c of store.dms.value ?? []) for (const r of c.recipients) if (r.is_bot === 0) people.set(r.id, { id: r.id, username: r.username });
  const candidates = [...people.values()].filter((p) => p.username.toLowerCase().includes(filter.toLowerCase())).sort((a, b) => a.username.localeCompare(b.username));
  async function create(event: Event) {
    event.preventDefault();
    try {
      const group = await rest.request("createGroup", { body: name.trim() ? { member_ids: [...picked], name: name.trim() } : { member_ids: [...picked] } });
      store.upsertDm(group);
      onClose();
      route(`/channels/@me/${group.id}`);
    } catch (failure) {
      setError(errorMessage(failure));
    }
  }
  return (
    <Dialog title="New group" onClose={onClose}>
      <form class="form" onSubmit={create}>
        <label class="field">
          <span>Group name (optional)</span>
          <input maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label class="field">
          <span>Find people</span>
          <input type="search" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
        </label>
        <fieldset class="people">
          <legend>Members (pick 2 to 10)</legend>
          {candidates.length === 0 && <p class="muted">Nobody to add yet: people appear here once you share a server.</p>}
          {candidates.map((p) => (
            <label key={p.id} class="check">
              <input
                type="checkbox"
                checked={picked.has(p.id)}
                onChange={(e) => {
                  const next = new Set(picked);
                  if (e.currentTarget.checked) next.add(p.id);
                  else next.delete(p.id);
                  setPicked(next);
                }}
              />
              {p.username}
            </label>
          ))}
        </fieldset>
        <ErrorAlert message={error} />
        <div class="actions">
          <button type="button" class="secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" class="primary" disabled={picked.size < 2}>
            Create group
          </button>
        </div>
      </form>
    </Dialog>
  );
}
