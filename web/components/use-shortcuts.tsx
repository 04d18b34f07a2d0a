/**
 * The chat's keyboard shortcuts (docs/web.md "Keyboard"): Ctrl+K (Cmd+K on macOS) opens the
 * quick switcher; Alt+Up and Alt+Down open the channel above or below the open one in the
 * server's list. Left to any open dialog or menu, which own their keys.
 */
import { useEffect, useState } from "preact/hooks";
import { useLocation } from "preact-iso/router";
import { adjacentChannel } from "../lib/channel-tree.ts";
import { store } from "../state/app-state.ts";
import { QuickSwitcher } from "./quick-switcher.tsx";

const somethingOpen = () => document.querySelector("dialog[open], [role=menu], [aria-modal='true']") !== null;

export function ChatShortcuts({ serverId, channelId }: { serverId: string; channelId: string | undefined }) {
  const { route } = useLocation();
  const [switching, setSwitching] = useState(false);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.repeat && event.key.toLowerCase() === "k") return;
      if ((event.ctrlKey || event.metaKey) && !event.altKey && !event.shiftKey && event.key.toLowerCase() === "k") {
        event.preventDefault();
        if (!somethingOpen()) setSwitching(true);
        return;
      }
      if (event.altKey && !event.ctrlKey && !event.metaKey && (event.key === "ArrowUp" || event.key === "ArrowDown")) {
        if (somethingOpen() || serverId === "@me" || !channelId) return;
        const known = store.channelsOf(serverId);
        const next = known && adjacentChannel(known.channels, known.categories, channelId, event.key === "ArrowUp" ? -1 : 1);
        if (!next) return;
        event.preventDefault();
        route(`/channels/${serverId}/${next.id}`);
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [serverId, channelId]);
  return switching ? <QuickSwitcher onClose={() => setSwitching(false)} /> : null;
}
