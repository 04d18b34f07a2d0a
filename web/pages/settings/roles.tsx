/**
 * Roles (MANAGE_ROLES): the list, highest first, reordered by dragging or by the keyboard
 * (focus a role's handle, Space to pick it up, the arrow keys to move, Space to drop, Escape
 * to cancel); creating a role; and the selected role's editor (./role-editor.tsx).
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { useLocation } from "preact-iso/router";
import type { Role } from "../../lib/wire-types.ts";
import { ErrorAlert } from "../../components/error-alert.tsx";
import { rest } from "../../state/app-state.ts";
import type { SectionProps } from "./context.ts";
import { useAction } from "../../components/use-async.ts";
import { RoleEditor } from "./role-editor.tsx";
import { allowedIndexes, customRolesHighestFirst, moveTo, positionAt } from "./role-order.ts";

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
  const [draftOrder, setDraftOrder] = useState<string[] | null>(null);
  const [grabbed, setGrabbed] = useState<string | null>(null);
  const [announcement, setAnnouncement] = useState("");
  const dragging = useRef<string | null>(null);
  const handles = useRef(new Map<string, HTMLButtonElement>());
  const move = useAction();
  const create = useAction();

  const byId = new Map(roles.map((r) => [r.id, r]));
  // A live change (another manager, a bot joining) shows at once unless a move is under way.
  const ids = draftOrder && draftOrder.length === custom.length && draftOrder.every((id) => byId.has(id)) ? draftOrder : custom.map((r) => r.id);
  const count = ids.length;
  const selected = (selectedId && byId.get(selectedId)) || custom[0] || everyone;

  // A moved element loses the focus in the DOM; the picked-up role's handle keeps it.
  useEffect(() => {
    if (grabbed) handles.current.get(grabbed)?.focus();
  }, [ids.join(","), grabbed]);

  const rangeOf = (role: Role) => allowedIndexes(role, count, access.highest, access.isAdmin);
  const movable = (role: Role) => access.canEditRole(role) && rangeOf(role) !== null;

  async function commit(id: string, order: string[]) {
    const role = byId.get(id);
    const index = order.indexOf(id);
    const position = positionAt(index, order.length);
    if (!role || role.position === position) {
      setDraftOrder(null);
      if (role) setAnnouncement(`${role.name} stays at position ${index + 1} of ${order.length}.`);
      return;
    }
    const ok = await move.run(async () => {
      state.setRoles(await rest.request("reorderRoles", { params: { serverId: server.id }, body: [{ id, position }] }));
    });
    setDraftOrder(null);
    setAnnouncement(ok ? `${role.name} moved to position ${index + 1} of ${order.length}.` : `${role.name} could not be moved.`);
  }

  function onHandleKey(event: KeyboardEvent, role: Role) {
    const range = rangeOf(role);
    if (!range) return;
    const index = ids.indexOf(role.id);
    if (event.key === " " || event.key === "Enter") {
      event.preventDefault();
      if (grabbed === role.id) {
        setGrabbed(null);
        void commit(role.id, ids);
      } else {
        move.reset();
        setGrabbed(role.id);
        setDraftOrder(ids);
        setAnnouncement(
          `${role.name} picked up, position ${index + 1} of ${count}. Press the up and down arrow keys to move it, Space to drop it, Escape to cancel.`,
        );
      }
    } else if (grabbed === role.id && (event.key === "ArrowUp" || event.key === "ArrowDown")) {
      event.preventDefault();
      const next = Math.max(range.first, Math.min(range.last, index + (event.key === "ArrowUp" ? -1 : 1)));
      if (next !== index) setDraftOrder(moveTo(ids, role.id, next));
      setAnnouncement(next === index ? `${role.name} cannot move further.` : `${role.name}, position ${next + 1} of ${count}.`);
    } else if (grabbed === role.id && event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      setGrabbed(null);
      setDraftOrder(null);
      setAnnouncement(`Move cancelled. ${role.name} is back where it was.`);
    }
  }

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
                class={`role-row${grabbed === id ? " grabbed" : ""}${selected?.id === id ? " selected" : ""}`}
                draggable={canMove}
                onDragStart={(e) => {
                  dragging.current = id;
                  setDraftOrder(ids);
                  move.reset();
                  e.dataTransfer?.setData("text/plain", role.name);
                  if (e.dataTransfer) e.dataTransfer.effectAllowed = "move";
                }}
                onDragOver={(e) => {
                  const from = dragging.current;
                  const dragged = from ? byId.get(from) : undefined;
                  const range = dragged ? rangeOf(dragged) : null;
                  const target = ids.indexOf(id);
                  if (!from || !range || target < range.first || target > range.last) return;
                  e.preventDefault();
                  if (ids.indexOf(from) !== target) setDraftOrder(moveTo(ids, from, target));
                }}
                onDrop={(e) => {
                  e.preventDefault();
                  const from = dragging.current;
                  dragging.current = null;
                  if (from) void commit(from, ids);
                }}
                onDragEnd={() => {
                  if (dragging.current) {
                    dragging.current = null;
                    setDraftOrder(null);
                  }
                }}
              >
                {canMove ? (
                  <button
                    type="button"
                    class="drag-handle"
                    ref={(el) => {
                      if (el) handles.current.set(id, el);
                      else handles.current.delete(id);
                    }}
                    aria-label={`Move ${role.name}`}
                    aria-describedby="reorder-help"
                    aria-pressed={grabbed === id}
                    onKeyDown={(e) => onHandleKey(e, role)}
                    onBlur={() => {
                      // Tabbing away while a role is picked up puts it back.
                      setTimeout(() => {
                        if (grabbed === id && document.activeElement !== handles.current.get(id)) {
                          setGrabbed(null);
                          setDraftOrder(null);
                        }
                      }, 0);
                    }}
                  >
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
          {announcement}
        </p>
      </section>
      {selected && <RoleEditor key={selected.id} role={selected} {...props} onDeleted={() => setSelectedId(null)} />}
    </div>
  );
}
