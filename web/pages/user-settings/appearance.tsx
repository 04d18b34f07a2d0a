/** Appearance: the theme and compact message display, for this device only (web/state/appearance.ts). */
import { Switch } from "../../components/switch.tsx";
import { compact, setCompact, setTheme, theme, type Theme } from "../../state/appearance.ts";

const THEMES: { value: Theme; label: string; about: string }[] = [
  { value: "dark", label: "Dark", about: "Light text on dark backgrounds." },
  { value: "light", label: "Light", about: "Dark text on light backgrounds." },
  { value: "system", label: "Follow the system", about: "Dark or light as your device is set, changing with it." },
];

export function AppearanceSection() {
  return (
    <div class="settings-stack">
      <p class="muted">These settings are kept in this browser on this device; your other devices keep their own.</p>
      <fieldset class="settings-card theme-choices">
        <legend>Theme</legend>
        {THEMES.map((choice) => (
          <label key={choice.value} class={`theme-choice theme-${choice.value}`}>
            <input
              type="radio"
              name="theme"
              value={choice.value}
              aria-label={choice.label}
              aria-describedby={`theme-${choice.value}-about`}
              checked={theme.value === choice.value}
              onChange={() => setTheme(choice.value)}
            />
            <span class="theme-swatch" aria-hidden="true" />
            <span>
              <strong>{choice.label}</strong>
              <span class="muted small" id={`theme-${choice.value}-about`}>
                {choice.about}
              </span>
            </span>
          </label>
        ))}
      </fieldset>
      <section class="settings-card" aria-labelledby="appearance-messages">
        <h2 id="appearance-messages">Messages</h2>
        <Switch label="Compact message display" checked={compact.value} onChange={setCompact}>
          Smaller avatars and less space between messages, so more of them fit on the screen.
        </Switch>
      </section>
    </div>
  );
}
