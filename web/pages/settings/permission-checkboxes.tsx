/**
 * A role's permissions as labelled checkboxes, one per bit, named by its label in words
 * ("Send Messages", PERMISSION_LABELS) and grouped; and the allow / neutral / deny choice of a
 * channel override for each bit. A bit the reader may not change is shown but disabled.
 */
import { PERMISSION_LABELS, PERMISSIONS } from "../../lib/shared-rules.ts";
import { overrideStateOf, PERMISSION_GROUPS, PERMISSION_HINTS, withOverrideState, type OverrideState } from "./permission-groups.ts";

export function PermissionCheckboxes({ idPrefix, value, onChange, canChange }: {
  idPrefix: string;
  value: number;
  onChange: (bits: number) => void;
  /** Whether the reader may change this bit (docs/roles.md: nobody grants what they do not hold). */
  canChange: (bit: number) => boolean;
}) {
  return (
    <div class="permission-groups">
      {PERMISSION_GROUPS.map((group) => (
        <fieldset key={group.title} class="permission-group">
          <legend>{group.title}</legend>
          {group.names.map((name) => {
            const bit = PERMISSIONS[name];
            const id = `${idPrefix}-${name}`;
            return (
              <div key={name} class="permission">
                <input
                  id={id}
                  type="checkbox"
                  checked={(value & bit) !== 0}
                  disabled={!canChange(bit)}
                  aria-describedby={`${id}-hint`}
                  onChange={(e) => onChange(e.currentTarget.checked ? value | bit : value & ~bit)}
                />
                <label for={id}>{PERMISSION_LABELS[name]}</label>
                <p id={`${id}-hint`} class="permission-hint">
                  {PERMISSION_HINTS[name]}
                  {!canChange(bit) && " You do not hold it, so you cannot change it."}
                </p>
              </div>
            );
          })}
        </fieldset>
      ))}
    </div>
  );
}

const STATES: { state: OverrideState; label: string; mark: string }[] = [
  { state: "deny", label: "Deny", mark: "✕" },
  { state: "neutral", label: "Neutral", mark: "/" },
  { state: "allow", label: "Allow", mark: "✓" },
];

/** One radio group per bit: Deny, Neutral (inherit) or Allow. */
export function OverrideGrid({ idPrefix, allow, deny, onChange, canChange }: {
  idPrefix: string;
  allow: number;
  deny: number;
  onChange: (next: { allow: number; deny: number }) => void;
  canChange: (bit: number) => boolean;
}) {
  return (
    <div class="permission-groups">
      {PERMISSION_GROUPS.map((group) => (
        <fieldset key={group.title} class="permission-group">
          <legend>{group.title}</legend>
          {group.names.map((name) => {
            const bit = PERMISSIONS[name];
            const id = `${idPrefix}-${name}`;
            const current = overrideStateOf(bit, allow, deny);
            const disabled = !canChange(bit);
            return (
              <div key={name} class="override-row">
                <span id={`${id}-label`} class="override-label">
                  {PERMISSION_LABELS[name]}
                </span>
                <div class="tri-state" role="radiogroup" aria-labelledby={`${id}-label`} aria-describedby={`${id}-hint`}>
                  {STATES.map(({ state, label, mark }) => (
                    <label key={state} class={`tri ${state}${current === state ? " checked" : ""}`} title={label}>
                      <input
                        type="radio"
                        name={id}
                        value={state}
                        checked={current === state}
                        disabled={disabled}
                        onChange={() => onChange(withOverrideState(bit, state, allow, deny))}
                      />
                      <span aria-hidden="true">{mark}</span>
                      <span class="sr-only">{label}</span>
                    </label>
                  ))}
                </div>
                <p id={`${id}-hint`} class="permission-hint">
                  {PERMISSION_HINTS[name]}
                  {disabled && " You do not hold it, so you cannot change it."}
                </p>
              </div>
            );
          })}
        </fieldset>
      ))}
    </div>
  );
}
