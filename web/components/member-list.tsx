/**
 * The server's members with their presence (docs/web.md, "Servers"), under a header that says how
 * many the server has and a "Search members" box. A small server's whole list is shown, grouped
 * under the roles shown separately (hoisted, highest first), Online and Offline, each by name. A large one (more than `large_server_members`) shows the
 * members the app knows, online first among them, in a virtualized list (virtua's VList: only the
 * rows in view are rendered) that loads the next page as the reader nears its end, keeps what is
 * in view in place when rows come in above it, and subscribes to the presence of the rows in view
 * (`presence:subscribe`, debounced). A member opens a card with their roles and "Message".
 */
import { memo } from "preact/compat";
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { useLocation } from "preact-iso/router";
import { VList, type VListHandle } from "virtua";
import { errorMessage } from "../lib/api-errors.ts";
import { hoistedRoles, memberGroups } from "../lib/member-order.ts";
import { nameColour } from "../lib/role-colour.ts";
import type { Member, Role } from "../lib/wire-types.ts";
import { store } from "../state/app-state.ts";
import { MEMBER_SEARCH_LIMIT, type MemberDirectory } from "../state/member-directory.ts";
import { PRESENCE_IDS_PER_SERVER } from "../state/presence-subscriptions.ts";
import type { ServerState } from "../state/server-state.ts";
import { Avatar, STATUS_LABELS } from "./avatar.tsx";
import { CustomStatusLine, useUnexpired } from "./custom-status.tsx";
import { ErrorAlert } from "./error-alert.tsx";
import { useMemberSearch } from "./use-member-search.ts";

const ROLE_LABELS: Record<string, string> = { owner: "Owner", admin: "Admin", moderator: "Moderator", member: "Member" };
/** Load the next page when the reader is this close to the end of a large server's list (px). */
const LOAD_MORE_AT = 600;
/** Rows beyond the view whose presence is followed too, so a short scroll shows live statuses at once. */
const PRESENCE_MARGIN_ROWS = 10;

/** Counts in the reader's locale ("100,001"). */
const count = new Intl.NumberFormat();

export function MemberList({ state, meId }: { state: ServerState; meId: string }) {
  const directory = state.members;
  const members = directory.members.value;
  const [query, setQuery] = useState("");
  const [open, setOpen] = useState<string | null>(null);
  const typed = query.trim();
  const search = useMemberSearch(directory, typed ? typed : null, { limit: MEMBER_SEARCH_LIMIT });
  const large = directory.large.value;
  const total = directory.count.value;
  const roles = state.roles.value;
  const toggle = (userId: string) => setOpen((current) => (current === userId ? null : userId));
  // A list that stops showing (hidden, another server) stops following presence.
  useEffect(() => () => store.presence.show(state.id, []), [state.id]);

  let body;
  if (members === null) {
    body = directory.error.value ? <ErrorAlert message={directory.error.value} /> : <p class="muted pad" role="status">Loading members…</p>;
  } else if (typed) {
    body = <SearchResults state={state} query={typed} results={search.results} searching={search.searching} roles={roles} open={open} meId={meId} onToggle={toggle} onClose={() => setOpen(null)} />;
  } else if (large) {
    body = <LargeList state={state} members={members} roles={roles} open={open} meId={meId} onToggle={toggle} onClose={() => setOpen(null)} />;
  } else {
    body = <SmallList members={members} roles={roles} open={open} meId={meId} onToggle={toggle} onClose={() => setOpen(null)} />;
  }
  return (
    <nav class={large ? "members members-large" : "members"} aria-label="Members">
      <div class="members-top">
        <h2 class="members-count">{total === null ? "Members" : `Members — ${count.format(total)}`}</h2>
        <input
          type="search"
          class="members-search"
          aria-label="Search members"
          placeholder="Search members"
          value={query}
          onInput={(e) => setQuery(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === "Escape" && query) {
              e.preventDefault();
              e.stopPropagation();
              setQuery("");
            }
          }}
        />
        {large && members !== null && !typed && (
          <p class="members-note muted small">
            {members.length === total ? "Everyone is loaded" : `${count.format(members.length)} loaded`}, online first
          </p>
        )}
      </div>
      {body}
    </nav>
  );
}

interface RowsProps {
  roles: Role[];
  open: string | null;
  meId: string;
  onToggle: (userId: string) => void;
  onClose: () => void;
}

/** A small server: every member, under their hoisted role's heading, Online, then Offline, each by name (the directory's order). */
function SmallList({ members, ...rows }: RowsProps & { members: readonly Member[] }) {
  const groups = useMemo(() => memberGroups(members, hoistedRoles(rows.roles)), [members, rows.roles]);
  return (
    <>
      {groups.map((group) => (
        <div key={group.key} role="group" aria-labelledby={`members-${group.key}`}>
          <h3 id={`members-${group.key}`} class="members-heading" style={group.color ? { color: group.color } : undefined}>
            {group.title} — {group.size}
          </h3>
          <ul>
            {members.slice(group.start, group.start + group.size).map((member) => (
              <MemberRow key={member.user_id} as="li" member={member} {...rows} />
            ))}
          </ul>
        </div>
      ))}
    </>
  );
}

