import { useEffect, useRef, useState } from "preact/hooks";
import { useLocation } from "preact-iso/router";
import { errorMessage } from "../lib/api-errors.ts";
import type { Member, Role } from "../lib/wire-types.ts";
import { store } from "../state/app-state.ts";
import type { ServerState } from "../state/server-state.ts";
import { Avatar, STATUS_LABELS } from "./avatar.tsx";
import { ErrorAlert } from "./error-alert.tsx";

const ROLE_LABELS: Record<string, string> = { owner: "Owner", admin: "Admin", moderator: "Moderator", member: "Member" };

/** The server's members with their presence, online first; a member opens a card with "Message". */
export function MemberList({ state, meId }: { state: ServerState; meId: string }) {
  const [open, setOpen] = useState<string | null>(null);
  const members = state.members.value;
  if (members === null) {
    return (
      <nav class="members" aria-label="Members">
        <p class="muted pad" role="status">Loading members…</p>
      </nav>
    );
  }
  const byName = (a: Member, b: Member) => a.username.localeCompare(b.username);
  // The reader's own presence is known here better than by a list fetched around connecting.
  const shown = members.map((m) => (m.user_id === meId ? { ...m, status: store.shownSelfStatus() } : m));
  const online = shown.filter((m) => m.status !== "offline").sort(byName);
  const offline = shown.filter((m) => m.status === "offline").sort(byName);
  const roles = state.roles.value;
  return (
    <nav class="members" aria-label="Members">
      {[
        ["Online", online],
        ["Offline", offline],
      ].map(([title, list]) =>
        (list as Member[]).length === 0 ? null : (
          <div key={title as string} role="group" aria-labelledby={`members-${title}`}>
            <h3 id={`members-${title}`} class="members-heading">
              {title as string} — {(list as Member[]).length}
            </h3>
            <ul>
              {(list as Member[]).map((member) => (
                <li key={member.user_id} class="member-row">
                  <button
                    type="button"
                    class={`member${member.status === "offline" ? " offline" : ""}`}
                    aria-label={member.username}
                    aria-describedby={`member-${member.user_id}-status`}
                    aria-expanded={open === member.user_id}
                    onClick={() => setOpen(open === member.user_id ? null : member.user_id)}
                  >
                    <Avatar name={member.username} src={member.avatar} size={32} status={member.status} />
                    <span class="member-name" style={roleColor(member, roles)}>
                      {member.username}
                    </span>
                    {member.is_bot === 1 && <span class="badge bot">BOT</span>}
                    <span id={`member-${member.user_id}-status`} class="sr-only">
                      {STATUS_LABELS[member.status]}
                    </span>
                  </button>
                  {open === member.user_id && <MemberCard member={member} roles={roles} isMe={member.user_id === meId} onClose={() => setOpen(null)} />}
                </li>
              ))}
            </ul>
          </div>
        ),
      )}
    </nav>
  );
}

/** The colour of the member's highest coloured custom role, as chat apps show names. */
function roleColor(member: Member, roles: Role[]) {
  const held = roles.filter((r) => member.roles.includes(r.id) && r.color && r.color !== "#000000").sort((a, b) => b.position - a.position);
  return held[0] ? { color: held[0].color } : undefined;
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
