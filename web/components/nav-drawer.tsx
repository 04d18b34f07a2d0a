/**
 * The servers and the channel (or DM) list: side by side at the left of a tablet or a desktop,
 * and on a phone in a drawer opened by "Open navigation" in the place's header (docs/web.md,
 * "Phone and tablet").
 */
import type { ComponentChildren } from "preact";
import { layoutSize, navOpen } from "../state/layout.ts";
import { Icon } from "./icons.tsx";
import { Sheet } from "./sheet.tsx";

const OPENER_ID = "open-navigation";

export function NavDrawer({ rail, list }: { rail: ComponentChildren; list: ComponentChildren }) {
  if (layoutSize.value !== "phone") {
    return (
      <>
        {rail}
        {list}
      </>
    );
  }
  const close = () => (navOpen.value = false);
  return (
    <Sheet open={navOpen.value} label="Navigation" side="start" opener={OPENER_ID} onClose={close}>
      {rail}
      {/* Choosing a channel or a conversation shows it: the drawer gets out of the way. A server
          in the rail keeps it open, as its channel list is what comes next. */}
      <div class="drawer-list" onClick={(e) => (e.target as Element).closest("a[href]") && close()}>
        {list}
      </div>
    </Sheet>
  );
}

/** "Open navigation", first in a header; only on a phone, where the drawer replaces the rails. */
export function NavOpener() {
  if (layoutSize.value !== "phone") return null;
  return (
    <button type="button" id={OPENER_ID} class="tool nav-opener" aria-label="Open navigation" aria-haspopup="dialog" aria-expanded={navOpen.value} onClick={() => (navOpen.value = true)}>
      <Icon name="menu" size={22} />
    </button>
  );
}
