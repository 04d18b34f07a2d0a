/**
 * One role's editor: name, color, hoist and permissions (labelled checkboxes), deleting it, and
 * the members who hold it (assign and unassign). Controls the reader may not use are shown
 * disabled with the reason, following docs/roles.md "Who may manage roles".
 */
import { useEffect, useState } from "preact/hooks";
import type { Member, Role } from "../../lib/wire-types.ts";
import { ConfirmDialog } from "../../components/confirm-dialog.tsx";
import { Avatar } from "../../components/avatar.tsx";
import { ErrorAlert } from "../../components/error-alert.tsx";
import { PermissionCheckboxes } from "../../components/permission-checkboxes.tsx";
import { LIMITS } from "../../lib/shared-rules.ts";
import { rest } from "../../state/app-state.ts";
import type { SectionProps } from "./context.ts";
import { useAction } from "../../components/use-async.ts";
import { useMemberSearch } from "../../components/use-member-search.ts";

interface Fields {
  name: string;
  color: string;
  hoist: boolean;
  permissions: number;
}

const fieldsOf = (role: Role): Fields => ({ name: role.name, color: role.color, hoist: role.hoist, permissions: role.permissions });

export function RoleEditor({ role, server, state, access, onDeleted }: SectionProps & { role: Role; onDeleted: () => void }) {
  const members = state.members.members.value ?? [];
  const canEdit = access.canEditRole(role);
  const [draft, setDraft] = useState<Fields>(fieldsOf(role));
  const [touched, setTouched] = useState(false);
  const [saved, setSaved] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const save = useAction();
  // Someone else's change shows at once while the reader has not started editing.
  useEffect(() => {
    if (!touched) setDraft(fieldsOf(role));
  }, [role.name, role.color, role.hoist, role.permissions]);
  const edit = (changes: Partial<Fields>) => {
    setDraft({ ...draft, ...changes });
    setTouched(true);
    setSaved(false);
  };
  const bot = role.managed_bot_id ? state.members.lookup(role.managed_bot_id) : undefined;
  const reason = canEdit
    ? null
    : role.managed_bot_id && !access.isAdmin
      ? `This is the managed role of ${bot?.username ?? "a bot"}: only server admins and the owner can change it.`
      : "This role is at or above your highest role, so you cannot change it.";
  const changes: Partial<Fields> = {};
  for (const key of ["name", "color", "hoist", "permissions"] as const) {
    if (key === "name" ? draft.name.trim() !== role.name : draft[key] !== role[key]) (changes as Record<string, unknown>)[key] = key === "name" ? draft.name.trim() : draft[key];
  }
  const dirty = Object.keys(changes).length > 0;
  const isEveryone = role.is_default === 1;
  const prefix = `role-${role.id}`;
  return (
    <section class="role-editor" aria-labelledby={`${prefix}-title`}>
      <h2 id={`${prefix}-title`}>
        Edit role <span class="role-title">{role.name}</span>
      </h2>
      {reason && <p class="notice">{reason}</p>}
      <form
        class="form"
        onSubmit={async (event) => {
          event.preventDefault();
          const ok = await save.run(async () => state.upsertRole(await rest.request("updateRole", { params: { serverId: server.id, roleId: role.id }, body: changes })));
          if (ok) {
            setTouched(false);
            setSaved(true);
          }
        }}
      >
        <fieldset class="plain" disabled={!canEdit}>
          <div class="field-row">
            <label class="field grow">
              <span>Role name</span>
              <input
                value={draft.name}
                required
                maxLength={LIMITS.role.nameLength}
                disabled={isEveryone}
                aria-describedby={isEveryone ? `${prefix}-everyone` : undefined}
                onInput={(e) => edit({ name: e.currentTarget.value })}
              />
            </label>
            <label class="field">
              <span>Color</span>
              <input type="color" class="color-input" value={draft.color.toLowerCase()} onInput={(e) => edit({ color: e.currentTarget.value.toUpperCase() })} />
            </label>
          </div>
          {isEveryone && (
            <p id={`${prefix}-everyone`} class="hint">
              Every member holds @everyone; its name cannot change, its permissions are everyone's starting point.
            </p>
          )}
          <div class="check">
            <input id={`${prefix}-hoist`} type="checkbox" checked={draft.hoist} onChange={(e) => edit({ hoist: e.currentTarget.checked })} />
            <label for={`${prefix}-hoist`}>Show members with this role separately in the member list</label>
          </div>
          <PermissionCheckboxes
            legend="Permissions"
            note={access.isAdmin ? undefined : "You can turn on or off only the permissions you hold yourself."}
            value={draft.permissions}
            hints
            lockedReason={access.notHeld}
            onChange={(permissions) => edit({ permissions })}
          />
        </fieldset>
        {canEdit && (
          <div class="actions sticky-actions">
            <ErrorAlert message={save.error} />
            <span class="muted small" role="status">
              {dirty ? "Unsaved changes" : saved ? "Saved." : ""}
            </span>
            {!isEveryone && (
              <button type="button" class="danger" onClick={() => setDeleting(true)}>
                Delete role
              </button>
            )}
            <button
              type="button"
              class="secondary"
              disabled={!dirty}
              onClick={() => {
                setDraft(fieldsOf(role));
                setTouched(false);
                save.reset();
              }}
            >
              Reset
            </button>
            <button type="submit" class="primary" disabled={!dirty || save.busy}>
              Save changes
            </button>
          </div>
        )}
      </form>
      {!isEveryone && <RoleHolders role={role} {...{ server, state, access }} members={members} bot={bot} />}
      {deleting && (
        <ConfirmDialog
          title={`Delete the role ${role.name}?`}
          confirm="Delete role"
          onClose={() => setDeleting(false)}
          onConfirm={async () => {
            await rest.request("deleteRole", { params: { serverId: server.id, roleId: role.id } });
            state.removeRole(role.id);
            onDeleted();
          }}
        >
          <p>Members who hold it lose it and the permissions it gave them. This cannot be undone.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

/** Who holds the role, with Remove for each and a picker to give it to someone else. */
function RoleHolders({ role, server, state, access, members, bot }: Pick<SectionProps, "server" | "state" | "access"> & { role: Role; members: readonly Member[]; bot: Member | undefined }) {
  const [adding, setAdding] = useState("");
  const [find, setFind] = useState("");
  const action = useAction();
  // A large server's list is what the app knows: "Find a member" asks the server for the others.
  const complete = state.members.complete.value;
  const found = useMemberSearch(complete ? null : state.members, find.trim() || null, { limit: Infinity, substring: true });
  const holders = members.filter((m) => m.roles.includes(role.id)).sort((a, b) => a.username.localeCompare(b.username));
  const pool = !complete && find.trim() ? found.results : members;
  const candidates = pool.filter((m) => !m.roles.includes(role.id) && access.canAssignRole(role, m)).sort((a, b) => a.username.localeCompare(b.username));
  const prefix = `role-${role.id}-holders`;
  return (
    <section class="role-holders" aria-labelledby={prefix}>
      <h3 id={prefix} class="subhead">
        Members with this role ({holders.length}
        {complete ? "" : "+"})
      </h3>
      {role.managed_bot_id && <p class="hint">Only {bot?.username ?? "its bot"} can hold a bot's managed role.</p>}
      {holders.length === 0 ? (
        <p class="empty">{complete ? "Nobody holds this role yet." : "None of the members loaded holds this role."}</p>
      ) : (
        <ul class="settings-list compact">
          {holders.map((member) => (
            <li key={member.user_id} class="settings-row">
              <Avatar name={member.username} src={member.avatar} size={28} />
              <span class="row-name">{member.username}</span>
              {member.is_bot === 1 && <span class="badge bot">BOT</span>}
              {access.canAssignRole(role, member) && (
                <button
                  type="button"
                  class="secondary small"
                  aria-label={`Remove ${role.name} from ${member.username}`}
                  disabled={action.busy}
                  onClick={() => action.run(() => rest.request("unassignRole", { params: { serverId: server.id, targetUserId: member.user_id, roleId: role.id } }))}
                >
                  Remove
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {!complete && !role.managed_bot_id && (
        <label class="field">
          <span>Find a member</span>
          <input type="search" value={find} placeholder="Name" onInput={(e) => setFind(e.currentTarget.value)} />
        </label>
      )}
      {candidates.length > 0 && (
        <form
          class="inline-form"
          onSubmit={async (event) => {
            event.preventDefault();
            if (adding && (await action.run(() => rest.request("assignRole", { params: { serverId: server.id }, body: { targetUserId: adding, roleId: role.id } })))) setAdding("");
          }}
        >
          <label class="field grow">
            <span>Give this role to</span>
            <select value={adding} onChange={(e) => setAdding(e.currentTarget.value)}>
              <option value="">Choose a member…</option>
              {candidates.map((m) => (
                <option key={m.user_id} value={m.user_id}>
                  {m.username}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" class="primary" disabled={!adding || action.busy}>
            Add
          </button>
        </form>
      )}
      <ErrorAlert message={action.error} />
    </section>
  );
}
