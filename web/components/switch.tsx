/**
 * An on/off setting: a checkbox with the switch role (screen readers say "on"/"off"), its label
 * as its name and an optional description read after it.
 */
import type { ComponentChildren } from "preact";
import { useId } from "preact/hooks";
import "./switch.css";

export function Switch({ label, checked, disabled = false, onChange, children }: {
  label: string;
  checked: boolean;
  disabled?: boolean;
  onChange: (on: boolean) => void;
  /** What the setting does, shown under the label. */
  children?: ComponentChildren;
}) {
  const id = useId();
  return (
    <div class="switch-row">
      <div class="switch-text">
        <label for={id} class="switch-label">
          {label}
        </label>
        {children && (
          <p id={`${id}-about`} class="muted small">
            {children}
          </p>
        )}
      </div>
      <input
        id={id}
        type="checkbox"
        role="switch"
        class="switch"
        checked={checked}
        disabled={disabled}
        aria-describedby={children ? `${id}-about` : undefined}
        onChange={(e) => onChange(e.currentTarget.checked)}
      />
    </div>
  );
}
