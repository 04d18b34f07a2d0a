/**
 * Channel permissions: the overrides of a channel or a category, per role, as allow / neutral /
 * deny for every bit. Reading needs MANAGE_ROLES or MANAGE_CHANNELS, changing MANAGE_ROLES and
 * only bits the reader holds (docs/channels.md). `channel:permissions-updated` and
 * `category:permissions-updated` keep it current.
 */
import { useEffect, useState } from "preact/hooks";
import { listOverrides, resetOverride, setOverride, type OverrideTarget } from "./override-requests.ts";
import type { PermissionOverride, Role } from "../../lib/wire-types.ts";
import { ConfirmDialog } from "../../components/confirm-dialog.tsx";
import { ErrorAlert } from "../../components/error-alert.tsx";
import { Icon } from "../../components/icons.tsx";
import { OverrideGrid } from "../../components/permission-checkboxes.tsx";
import { channelTree } from "../../lib/channel-tree.ts";
import { permissionNames, PERMISSION_LABELS } from "../../lib/shared-rules.ts";
import { gateway, rest } from "../../state/app-state.ts";
import type { SectionProps } from "./context.ts";
import { useAction, useLoad } from "../../components/use-async.ts";

type Target = OverrideTarget & { name: string };

export function ChannelPermissionsSection(props: SectionProps) {
  const { state } = props;
  const channels = state.channels.value ?? [];
  const groups = channelTree(channels, state.categories.value);
  const [target, setTarget] = useState<Target | null>(null);
  const first = groups[0]?.channels[0];
  const current = target ?? (first ? { kind: "channel" as const, id: first.id, name: first.name } : null);
  // A target that was deleted is dropped.
  const exists = current && (current.kind === "channel" ? channels.some((c) => c.id === current.id) : state.categories.value.some((c) => c.id === current.id));
  const shown = exists ? current : null;
  const pick = (next: Target) => setTarget(next);
  return (
    <div class="roles-layout">
      <nav class="role-column" aria-label="Channels and categories">
        <p class="hint">Pick a channel or a category. A category's overrides apply to its channels; a channel's own come after them.</p>
        {groups.length === 0 && <p class="empty">There are no channels yet.</p>}
        <ul class="target-list">
          {groups.map((group) => (
            <li key={group.category?.id ?? "none"}>
              {group.category && (
                <button
                  type="button"
                  class="target category-target"
                  aria-current={shown?.id === group.category.id ? "true" : undefined}
                  onClick={() => pick({ kind: "category", id: group.category!.id, name: group.category!.name })}
                >
                  {group.category.name}
                  <span class="sr-only"> (category)</span>
                </button>
              )}
              <ul>
                {group.channels.map((channel) => (
                  <li key={channel.id}>
                    <button
                      type="button"
                      class={`target${group.category ? " nested" : ""}`}
                      aria-current={shown?.id === channel.id ? "true" : undefined}
                      onClick={() => pick({ kind: "channel", id: channel.id, name: channel.name })}
                    >
                      <Icon name={channel.type === "voice" ? "speaker" : "hash"} size={15} />
                      {channel.name}
                    </button>
                  </li>
                ))}
              </ul>
            </li>
          ))}
        </ul>
      </nav>
      {shown && <OverridesEditor key={`${shown.kind}:${shown.id}`} target={shown} {...props} />}
    </div>
  );
}

