/**
 * Bots in the server, each with its managed role (the role whose `managed_bot_id` is the bot,
 * docs/roles.md) and the permissions it gives. Only server admins and the owner change a bot's
 * role (in Roles); removing a bot is a kick (KICK_MEMBERS and rank). Adding a bot happens from
 * its invite card, not here.
 */
import { useState } from "preact/hooks";
import type { Member } from "../../lib/wire-types.ts";
import { ConfirmDialog } from "../../components/confirm-dialog.tsx";
import { Avatar } from "../../components/avatar.tsx";
import { permissionNames, PERMISSION_LABELS } from "../../lib/shared-rules.ts";
import { rest } from "../../state/app-state.ts";
import type { SectionProps } from "./context.ts";

export function BotsSection({ server, state, access }: SectionProps) {
  const [removing, setRemoving] = useState<Member | null>(null);
  const roles = state.roles.value;
  // Every bot has its managed role: in a large server, bots not known yet are looked up by it.
  const byId = new Map((state.members.members.value ?? []).filter((m) => m.is_bot === 1).map((m) => [m.user_id, m]));
  for (const role of roles) {
    const bot = role.managed_bot_id && !byId.has(role.managed_bot_id) ? state.members.lookup(role.managed_bot_id) : undefined;
    if (bot) byId.set(bot.user_id, bot);
  }
  const bots = [...byId.values()].sort((a, b) => a.username.localeCompare(b.username));
  return (
    <div class="settings-stack">
      <p class="muted">
        A bot joins with a role of its own, its managed role, which holds the permissions it was added with. Only server admins and the owner can
        change it; it cannot be given to anyone else.
      </p>
      {bots.length === 0 && <p class="empty">There are no bots in {server.name}. A server admin adds one from the bot's invite link.</p>}
      <ul class="settings-list" aria-label="Bots">
        {bots.map((bot) => {
          const managed = roles.find((r) => r.managed_bot_id === bot.user_id);
          const labels = managed ? permissionNames(managed.permissions).map((n) => PERMISSION_LABELS[n]) : [];
          return (
            <li key={bot.user_id} class="settings-row" aria-label={bot.username}>
              <Avatar name={bot.username} src={bot.avatar} size={40} />
              <div class="row-main">
                <div class="row-title">
                  <span class="row-name">{bot.username}</span>
                  <span class="badge bot">BOT</span>
                </div>
                {managed ? (
                  <div class="row-detail">
                    <span class="role-chip">
                      <span class="role-dot" style={{ background: managed.color }} aria-hidden="true" />
                      {managed.name}
                    </span>
                    <span class="muted small">{labels.length ? labels.join(", ") : "No permissions"}</span>
                  </div>
                ) : (
                  <div class="row-detail muted small">Its managed role was deleted: it has only what @everyone and its other roles give.</div>
                )}
              </div>
              <div class="row-actions">
                {managed && access.canEditRole(managed) && (
                  <a class="button small" href={`/servers/${server.id}/settings/roles?role=${managed.id}`} aria-label={`Edit role of ${bot.username}`}>
                    Edit role
                  </a>
                )}
                {access.canKick(bot) && (
                  <button type="button" class="danger small" aria-label={`Remove ${bot.username}`} onClick={() => setRemoving(bot)}>
                    Remove
                  </button>
                )}
              </div>
            </li>
          );
        })}
      </ul>
      {removing && (
        <ConfirmDialog
          title={`Remove ${removing.username} from ${server.name}?`}
          confirm="Remove bot"
          onClose={() => setRemoving(null)}
          onConfirm={async () => {
            await rest.request("kickMember", { params: { id: server.id, targetUserId: removing.user_id } });
            state.members.left(removing.user_id);
          }}
        >
          <p>Its managed role is kept, so it gets the same permissions if it is added again.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}
