/**
 * One labelled checkbox per permission bit, grouped (General, Text, Voice), each named
 * by its label ("Send Messages"), with the bitfield shown. Controlled: `value` in, `onChange`
 * out. `disabled` shows the bits without letting them change (a locked bot invite).
 */
import type { ComponentChildren } from "preact";
import { PERMISSION_GROUPS, permissionLabel, withPermission } from "../lib/permission-groups.ts";
import { PERMISSIONS } from "../lib/shared-rules.ts";
import "./permission-checkboxes.css";

export function PermissionCheckboxes({
  legend,
  value,
  onChange,
  disabled = false,
  showBitfield = true,
  note,
}: {
  /** The name of the whole set, said before the groups ("Default permissions"). */
  legend: string;
  value: number;
  onChange?: (bits: number) => void;
  disabled?: boolean;
  showBitfield?: boolean;
  /** Shown under the legend (why the boxes are locked, what the bits are for). */
  note?: ComponentChildren;
}) {
  const administrator = (value & PERMISSIONS.ADMINISTRATOR) !== 0;
  return (
    <fieldset class="permission-checkboxes" disabled={disabled}>
      <legend>{legend}</legend>
      {note && <div class="permission-note">{note}</div>}
      <div class="permission-groups">
        {PERMISSION_GROUPS.map((group) => (
          <fieldset key={group.key} class={`permission-group ${group.key}`}>
            <legend>{group.title}</legend>
            {group.names.map((name) => (
              <label key={name} class="check permission-check">
                <input
                  type="checkbox"
                  checked={(value & PERMISSIONS[name]) !== 0}
                  onChange={(e) => onChange?.(withPermission(value, name, e.currentTarget.checked))}
                />
                <span>{permissionLabel(name)}</span>
              </label>
            ))}
          </fieldset>
        ))}
      </div>
      {administrator && <p class="notice small">Administrator gives every permission in every channel, whatever else is checked.</p>}
      {showBitfield && (
        <p class="muted small permission-bitfield">
          Permissions integer: <code>{value}</code>
        </p>
      )}
    </fieldset>
  );
}