function SearchResults({ state, query, results, searching, ...rows }: RowsProps & { state: ServerState; query: string; results: Member[]; searching: boolean }) {
  const large = state.members.large.value;
  const ids = results.map((m) => m.user_id).join(",");
  useEffect(() => {
    if (large) store.presence.show(state.id, ids ? ids.split(",") : []);
  }, [large, ids]);
  return (
    <div role="group" aria-labelledby="members-results">
      <h3 id="members-results" class="members-heading">
        Results — {results.length}
      </h3>
      <p class="sr-only" role="status">
        {searching ? "Searching members…" : results.length === 0 ? `No member's name starts with “${query}”` : `${results.length} ${results.length === 1 ? "member" : "members"} found`}
      </p>
      {results.length === 0 && (
        <p class="muted pad small" aria-hidden="true">
          {searching ? "Searching…" : `No member's name starts with “${query}”.`}
        </p>
      )}
      <ul>
        {results.map((member) => (
          <MemberRow key={member.user_id} as="li" member={member} {...rows} />
        ))}
      </ul>
    </div>
  );
}

type Row = { kind: "heading"; key: string; title: string; size: number; color?: string } | { kind: "member"; key: string; member: Member } | { kind: "more"; key: "more" };

/** The groups' headings (hoisted roles, Online, Offline) and their rows; a last row loads more. */
function buildRows(members: readonly Member[], roles: readonly Role[], more: boolean): Row[] {
  const rows: Row[] = [];
  for (const group of memberGroups(members, hoistedRoles(roles))) {
    rows.push({ kind: "heading", key: `h-${group.key}`, title: group.title, size: group.size, color: group.color });
    for (let i = group.start; i < group.start + group.size; i++) rows.push({ kind: "member", key: members[i]!.user_id, member: members[i]! });
  }
  if (more) rows.push({ kind: "more", key: "more" });
  return rows;
}

function LargeList({ state, members, ...rows }: RowsProps & { state: ServerState; members: readonly Member[] }) {
  const directory: MemberDirectory = state.members;
  const hasMore = directory.hasMore.value;
  const loadingMore = directory.loadingMore.value;
  const list = useMemo(() => buildRows(members, rows.roles, hasMore), [members, rows.roles, hasMore]);
  const ref = useRef<VListHandle>(null);
  const rowsNow = useRef(list);
  rowsNow.current = list;
  /** The first row in view and how far its top is from the view's: kept in place when rows come in above it. */
  const anchor = useRef<{ key: string; delta: number } | null>(null);

  const inView = (): [number, number] | null => {
    const handle = ref.current;
    if (!handle || handle.viewportSize === 0) return null;
    return [handle.findItemIndex(handle.scrollOffset), handle.findItemIndex(handle.scrollOffset + handle.viewportSize)];
  };
  const remember = () => {
    const handle = ref.current;
    const range = inView();
    if (!handle || !range) return;
    const row = rowsNow.current[range[0]];
    anchor.current = row && handle.scrollOffset > 0 ? { key: row.key, delta: handle.getItemOffset(range[0]) - handle.scrollOffset } : null;
  };
  const followPresence = () => {
    const range = inView();
    if (!range) return;
    const ids: string[] = [];
    const from = Math.max(0, range[0] - PRESENCE_MARGIN_ROWS);
    const to = Math.min(rowsNow.current.length - 1, range[1] + PRESENCE_MARGIN_ROWS);
    for (let i = from; i <= to && ids.length < PRESENCE_IDS_PER_SERVER; i++) {
      const row = rowsNow.current[i]!;
      if (row.kind === "member") ids.push(row.member.user_id);
    }
    store.presence.show(state.id, ids);
  };
  const nearEnd = () => {
    const handle = ref.current;
    if (handle && handle.scrollSize - (handle.scrollOffset + handle.viewportSize) < LOAD_MORE_AT) void directory.loadMore();
  };

  // Rows that came in above the view (a page's online members, someone joining) do not move what
  // the reader looks at; then the view's presence is followed, and a short list loads more.
  useLayoutEffect(() => {
    const handle = ref.current;
    const kept = anchor.current;
    if (handle && kept) {
      const index = list.findIndex((r) => r.key === kept.key);
      if (index !== -1) {
        const wanted = handle.getItemOffset(index) - kept.delta;
        if (Math.abs(wanted - handle.scrollOffset) > 1) handle.scrollTo(wanted);
      }
    }
    remember();
    followPresence();
    nearEnd();
  }, [list]);

  const openIndex = rows.open ? list.findIndex((r) => r.key === rows.open) : -1;
  return (
    // preact/compat's div attributes add their own `ref` type to VList's props: the handle ref is VList's.
    <VList
      ref={ref as never}
      class="member-scroller"
      role="list"
      aria-label="Loaded members"
      // Focusable so the keyboard scrolls it (arrows, Page Down, End): its end loads the next page.
      tabIndex={0}
      data={list}
      itemSize={44}
      keepMounted={openIndex === -1 ? undefined : [openIndex]}
      onScroll={() => {
        remember();
        followPresence();
        nearEnd();
      }}
      onResize={() => {
        followPresence();
        nearEnd();
      }}
    >
      {(row: Row) => {
        if (row.kind === "heading") {
          return (
            <div key={row.key} role="listitem" class="members-heading-row">
              <h3 class="members-heading" style={row.color ? { color: row.color } : undefined}>
                {row.title} — {count.format(row.size)}
              </h3>
            </div>
          );
        }
        if (row.kind === "more") {
          return (
            <div key="more" role="listitem" class="members-more">
              {loadingMore ? (
                <p class="muted small" role="status">
                  Loading more members…
                </p>
              ) : (
                <button type="button" class="secondary small" onClick={() => void directory.loadMore()}>
                  Load more members
                </button>
              )}
            </div>
          );
        }
        return <MemberRow key={row.key} as="div" member={row.member} {...rows} />;
      }}
    </VList>
  );
}