function OverridesEditor({ target, server, state, access }: SectionProps & { target: Target }) {
  const roles = state.roles.value;
  const overrides = useLoad(() => listOverrides(rest, target), [target.kind, target.id]);
  const [roleId, setRoleId] = useState<string | null>(null);
  const [adding, setAdding] = useState("");

  // Live: someone else's change to this channel's or category's overrides.
  useEffect(() => {
    const apply = (p: { roleId: string } & ({ allow: number; deny: number } | { reset: true })) =>
      overrides.set((list) => {
        const others = list.filter((o) => o.role_id !== p.roleId);
        return "reset" in p ? others : [...others, { role_id: p.roleId, allow: p.allow, deny: p.deny }];
      });
    return target.kind === "channel"
      ? gateway.on("channel:permissions-updated", (p) => p.channelId === target.id && apply(p))
      : gateway.on("category:permissions-updated", (p) => p.categoryId === target.id && apply(p));
  }, [target.kind, target.id]);

  const list = overrides.data ?? [];
  const ordered = roles.filter((r) => list.some((o) => o.role_id === r.id)).sort((a, b) => b.position - a.position);
  const others = roles.filter((r) => !list.some((o) => o.role_id === r.id)).sort((a, b) => b.position - a.position);
  const selected = roles.find((r) => r.id === roleId) ?? ordered[0] ?? null;
  const label = target.kind === "channel" ? `#${target.name}` : `the category ${target.name}`;
  const canManage = access.has("MANAGE_ROLES");
  return (
    <section class="role-editor" aria-labelledby="overrides-title">
      <h2 id="overrides-title">Permissions of {target.kind === "channel" ? <span class="role-title">#{target.name}</span> : <span class="role-title">{target.name}</span>}</h2>
      {!canManage && <p class="notice">You can read these overrides; changing them needs Manage Roles.</p>}
      <ErrorAlert message={overrides.error} />
      {overrides.data === null && !overrides.error && <p class="muted" role="status">Loading overrides…</p>}
      {overrides.data && (
        <>
          <div class="override-roles" role="group" aria-label="Roles with overrides">
            {ordered.length === 0 && <p class="empty">No overrides: every role has its server-wide permissions in {label}.</p>}
            {ordered.map((role) => (
              <button key={role.id} type="button" class="chip" aria-pressed={selected?.id === role.id} onClick={() => setRoleId(role.id)}>
                <span class="role-dot" style={{ background: role.color }} aria-hidden="true" />
                {role.name}
              </button>
            ))}
          </div>
          {canManage && others.length > 0 && (
            <form
              class="inline-form"
              onSubmit={(event) => {
                event.preventDefault();
                if (!adding) return;
                // A new override starts neutral; saving it sends {allow: 0, deny: 0} only when asked.
                overrides.set((l) => [...l, { role_id: adding, allow: 0, deny: 0 }]);
                setRoleId(adding);
                setAdding("");
              }}
            >
              <label class="field grow">
                <span>Add an override for a role</span>
                <select value={adding} onChange={(e) => setAdding(e.currentTarget.value)}>
                  <option value="">Choose a role…</option>
                  {others.map((r) => (
                    <option key={r.id} value={r.id}>
                      {r.name}
                    </option>
                  ))}
                </select>
              </label>
              <button type="submit" class="secondary" disabled={!adding}>
                Add
              </button>
            </form>
          )}
          {selected && (
            <OverrideForm
              key={selected.id}
              target={target}
              role={selected}
              override={list.find((o) => o.role_id === selected.id) ?? { role_id: selected.id, allow: 0, deny: 0 }}
              access={access}
              serverId={server.id}
              onSaved={(saved) => overrides.set((l) => [...l.filter((o) => o.role_id !== saved.role_id), saved])}
              onRemoved={() => {
                overrides.set((l) => l.filter((o) => o.role_id !== selected.id));
                setRoleId(null);
              }}
            />
          )}
        </>
      )}
    </section>
  );
}

function OverrideForm({ target, role, override, access, onSaved, onRemoved }: {
  target: Target;
  role: Role;
  override: PermissionOverride;
  access: SectionProps["access"];
  serverId: string;
  onSaved: (override: PermissionOverride) => void;
  onRemoved: () => void;
}) {
  const [draft, setDraft] = useState({ allow: override.allow, deny: override.deny });
  const [touched, setTouched] = useState(false);
  const [removing, setRemoving] = useState(false);
  const save = useAction();
  useEffect(() => {
    if (!touched) setDraft({ allow: override.allow, deny: override.deny });
  }, [override.allow, override.deny]);
  const canManage = access.has("MANAGE_ROLES");
  // The server refuses an override holding a bit the reader lacks, even one they did not touch.
  const foreign = access.isAdmin ? 0 : (override.allow | override.deny) & ~access.bits;
  const editable = canManage && foreign === 0;
  const dirty = draft.allow !== override.allow || draft.deny !== override.deny;
  return (
    <form
      class="form"
      aria-label={`Overrides of ${role.name}`}
      onSubmit={async (event) => {
        event.preventDefault();
        const ok = await save.run(async () => onSaved(await setOverride(rest, target, role.id, draft.allow, draft.deny)));
        if (ok) setTouched(false);
      }}
    >
      <h3 class="subhead">
        {role.name} in {target.kind === "channel" ? `#${target.name}` : target.name}
      </h3>
      {foreign !== 0 && (
        <p class="notice">
          This override sets permissions you do not hold ({permissionNames(foreign).map((n) => PERMISSION_LABELS[n]).join(", ")}), so only an administrator can change it.
        </p>
      )}
      <OverrideGrid
        allow={draft.allow}
        deny={draft.deny}
        disabled={!editable}
        lockedReason={access.notHeld}
        onChange={(next) => {
          setDraft(next);
          setTouched(true);
        }}
      />
      {canManage && (
        <div class="actions sticky-actions">
          <ErrorAlert message={save.error} />
          <span class="muted small" role="status">
            {dirty ? "Unsaved changes" : ""}
          </span>
          <button type="button" class="danger" onClick={() => setRemoving(true)}>
            Remove override
          </button>
          <button type="submit" class="primary" disabled={!editable || !dirty || save.busy}>
            Save override
          </button>
        </div>
      )}
      {removing && (
        <ConfirmDialog
          title={`Remove the override of ${role.name}?`}
          confirm="Remove override"
          onClose={() => setRemoving(false)}
          onConfirm={async () => {
            await resetOverride(rest, target, role.id);
            onRemoved();
          }}
        >
          <p>{role.name} gets its server-wide permissions here again.</p>
        </ConfirmDialog>
      )}
    </form>
  );
}
