/**
 * Where "Close" (or Escape) in the user settings goes back to: the page the reader opened them
 * from, kept for the tab (sessionStorage) so moving between sections or reloading keeps it; and
 * the focus, which goes back to the "User settings" button as it shows again.
 */
const KEY = "hearth.settings-return";
const HOME = "/channels/@me";

/** Called as the settings open: remembers `path` (never a settings page itself). */
export function rememberSettingsReturn(path: string): void {
  if (path.startsWith("/settings")) return;
  try {
    sessionStorage.setItem(KEY, path);
  } catch {
    // Without storage "Close" goes home.
  }
}

export function settingsReturn(): string {
  try {
    return sessionStorage.getItem(KEY) ?? HOME;
  } catch {
    return HOME;
  }
}

/** Which settings were just closed, for the control that opened them to take the focus back once. */
export type SettingsKind = "user" | "server";
let focusBack: SettingsKind | null = null;

export function settingsClosed(kind: SettingsKind): void {
  focusBack = kind;
}

export function takeSettingsFocus(kind: SettingsKind): boolean {
  if (focusBack !== kind) return false;
  focusBack = null;
  return true;
}
