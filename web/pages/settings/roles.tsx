/**
 * Roles (MANAGE_ROLES): the list, highest first, reordered by dragging or by the keyboard
 * (focus a role's handle, Space to pick it up, the arrow keys to move, Space to drop, Escape
 * to cancel); creating a role; and the selected role's editor (./role-editor.tsx).
 */
import { useState } from "preact/hooks";
import { useLocation } from "preact-iso/router";
import type { Role } from "../../lib/wire-types.ts";
import { ErrorAlert } from "../../components/error-alert.tsx";
import { rest } from "../../state/app-state.ts";
import type { SectionProps } from "./context.ts";
import { useAction } from "../../components/use-async.ts";
import { RoleEditor } from "./role-editor.tsx";
import { allowedIndexes, customRolesHighestFirst, positionAt } from "./role-order.ts";
import { moveTo, sameIds } from "../../lib/reorder.ts";
import { useReorder } from "../../components/use-reorder.ts";

export function RolesSection(props: SectionProps) {
  const { server, state, access } = props;
  const { query } = useLocation();
  const roles = state.roles.value;
  const members = state.members.members.value ?? [];
  // A large server's list is partial: the holders known are a lower bound ("3+").
  const complete = state.members.complete.value;
  const custom = customRolesHighestFirst(roles);
  const everyone = roles.find((r) => r.is_default === 1);
  const [selectedId, setSelectedId] = useState<string | null>(query.role ?? custom[0]?.id ?? everyone?.id ?? null);
  const move = useAction();
  const create = useAction();

  const byId = new Map(roles.map((r) => [r.id, r]));
  const count = custom.length;
  const rangeOf = (role: Role) => allowedIndexes(role, count, access.highest, access.isAdmin);
  const movable = (role: Role) => access.canEditRole(role) && rangeOf(role) !== null;

  const reorder = useReorder<string[]>({
    current: custom.map((r) => r.id),
    fits: (draft) => sameIds(draft, custom.map((r) => r.id)),
    step: (order, id, by) => {
      const role = byId.get(id);
      const range = role ? rangeOf(role) : null;
      const index = order.indexOf(id);
      const next = index + by;
      return range && next >= range.first && next <= range.last ? moveTo(order, id, next) : null;
    },
    where: (order, id) => `position ${order.indexOf(id) + 1} of ${order.length}`,
    onStart: () => move.reset(),
    commit: async (id, order) => {
      const role = byId.get(id)!;
      const index = order.indexOf(id);
      const position = positionAt(index, order.length);
      if (role.position === position) return `${role.name} stays at position ${index + 1} of ${order.length}.`;
      const ok = await move.run(async () => {
        state.setRoles(await rest.request("reorderRoles", { params: { serverId: server.id }, body: [{ id, position }] }));
      });
      return ok ? `${role.name} moved to position ${index + 1} of ${order.length}.` : `${role.name} could not be moved.`;
    },
  });
  const ids = reorder.order;
  const selected = (selectedId && byId.get(selectedId)) || custom[0] || everyone;

  return (
    <div class="roles-layout">
      <section class="role-column" aria-labelledby="roles-list-title">
        <div class="section-head">
          <h2 id="roles-list-title">Role hierarchy</h2>
          <button
            type="button"
            class="primary small"
            disabled={create.busy}
            onClick={() =>
              create.run(async () => {
                const role = await rest.request("createRole", { params: { serverId: server.id }, body: { name: "new role" } });
                state.upsertRole(role);
                setSelectedId(role.id);
              })
            }
          >
            Create role
          </button>
        </div>
        <ErrorAlert message={create.error} />
        <p id="reorder-help" class="hint">
          Higher roles outrank lower ones. Drag a role by its handle to move it, or focus the handle, press Space, move it with the arrow
          keys and press Space again.
        </p>
        <ul class="role-list" aria-label="Roles, highest first">
          {ids.map((id) => {
            const role = byId.get(id)!;
            const canMove = movable(role);
            const held = members.filter((m) => m.roles.includes(role.id)).length;
            const counted = `${held} ${held === 1 ? "member" : "members"}`;
            // A partial list counts only the holders loaded: a lower bound, or nothing to say.
            const heldLabel = complete ? counted : held > 0 ? `at least ${counted}` : "";
            return (
              <li
                key={id}
                class={`role-row${reorder.grabbed === id ? " grabbed" : ""}${selected?.id === id ? " selected" : ""}`}
                draggable={canMove}
                onDragStart={(e) => reorder.dragStart(id, e, role.name)}
                onDragOver={(e) => {
                  const from = reorder.dragging();
                  const dragged = from ? byId.get(from) : undefined;
                  const range = dragged ? rangeOf(dragged) : null;
                  const target = ids.indexOf(id);
                  if (!from || !range || target < range.first || target > range.last) return;
                  e.preventDefault();
                  if (ids.indexOf(from) !== target) reorder.dragOver(moveTo(ids, from, target));
                }}
                onDrop={(e) => {
                  e.preventDefault();
                  reorder.drop();
                }}
                onDragEnd={reorder.dragEnd}
              >
                {canMove ? (
                  <button type="button" class="drag-handle" aria-describedby="reorder-help" {...reorder.handle(id, role.name)}>
                    <span aria-hidden="true">⠿</span>
                  </button>
                ) : (
                  <span class="drag-spacer" aria-hidden="true" />
                )}
                <button type="button" class="role-item" aria-current={selected?.id === id ? "true" : undefined} aria-describedby={`role-${id}-count`} onClick={() => setSelectedId(id)}>
                  <span class="role-dot" style={{ background: role.color }} aria-hidden="true" />
                  <span class="role-name">{role.name}</span>
                </button>
                <span id={`role-${id}-count`} class="role-count" title={heldLabel}>
                  {role.managed_bot_id && <span class="badge bot">BOT</span>} <span aria-hidden="true">{complete ? held : held > 0 ? `${held}+` : ""}</span>
                  <span class="sr-only">
                    {role.managed_bot_id ? "Bot's managed role, " : ""}
                    {heldLabel}
                  </span>
                </span>
              </li>
            );
          })}
          {everyone && (
            <li class={`role-row${selected?.id === everyone.id ? " selected" : ""}`}>
              <span class="drag-spacer" aria-hidden="true" />
              <button
                type="button"
                class="role-item"
                aria-current={selected?.id === everyone.id ? "true" : undefined}
                aria-describedby="role-everyone-hint"
                onClick={() => setSelectedId(everyone.id)}
              >
                <span class="role-dot" style={{ background: everyone.color }} aria-hidden="true" />
                <span class="role-name">{everyone.name}</span>
              </button>
              <span id="role-everyone-hint" class="role-count">
                <span class="sr-only">Every member, always at the bottom</span>
              </span>
            </li>
          )}
        </ul>
        {custom.length === 0 && <p class="empty">No roles yet besides @everyone. Create one to give some members more permissions.</p>}
        <ErrorAlert message={move.error} />
        <p class="sr-only" aria-live="assertive">
          {reorder.announcement}
        </p>
      </section>
      {selected && <RoleEditor key={selected.id} role={selected} {...props} onDeleted={() => setSelectedId(null)} />}
    </div>
  );
}
