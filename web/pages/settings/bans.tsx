/** Bans (BAN_MEMBERS): who is banned, why, since when and by whom, and Unban. `member:banned` adds to it live. */
import { useEffect } from "preact/hooks";
import { Avatar } from "../../components/avatar.tsx";
import { ErrorAlert } from "../../components/error-alert.tsx";
import { formatFullTime } from "../../lib/format.ts";
import { gateway, rest } from "../../state/app-state.ts";
import type { SectionProps } from "./context.ts";
import { useAction, useLoad } from "../../components/use-async.ts";

export function BansSection({ server, state }: SectionProps) {
  const bans = useLoad(() => rest.request("listBans", { params: { id: server.id } }), [server.id]);
  const action = useAction();
  useEffect(
    () =>
      gateway.on("member:banned", (p) => {
        if (p.serverId === server.id) void bans.reload();
      }),
    [server.id],
  );
  // Looked up when the app does not know them yet (a large server); "a former member" once known to be gone.
  const nameOf = (id: string | null) => (id ? (state.members.lookup(id)?.username ?? "a former member") : "someone");
  return (
    <div class="settings-stack">
      <ErrorAlert message={bans.error ?? action.error} />
      {bans.data === null && !bans.error && <p class="muted" role="status">Loading bans…</p>}
      {bans.data?.length === 0 && <p class="empty">Nobody is banned from {server.name}.</p>}
      {bans.data && bans.data.length > 0 && (
        <ul class="settings-list" aria-label="Banned users">
          {bans.data.map((ban) => (
            <li key={ban.user_id} class="settings-row" aria-label={ban.username}>
              <Avatar name={ban.username} src={ban.avatar} size={36} />
              <div class="row-main">
                <div class="row-title">
                  <span class="row-name">{ban.username}</span>
                </div>
                <div class="row-detail muted small">
                  Banned {formatFullTime(ban.created_at)} by {nameOf(ban.banned_by)}
                  {ban.reason ? ` · Reason: ${ban.reason}` : " · No reason given"}
                </div>
              </div>
              <div class="row-actions">
                <button
                  type="button"
                  class="secondary small"
                  aria-label={`Unban ${ban.username}`}
                  disabled={action.busy}
                  onClick={() =>
                    action.run(async () => {
                      await rest.request("unbanMember", { params: { id: server.id, targetUserId: ban.user_id } });
                      bans.set((list) => list.filter((b) => b.user_id !== ban.user_id));
                    })
                  }
                >
                  Unban
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
