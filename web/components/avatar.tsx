import type { PresenceStatus } from "../lib/wire-types.ts";
import { initials } from "../lib/format.ts";

/**
 * A person's (or server's) picture, or their initials on a colour derived from the name.
 * Decorative: the name is said next to it, so the initials are drawn by CSS (`data-initials`)
 * and are no text of the control they sit in (WCAG 2.5.3, label in name). The colours keep white
 * initials at 4.5:1 or more for every hue.
 */
export function Avatar({ name, src, size = 40, status }: { name: string; src?: string | null; size?: number; status?: PresenceStatus }) {
  let hue = 0;
  for (const ch of name) hue = (hue * 31 + ch.codePointAt(0)!) % 360;
  return (
    <span
      class="avatar"
      style={{ width: `${size}px`, height: `${size}px`, fontSize: `${Math.round(size * 0.4)}px`, background: src ? undefined : `hsl(${hue} 45% 32%)` }}
      data-initials={src ? undefined : initials(name)}
      aria-hidden="true"
    >
      {src && <img src={src} alt="" width={size} height={size} loading="lazy" />}
      {status && <span class={`status-dot ${status}`} />}
    </span>
  );
}

export const STATUS_LABELS: Record<PresenceStatus, string> = { online: "Online", idle: "Idle", dnd: "Do not disturb", offline: "Offline" };
