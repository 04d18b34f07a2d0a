/**
 * Members: each with their built-in role, roles and timeout, and the actions the reader may
 * take on them (docs/moderation.md): change the built-in role (owner and admins), time out
 * with a duration picker or remove the timeout (MUTE_MEMBERS), kick (KICK_MEMBERS), ban with a
 * reason (BAN_MEMBERS); each only on members ranked below the reader. `member:*` events keep
 * the list current. A large server's list is the members the app knows, more on request, and
 * the server's search for a name.
 */
import { useMemo, useState } from "preact/hooks";
import type { Member } from "../../lib/wire-types.ts";
import { ConfirmDialog } from "../../components/confirm-dialog.tsx";
import { Avatar } from "../../components/avatar.tsx";
import { ErrorAlert } from "../../components/error-alert.tsx";
import { formatFullTime } from "../../lib/format.ts";
import { LIMITS } from "../../lib/shared-rules.ts";
import { isTimedOut } from "./access.ts";
import { rest } from "../../state/app-state.ts";
import type { SectionProps } from "./context.ts";
import { useAction } from "../../components/use-async.ts";
import { useMemberSearch } from "../../components/use-member-search.ts";
import { compareNames } from "../../lib/member-order.ts";

const BUILTIN_LABELS: Record<string, string> = { owner: "Owner", admin: "Admin", moderator: "Moderator", member: "Member" };
/** The built-in roles that can be given (ownership is transferred, never given). */
const GIVABLE_ROLES = ["admin", "moderator", "member"] as const;

/** The durations offered for a timeout, within the server's 60 s .. 28 days. */
const TIMEOUT_CHOICES: { seconds: number; label: string }[] = [
  { seconds: 60, label: "1 minute" },
  { seconds: 5 * 60, label: "5 minutes" },
  { seconds: 10 * 60, label: "10 minutes" },
  { seconds: 3600, label: "1 hour" },
  { seconds: 86400, label: "1 day" },
  { seconds: 7 * 86400, label: "1 week" },
  { seconds: LIMITS.timeoutMaxSeconds, label: "28 days" },
];

type Pending = { kind: "kick" | "ban" | "timeout"; member: Member } | null;