/** One member's row: a button that opens their card. Memoized: a presence event re-renders only that member's row. */
const MemberRow = memo(function MemberRow({
  as,
  member,
  roles,
  open,
  meId,
  onToggle,
  onClose,
}: RowsProps & { as: "li" | "div"; member: Member }) {
  const Tag = as;
  const expanded = open === member.user_id;
  const custom = useUnexpired(member.custom_status);
  return (
    <Tag class="member-row" role={as === "div" ? "listitem" : undefined}>
      <button
        type="button"
        class={`member${member.status === "offline" ? " offline" : ""}`}
        aria-label={member.username}
        aria-describedby={`member-${member.user_id}-status`}
        aria-expanded={expanded}
        onClick={() => onToggle(member.user_id)}
      >
        <Avatar name={member.username} src={member.avatar} size={32} status={member.status} />
        <span class="member-text">
          <span class="member-name" style={roleColor(member, roles)}>
            {member.username}
          </span>
          {custom && <CustomStatusLine status={custom} class="muted small" />}
        </span>
        {member.is_bot === 1 && <span class="badge bot">BOT</span>}
        <span id={`member-${member.user_id}-status`} class="sr-only">
          {STATUS_LABELS[member.status]}
        </span>
      </button>
      {expanded && <MemberCard member={member} roles={roles} isMe={member.user_id === meId} onClose={onClose} />}
    </Tag>
  );
}, sameRow);

/** A row re-renders when its member, the roles or whether its card is open change. */
function sameRow(a: RowsProps & { member: Member }, b: RowsProps & { member: Member }): boolean {
  const id = a.member.user_id;
  return a.member === b.member && a.roles === b.roles && a.meId === b.meId && (a.open === id) === (b.open === id);
}

/** The member's name in the colour of their highest coloured role. */
function roleColor(member: Member, roles: Role[]) {
  const color = nameColour(member.roles, roles);
  return color ? { color } : undefined;
}

function MemberCard({ member, roles, isMe, onClose }: { member: Member; roles: Role[]; isMe: boolean; onClose: () => void }) {
  const { route } = useLocation();
  const [error, setError] = useState<string | null>(null);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    ref.current?.querySelector<HTMLElement>("button")?.focus();
    const outside = (e: MouseEvent) => {
      if (ref.current && !ref.current.parentElement!.contains(e.target as Node)) onClose();
    };
    document.addEventListener("mousedown", outside);
    return () => document.removeEventListener("mousedown", outside);
  }, []);
  const held = roles.filter((r) => member.roles.includes(r.id));
  const custom = useUnexpired(member.custom_status);
  async function message() {
    try {
      const dm = await store.openDm(member.user_id);
      onClose();
      route(`/channels/@me/${dm.id}`);
    } catch (failure) {
      setError(errorMessage(failure));
    }
  }
  return (
    <div
      ref={ref}
      class="popover member-card"
      role="dialog"
      aria-label={member.username}
      onKeyDown={(e) => {
        if (e.key === "Escape") onClose();
      }}
    >
      <div class="member-card-head">
        <Avatar name={member.username} src={member.avatar} size={56} status={member.status} />
        <div>
          <strong>{member.username}</strong> {member.is_bot === 1 && <span class="badge bot">BOT</span>}
          <div class="muted small">{STATUS_LABELS[member.status]}</div>
        </div>
      </div>
      {custom && <CustomStatusLine status={custom} class="member-card-custom-status" />}
      <p class="small">
        {ROLE_LABELS[member.role] ?? member.role}
        {held.length > 0 && ` · ${held.map((r) => r.name).join(", ")}`}
      </p>
      <ErrorAlert message={error} />
      {!isMe && (
        <button type="button" class="primary" onClick={message}>
          Message
        </button>
      )}
      <button type="button" class="secondary" onClick={onClose}>
        Close
      </button>
    </div>
  );
}
