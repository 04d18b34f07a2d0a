import { useEffect, useRef } from "preact/hooks";
import { takeSettingsFocus, type SettingsKind } from "../lib/settings-return.ts";

/**
 * A ref for the control that opens the user or the server settings: back from them (Close,
 * Escape, "Back to the server"), it takes the focus again, after the conversation shown again
 * has focused its composer (./composer.tsx, on a new place).
 */
export function useSettingsFocus<T extends HTMLElement>(kind: SettingsKind) {
  const ref = useRef<T>(null);
  useEffect(() => {
    if (takeSettingsFocus(kind)) requestAnimationFrame(() => ref.current?.focus());
  }, []);
  return ref;
}