export function MembersSection({ server, state, access, meId }: SectionProps) {
  const [search, setSearch] = useState("");
  const [pending, setPending] = useState<Pending>(null);
  const row = useAction();
  const directory = state.members;
  const typed = search.trim();
  // In a large server the members known so far ("Load more members"), and the server's search for a name.
  const found = useMemberSearch(directory, typed || null, { limit: Infinity, substring: true });
  const known = directory.members.value ?? [];
  const members = useMemo(() => known.slice().sort((a, b) => compareNames(a.username, b.username)), [known]);
  const complete = directory.complete.value;
  const total = directory.count.value ?? members.length;
  const roles = state.roles.value;
  const shown = typed ? found.results : members;
  const n = (value: number) => value.toLocaleString();
  const summary = typed
    ? found.searching
      ? "Searching…"
      : complete
        ? `${shown.length} of ${members.length} members`
        : `${n(shown.length)} found of ${n(total)} members`
    : complete
      ? `${members.length} members`
      : `${n(members.length)} of ${n(total)} members shown`;
  return (
    <div class="settings-stack">
      <div class="section-head">
        <label class="field grow">
          <span>Search members</span>
          <input type="search" value={search} onInput={(e) => setSearch(e.currentTarget.value)} placeholder="Name" />
        </label>
        <p class="muted small" role="status">
          {summary}
        </p>
      </div>
      <ErrorAlert message={row.error} />
      {shown.length === 0 && !found.searching && <p class="empty">Nobody here matches “{typed}”.</p>}
      <ul class="settings-list" aria-label="Members">
        {shown.map((member) => {
          const held = roles.filter((r) => member.roles.includes(r.id)).sort((a, b) => b.position - a.position);
          const timedOut = isTimedOut(member);
          const isOwner = member.user_id === server.owner_id;
          return (
            <li key={member.user_id} class="settings-row member-settings-row" aria-label={member.username}>
              <Avatar name={member.username} src={member.avatar} size={36} />
              <div class="row-main">
                <div class="row-title">
                  <span class="row-name">{member.username}</span>
                  {member.is_bot === 1 && <span class="badge bot">BOT</span>}
                  {member.user_id === meId && <span class="muted small">(you)</span>}
                </div>
                <div class="row-detail">
                  {access.canSetBuiltinRole(member) && !isOwner ? (
                    <select
                      aria-label={`Built-in role of ${member.username}`}
                      value={member.role}
                      disabled={row.busy}
                      onChange={(e) => {
                        const role = GIVABLE_ROLES.find((r) => r === e.currentTarget.value);
                        if (!role) return;
                        void row.run(async () => {
                          const answer = await rest.request("setBuiltinRole", { params: { id: server.id, targetUserId: member.user_id }, body: { role } });
                          state.members.setBuiltinRole(answer.userId, answer.role);
                        });
                      }}
                    >
                      {GIVABLE_ROLES.map((r) => (
                        <option key={r} value={r}>
                          {BUILTIN_LABELS[r]}
                        </option>
                      ))}
                    </select>
                  ) : (
                    <span class="builtin">{isOwner ? "Owner" : (BUILTIN_LABELS[member.role] ?? member.role)}</span>
                  )}
                  {held.map((r) => (
                    <span key={r.id} class="role-chip">
                      <span class="role-dot" style={{ background: r.color }} aria-hidden="true" />
                      {r.name}
                    </span>
                  ))}
                  {timedOut && <span class="timeout-note">Timed out until {formatFullTime(member.timeout_until!)}</span>}
                </div>
              </div>
              <div class="row-actions">
                {access.canTimeout(member) &&
                  (timedOut ? (
                    <button
                      type="button"
                      class="secondary small"
                      aria-label={`Remove timeout of ${member.username}`}
                      disabled={row.busy}
                      onClick={() =>
                        row.run(async () => {
                          await rest.request("removeTimeout", { params: { id: server.id, targetUserId: member.user_id } });
                          state.members.setTimeoutUntil(member.user_id, null);
                        })
                      }
                    >
                      Remove timeout
                    </button>
                  ) : (
                    <button type="button" class="secondary small" aria-label={`Time out ${member.username}`} onClick={() => setPending({ kind: "timeout", member })}>
                      Time out
                    </button>
                  ))}
                {access.canKick(member) && (
                  <button type="button" class="secondary small" aria-label={`Kick ${member.username}`} onClick={() => setPending({ kind: "kick", member })}>
                    Kick
                  </button>
                )}
                {access.canBan(member) && (
                  <button type="button" class="danger small" aria-label={`Ban ${member.username}`} onClick={() => setPending({ kind: "ban", member })}>
                    Ban
                  </button>
                )}
              </div>
            </li>
          );
        })}
      </ul>
      {!typed && !complete && directory.hasMore.value && (
        <button type="button" class="secondary" disabled={directory.loadingMore.value} onClick={() => void directory.loadMore()}>
          {directory.loadingMore.value ? "Loading more members…" : "Load more members"}
        </button>
      )}
      {pending?.kind === "kick" && (
        <ConfirmDialog
          title={`Kick ${pending.member.username}?`}
          confirm="Kick"
          onClose={() => setPending(null)}
          onConfirm={async () => {
            await rest.request("kickMember", { params: { id: server.id, targetUserId: pending.member.user_id } });
            state.members.left(pending.member.user_id);
          }}
        >
          <p>They leave {server.name} at once and can come back with an invite.</p>
        </ConfirmDialog>
      )}
      {pending?.kind === "ban" && <BanDialog serverId={server.id} serverName={server.name} member={pending.member} state={state} onClose={() => setPending(null)} />}
      {pending?.kind === "timeout" && <TimeoutDialog serverId={server.id} member={pending.member} state={state} onClose={() => setPending(null)} />}
    </div>
  );
}

