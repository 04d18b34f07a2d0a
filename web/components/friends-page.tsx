/**
 * The Friends page (`/channels/@me` with no conversation open): the tabs "Online", "All",
 * "Pending" and "Add friend" over one tab panel. Friends have "Message" and "Remove friend",
 * incoming requests "Accept" and "Ignore", outgoing ones "Cancel"; everything follows the
 * gateway through the store's friends state (web/state/friends.ts).
 */
import "./friends.css";
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { useLocation } from "preact-iso/router";
import { onlineFriends } from "../lib/friend-lists.ts";
import type { FriendRequest } from "../lib/wire-types.ts";
import { store } from "../state/app-state.ts";
import type { ShownFriend } from "../state/friends.ts";
import { Avatar, STATUS_LABELS } from "./avatar.tsx";
import { ConfirmDialog } from "./confirm-dialog.tsx";
import { ErrorAlert } from "./error-alert.tsx";
import { Icon } from "./icons.tsx";
import { MentionBadge } from "./mention-badge.tsx";
import { NavOpener } from "./nav-drawer.tsx";
import { useAction } from "./use-async.ts";
import { CustomStatusLine, useUnexpired } from "./custom-status.tsx";

const TABS = [
  { id: "online", name: "Online" },
  { id: "all", name: "All" },
  { id: "pending", name: "Pending" },
  { id: "add", name: "Add friend" },
] as const;
type Tab = (typeof TABS)[number]["id"];

const tabId = (tab: Tab) => `friends-tab-${tab}`;
const PANEL_ID = "friends-panel";
const PENDING_COUNT_ID = "friends-pending-count";
/** A row's name, which describes its buttons ("Message", described by "bob"). */
const nameId = (userId: string) => `friend-name-${userId}`;

/** "1 incoming friend request", "3 incoming friend requests". */
export function incomingText(count: number): string {
  return `${count} incoming friend request${count === 1 ? "" : "s"}`;
}

/** `intro` goes above the tabs (the first steps of someone in no server yet). */
export function FriendsPage({ intro }: { intro?: ComponentChildren }) {
  const [tab, setTab] = useState<Tab>("online");
  const tabs = useRef<(HTMLButtonElement | null)[]>([]);
  const friends = store.friends;
  useEffect(() => friends.ensureLoaded(), []);
  const incoming = friends.incomingCount.value;

  function onTabKey(event: KeyboardEvent, index: number) {
    const last = TABS.length - 1;
    const next =
      event.key === "ArrowRight" ? (index === last ? 0 : index + 1)
      : event.key === "ArrowLeft" ? (index === 0 ? last : index - 1)
      : event.key === "Home" ? 0
      : event.key === "End" ? last
      : null;
    if (next === null) return;
    event.preventDefault();
    setTab(TABS[next]!.id);
    tabs.current[next]?.focus();
  }

  return (
    <main class="place friends-page" aria-label="Friends">
      <header class="place-header">
        <NavOpener />
        <h1 tabIndex={-1}>
          <Icon name="users" size={20} /> Friends
        </h1>
        <div class="friends-tabs" role="tablist" aria-label="Friends">
          {TABS.map((t, index) => (
            <button
              key={t.id}
              ref={(el) => void (tabs.current[index] = el)}
              type="button"
              role="tab"
              id={tabId(t.id)}
              class={`friends-tab${t.id === "add" ? " add" : ""}`}
              aria-selected={tab === t.id}
              aria-controls={PANEL_ID}
              aria-describedby={t.id === "pending" && incoming > 0 ? PENDING_COUNT_ID : undefined}
              tabIndex={tab === t.id ? 0 : -1}
              onClick={() => setTab(t.id)}
              onKeyDown={(e) => onTabKey(e, index)}
            >
              {t.name}
              {t.id === "pending" && <MentionBadge count={incoming} />}
            </button>
          ))}
        </div>
        {/* The count describes the Pending tab without becoming part of its name. */}
        <span id={PENDING_COUNT_ID} hidden>
          {incomingText(incoming)}
        </span>
      </header>
      <div class="friends-body">
        {intro}
        <div role="tabpanel" id={PANEL_ID} aria-labelledby={tabId(tab)} tabIndex={0} class="friends-panel">
          {tab === "add" ? <AddFriend /> : <FriendLists tab={tab} />}
        </div>
      </div>
    </main>
  );
}

function FriendLists({ tab }: { tab: "online" | "all" | "pending" }) {
  const friends = store.friends;
  const all = friends.friends.value;
  const error = friends.error.value;
  if (all === null) {
    if (!error) return <p class="muted" role="status">Loading…</p>;
    return (
      <>
        <ErrorAlert message={error} />
        <button type="button" class="secondary" onClick={() => friends.ensureLoaded()}>
          Try again
        </button>
      </>
    );
  }
  if (tab === "pending") {
    const incoming = friends.incoming.value;
    const outgoing = friends.outgoing.value;
    if (incoming.length === 0 && outgoing.length === 0) return <p class="empty">No pending friend requests.</p>;
    return (
      <>
        {incoming.length > 0 && (
          <Section heading={`Incoming — ${incoming.length}`}>
            {incoming.map((r) => <RequestRow key={r.user_id} request={r} />)}
          </Section>
        )}
        {outgoing.length > 0 && (
          <Section heading={`Outgoing — ${outgoing.length}`}>
            {outgoing.map((r) => <RequestRow key={r.user_id} request={r} />)}
          </Section>
        )}
      </>
    );
  }
  const shown = tab === "online" ? onlineFriends(all) : all;
  if (shown.length === 0) {
    return (
      <p class="empty">
        {all.length === 0 ? "You have no friends here yet. Add someone by their username in “Add friend”." : "None of your friends is online."}
      </p>
    );
  }
  return (
    <Section heading={`${tab === "online" ? "Online" : "All friends"} — ${shown.length}`}>
      {shown.map((f) => <FriendRow key={f.user_id} friend={f} />)}
    </Section>
  );
}

