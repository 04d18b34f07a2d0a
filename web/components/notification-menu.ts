/**
 * The context menu items of a server, a channel and a DM: "Mark as read", muting and (servers and
 * channels) which messages notify. Every change goes to the server, which tells the reader's other
 * devices (`notifications:update`).
 */
import type { NotificationOverride } from "../lib/wire-types.ts";
import { store } from "../state/app-state.ts";
import type { MenuItem } from "./context-menu.tsx";
import type { MessagePlace } from "../state/place-requests.ts";

type Target = NotificationOverride["target_type"];

const HOUR = 3600;
const LEVELS: [NotificationOverride["level"], string][] = [
  ["all", "Notify for all messages"],
  ["mentions", "Notify for mentions only"],
  ["none", "Notify for nothing"],
  ["default", "Use the default"],
];

/** A failed change shows nothing new: the lists keep showing what the server has. */
const save = (type: Target, id: string, change: Parameters<typeof store.notifications.change>[2]) => void store.notifications.change(type, id, change).catch(() => {});

/** "Mark as read" for a channel or DM: read up to its newest message (disabled when nothing is unread). */
export function markReadItem(place: MessagePlace, id: string): MenuItem {
  const entry = store.readStates.get(id);
  return { label: "Mark as read", disabled: !entry, onSelect: () => entry && store.readStates.markRead(place, id, entry.last) };
}

export function notificationItems(type: Target, id: string): MenuItem[] {
  const muted = store.notifications.isMuted(type, id);
  const items: MenuItem[] = muted
    ? [{ label: "Unmute", separated: true, onSelect: () => save(type, id, { muted: false }) }]
    : [
        { label: "Mute for 1 hour", separated: true, onSelect: () => save(type, id, { muted_until: Math.floor(Date.now() / 1000) + HOUR }) },
        { label: "Mute for 8 hours", onSelect: () => save(type, id, { muted_until: Math.floor(Date.now() / 1000) + 8 * HOUR }) },
        { label: "Mute until I unmute", onSelect: () => save(type, id, { muted: true }) },
      ];
  if (type === "dm") return items;
  const level = store.notifications.setting(type, id)?.level ?? "default";
  LEVELS.forEach(([value, label], index) =>
    items.push({ label, checked: level === value, separated: index === 0, onSelect: () => save(type, id, { level: value }) }),
  );
  return items;
}