/** How far back a ban deletes the member's messages (`delete_message_seconds`, up to 7 days). */
const DELETE_MESSAGE_CHOICES: { seconds: number; label: string }[] = [
  { seconds: 0, label: "Don't delete any" },
  { seconds: 3600, label: "Previous hour" },
  { seconds: 86400, label: "Previous 24 hours" },
  { seconds: LIMITS.moderation.deleteMessageMaxSeconds, label: "Previous 7 days" },
];

function BanDialog({ serverId, serverName, member, state, onClose }: { serverId: string; serverName: string; member: Member; state: SectionProps["state"]; onClose: () => void }) {
  const [reason, setReason] = useState("");
  const [deleteSeconds, setDeleteSeconds] = useState(0);
  return (
    <ConfirmDialog
      title={`Ban ${member.username}?`}
      confirm="Ban"
      onClose={onClose}
      onConfirm={async () => {
        const body = { targetUserId: member.user_id, ...(reason.trim() ? { reason: reason.trim() } : {}), ...(deleteSeconds ? { delete_message_seconds: deleteSeconds } : {}) };
        await rest.request("banMember", { params: { id: serverId }, body });
        state.members.left(member.user_id);
      }}
    >
      <p>They leave {serverName} at once and cannot come back until someone unbans them.</p>
      <ReasonField rows={3} value={reason} onInput={setReason} />
      <fieldset class="duration-picker">
        <legend>Delete their messages</legend>
        {DELETE_MESSAGE_CHOICES.map((choice) => (
          <label key={choice.seconds} class={`duration${deleteSeconds === choice.seconds ? " checked" : ""}`}>
            <input type="radio" name="ban-delete-messages" value={choice.seconds} checked={deleteSeconds === choice.seconds} onChange={() => setDeleteSeconds(choice.seconds)} />
            {choice.label}
          </label>
        ))}
      </fieldset>
    </ConfirmDialog>
  );
}

function TimeoutDialog({ serverId, member, state, onClose }: { serverId: string; member: Member; state: SectionProps["state"]; onClose: () => void }) {
  const [duration, setDuration] = useState(TIMEOUT_CHOICES[2]!.seconds);
  const [reason, setReason] = useState("");
  return (
    <ConfirmDialog
      title={`Time out ${member.username}`}
      confirm="Time out"
      danger={false}
      onClose={onClose}
      onConfirm={async () => {
        const answer = await rest.request("timeoutMember", { params: { id: serverId }, body: reason.trim() ? { targetUserId: member.user_id, duration, reason: reason.trim() } : { targetUserId: member.user_id, duration } });
        state.members.setTimeoutUntil(answer.userId, answer.expiresAt);
      }}
    >
      <p class="muted">While timed out they can read but cannot send messages, react or speak.</p>
      <fieldset class="duration-picker">
        <legend>Duration</legend>
        {TIMEOUT_CHOICES.map((choice) => (
          <label key={choice.seconds} class={`duration${duration === choice.seconds ? " checked" : ""}`}>
            <input type="radio" name="timeout-duration" value={choice.seconds} checked={duration === choice.seconds} onChange={() => setDuration(choice.seconds)} />
            {choice.label}
          </label>
        ))}
      </fieldset>
      <ReasonField rows={2} value={reason} onInput={setReason} />
    </ConfirmDialog>
  );
}

function ReasonField({ rows, value, onInput }: { rows: number; value: string; onInput: (value: string) => void }) {
  return (
    <label class="field">
      <span>Reason (optional)</span>
      <textarea rows={rows} maxLength={LIMITS.moderation.reasonLength} value={value} onInput={(e) => onInput(e.currentTarget.value)} />
    </label>
  );
}