function Section({ heading, children }: { heading: string; children: ComponentChildren }) {
  return (
    <section class="friends-section">
      <h2 class="friends-heading">{heading}</h2>
      <ul class="friend-list">{children}</ul>
    </section>
  );
}

function FriendRow({ friend }: { friend: ShownFriend }) {
  const { route } = useLocation();
  const [removing, setRemoving] = useState(false);
  const action = useAction();
  const status = STATUS_LABELS[friend.status];
  const custom = useUnexpired(friend.custom_status);
  return (
    <li class="friend-row">
      <Avatar name={friend.username} src={friend.avatar} size={36} status={friend.status} />
      <div class="friend-text">
        <strong id={nameId(friend.user_id)}>{friend.username}</strong>
        <span class="muted small">
          {status}
          {custom && (
            <>
              {" · "}
              <CustomStatusLine status={custom} />
            </>
          )}
        </span>
        <ErrorAlert message={action.error} />
      </div>
      <div class="friend-actions">
        <button
          type="button"
          class="secondary small"
          aria-describedby={nameId(friend.user_id)}
          disabled={action.busy}
          onClick={() =>
            void action.run(async () => {
              const dm = await store.openDm(friend.user_id);
              route(`/channels/@me/${dm.id}`);
            })
          }
        >
          Message
        </button>
        <button type="button" class="secondary small" aria-describedby={nameId(friend.user_id)} onClick={() => setRemoving(true)}>
          Remove friend
        </button>
      </div>
      {removing && (
        <ConfirmDialog title={`Remove ${friend.username}`} confirm="Remove friend" onConfirm={() => store.friends.remove(friend.user_id)} onClose={() => setRemoving(false)}>
          <p>
            {friend.username} will be removed from your friends, and you from theirs. Either of you can send a new friend request later.
          </p>
        </ConfirmDialog>
      )}
    </li>
  );
}

function RequestRow({ request }: { request: FriendRequest }) {
  const action = useAction();
  const friends = store.friends;
  const incoming = request.direction === "incoming";
  // The row goes once answered: the focus goes to the panel instead of the page's start.
  const answer = async (work: () => Promise<void>) => {
    if (await action.run(work)) document.getElementById(PANEL_ID)?.focus();
  };
  return (
    <li class="friend-row">
      <Avatar name={request.username} src={request.avatar} size={36} />
      <div class="friend-text">
        <strong id={nameId(request.user_id)}>{request.username}</strong>
        <span class="muted small">{incoming ? "Incoming friend request" : "Outgoing friend request"}</span>
        <ErrorAlert message={action.error} />
      </div>
      <div class="friend-actions">
        {incoming ? (
          <>
            <button type="button" class="primary small" aria-describedby={nameId(request.user_id)} disabled={action.busy} onClick={() => void answer(() => friends.accept(request.user_id))}>
              Accept
            </button>
            <button type="button" class="secondary small" aria-describedby={nameId(request.user_id)} disabled={action.busy} onClick={() => void answer(() => friends.remove(request.user_id))}>
              Ignore
            </button>
          </>
        ) : (
          <button type="button" class="secondary small" aria-describedby={nameId(request.user_id)} disabled={action.busy} onClick={() => void answer(() => friends.remove(request.user_id))}>
            Cancel
          </button>
        )}
      </div>
    </li>
  );
}

function AddFriend() {
  const [username, setUsername] = useState("");
  const [sent, setSent] = useState("");
  const action = useAction();
  const typed = username.trim();
  return (
    <form
      class="form add-friend"
      onSubmit={async (event) => {
        event.preventDefault();
        let answer = "";
        if (await action.run(async () => void (answer = await store.friends.send(typed)))) {
          setSent(answer);
          setUsername("");
        } else setSent("");
      }}
    >
      <h2 class="add-friend-title">Add friend</h2>
      <p class="muted">Send a friend request to someone by their username, exactly as they wrote it (upper and lower case do not matter).</p>
      <div class="add-friend-row">
        <label class="field">
          <span>Username</span>
          <input
            value={username}
            maxLength={32}
            autoComplete="off"
            spellcheck={false}
            onInput={(e) => {
              setUsername(e.currentTarget.value);
              action.reset();
              setSent("");
            }}
          />
        </label>
        <button type="submit" class="primary" disabled={!typed || action.busy}>
          Send friend request
        </button>
      </div>
      <p class="success" role="status">
        {sent}
      </p>
      <ErrorAlert message={action.error} />
    </form>
  );
}
