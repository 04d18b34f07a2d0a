/**
 * Permission bits as controls, in the groups of PERMISSION_GROUPS: one labelled checkbox per bit
 * (`PermissionCheckboxes`: a role's permissions, a bot's default or invite permissions) and one
 * Deny / Neutral / Allow radio group per bit (`OverrideGrid`: a channel override). Each control
 * is named by the bit's label alone ("Send Messages"); what the bit allows (`hints`) and why the
 * reader may not change it describe it. A bit the reader may not change is shown but disabled.
 */
import type { ComponentChildren } from "preact";
import { useId } from "preact/hooks";
import { overrideStateOf, PERMISSION_GROUPS, PERMISSION_HINTS, permissionLabel, withOverrideState, withPermission, type OverrideState } from "../lib/permission-groups.ts";
import { PERMISSIONS, type PermissionName } from "../lib/shared-rules.ts";
import "./permission-checkboxes.css";

/** Why the reader may not change `bit` (docs/roles.md: nobody grants what they do not hold), or null when they may. */
type LockedReason = (bit: number) => string | null;

/** The groups as fieldsets, each bit's control drawn by `control`. */
function PermissionGroups({ control }: { control: (name: PermissionName, bit: number) => ComponentChildren }) {
  return (
    <div class="permission-groups">
      {PERMISSION_GROUPS.map((group) => (
        <fieldset key={group.key} class={`permission-group permission-group-${group.key}`}>
          <legend>{group.title}</legend>
          {group.names.map((name) => control(name, PERMISSIONS[name]))}
        </fieldset>
      ))}
    </div>
  );
}

/** The sentence that describes a bit's control: what it allows, and why it is locked. */
function hintOf(name: PermissionName, hints: boolean, reason: string | null): string | null {
  const parts = [hints ? PERMISSION_HINTS[name] : null, reason].filter((part) => part !== null);
  return parts.length ? parts.join(" ") : null;
}

/**
 * One checkbox per bit. Controlled: `value` in, `onChange` out. `disabled` shows the bits without
 * letting them change (a locked bot invite); `lockedReason` disables single bits, saying why.
 */
export function PermissionCheckboxes({
  legend,
  value,
  onChange,
  disabled = false,
  lockedReason,
  hints = false,
  bitfield = false,
  note,
}: {
  /** The name of the whole set, said before the groups ("Default permissions"). */
  legend: string;
  value: number;
  onChange?: (bits: number) => void;
  disabled?: boolean;
  lockedReason?: LockedReason;
  /** Each bit with its sentence on what it allows (role settings). */
  hints?: boolean;
  /** The bitfield under the boxes ("Permissions integer: 2048"), for those who write invite links by hand. */
  bitfield?: boolean;
  /** Shown under the legend (why the boxes are locked, what the bits are for). */
  note?: ComponentChildren;
}) {
  const id = useId();
  return (
    <fieldset class={hints ? "permission-checkboxes with-hints" : "permission-checkboxes"} disabled={disabled}>
      <legend>{legend}</legend>
      {note && <div class="permission-note">{note}</div>}
      <PermissionGroups
        control={(name, bit) => {
          const boxId = `${id}-${name}`;
          const reason = lockedReason?.(bit) ?? null;
          const hint = hintOf(name, hints, reason);
          return (
            <div key={name} class={reason ? "permission-check locked" : "permission-check"}>
              <input
                id={boxId}
                type="checkbox"
                checked={(value & bit) !== 0}
                disabled={reason !== null}
                aria-describedby={hint ? `${boxId}-hint` : undefined}
                onChange={(e) => onChange?.(withPermission(value, name, e.currentTarget.checked))}
              />
              <label for={boxId}>{permissionLabel(name)}</label>
              {hint && (
                <p id={`${boxId}-hint`} class="permission-hint">
                  {hint}
                </p>
              )}
            </div>
          );
        }}
      />
      {/* With hints, Administrator's own sentence says this. */}
      {!hints && (value & PERMISSIONS.ADMINISTRATOR) !== 0 && <p class="notice small">Administrator gives every permission in every channel, whatever else is checked.</p>}
      {bitfield && (
        <p class="muted small permission-bitfield">
          Permissions integer: <code>{value}</code>
        </p>
      )}
    </fieldset>
  );
}

const STATES: { state: OverrideState; label: string; mark: string }[] = [
  { state: "deny", label: "Deny", mark: "✕" },
  { state: "neutral", label: "Neutral", mark: "/" },
  { state: "allow", label: "Allow", mark: "✓" },
];

/** A channel override: one radio group per bit, Deny, Neutral (inherit) or Allow, each with its hint. */
export function OverrideGrid({ allow, deny, onChange, disabled = false, lockedReason }: {
  allow: number;
  deny: number;
  onChange: (next: { allow: number; deny: number }) => void;
  /** Every bit read only (the reason is said elsewhere). */
  disabled?: boolean;
  lockedReason?: LockedReason;
}) {
  const id = useId();
  return (
    <PermissionGroups
      control={(name, bit) => {
        const rowId = `${id}-${name}`;
        const current = overrideStateOf(bit, allow, deny);
        const reason = lockedReason?.(bit) ?? null;
        return (
          <div key={name} class="override-row">
            <span id={`${rowId}-label`} class="override-label">
              {permissionLabel(name)}
            </span>
            <div class="tri-state" role="radiogroup" aria-labelledby={`${rowId}-label`} aria-describedby={`${rowId}-hint`}>
              {STATES.map(({ state, label, mark }) => (
                <label key={state} class={`tri ${state}${current === state ? " checked" : ""}`} title={label}>
                  <input
                    type="radio"
                    name={rowId}
                    value={state}
                    checked={current === state}
                    disabled={disabled || reason !== null}
                    onChange={() => onChange(withOverrideState(bit, state, allow, deny))}
                  />
                  <span aria-hidden="true">{mark}</span>
                  <span class="sr-only">{label}</span>
                </label>
              ))}
            </div>
            <p id={`${rowId}-hint`} class="permission-hint">
              {hintOf(name, true, reason)}
            </p>
          </div>
        );
      }}
    />
  );
}
