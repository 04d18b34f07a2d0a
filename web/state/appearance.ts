/**
 * How the app looks on this device (User settings > Appearance): the theme (dark, light, or the
 * system's, which is what a device that never chose shows) and compact message display, kept in localStorage (per device, not per account) and
 * applied as data attributes on <html>: `data-theme="dark|light"` (the system's choice resolved,
 * and followed while the page is open) and `data-compact` (./appearance.css).
 */
import { effect, signal } from "@preact/signals";
import "./appearance.css";
import { store, stored } from "./device-storage.ts";

export type Theme = "dark" | "light" | "system";

const THEME_KEY = "hearth.theme";
const COMPACT_KEY = "hearth.compact";

const storedTheme = stored(THEME_KEY);
/** Until the person chooses, the page follows the system's `prefers-color-scheme`. */
export const theme = signal<Theme>(storedTheme === "dark" || storedTheme === "light" ? storedTheme : "system");
export const compact = signal(stored(COMPACT_KEY) === "1");

const lightQuery = typeof matchMedia === "function" ? matchMedia("(prefers-color-scheme: light)") : null;
/** Whether the system asks for light pages now (followed while the page is open). */
const systemLight = signal(lightQuery?.matches ?? false);
lightQuery?.addEventListener("change", (event) => (systemLight.value = event.matches));

export function setTheme(next: Theme): void {
  theme.value = next;
  store(THEME_KEY, next);
}

export function setCompact(on: boolean): void {
  compact.value = on;
  store(COMPACT_KEY, on ? "1" : "0");
}

/** The theme the page shows: the choice, with "system" resolved. */
export const shownTheme = () => (theme.value === "system" ? (systemLight.value ? "light" : "dark") : theme.value);

effect(() => {
  const root = document.documentElement;
  root.dataset.theme = shownTheme();
  if (compact.value) root.dataset.compact = "";
  else delete root.dataset.compact;
});
