/**
 * The servers and the channel (or DM) list: side by side at the left of a tablet or a desktop,
 * and on a phone in a drawer opened by "Open navigation" in the place's header (docs/web.md,
 * "Phone and tablet").
 *
 * The rail and the list keep one place in the page at every size, so a window that crosses the
 * phone breakpoint (a phone turned sideways) keeps what they hold (a dialog opened from the
 * channel list, collapsed categories). That is why the drawer is not a <dialog>: while open on a
 * phone it is a modal dialog by its role, with the rest of the page made inert, the focus moved
 * into it and kept there, and Escape or a tap on the backdrop closing it.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { layoutSize, navOpen } from "../state/layout.ts";
import { FOCUSABLE, trapTab } from "./dialog.tsx";
import { Icon } from "./icons.tsx";
import { connectionSummary } from "../voice/voice-bar.tsx";

const OPENER_ID = "open-navigation";

const close = () => (navOpen.value = false);

/**
 * Choosing a channel closes the drawer and then renders a new header, whose new "Open
 * navigation" takes the focus lost with the old one if it mounts this soon after the close.
 */
const FOCUS_RETURN_MS = 1000;
let focusReturnsUntil = 0;

export function NavDrawer({ rail, list }: { rail: ComponentChildren; list: ComponentChildren }) {
  const open = layoutSize.value === "phone" && navOpen.value;
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const drawer = ref.current!;
    const restore = inertOutside(drawer);
    drawer.querySelector<HTMLElement>(FOCUSABLE)?.focus();
    return () => {
      restore();
      document.getElementById(OPENER_ID)?.focus();
      focusReturnsUntil = performance.now() + FOCUS_RETURN_MS;
    };
  }, [open]);
  return (
    <>
      <div
        ref={ref}
        class={open ? "nav-drawer open" : "nav-drawer"}
        role={open ? "dialog" : undefined}
        aria-modal={open ? "true" : undefined}
        aria-label={open ? "Navigation" : undefined}
        onKeyDown={(e) => {
          if (!open) return;
          // A dialog or a menu opened from the drawer closes itself first.
          const inner = (e.target as Element).closest("dialog, [role='menu']");
          if (e.key === "Escape" && !inner) {
            e.preventDefault();
            close();
          } else if (!inner) {
            trapTab(e, ref.current!);
          }
        }}
      >
        {rail}
        {/* Choosing a channel or a conversation shows it: the drawer gets out of the way. A server
            in the rail keeps it open, as its channel list is what comes next. */}
        <div class="drawer-list" onClick={(e) => open && (e.target as Element).closest("a[href]") && close()}>
          {list}
        </div>
      </div>
      {open && <div class="drawer-backdrop" aria-hidden="true" onClick={close} />}
    </>
  );
}

/** "Open navigation", first in a header; only on a phone, where the drawer replaces the rails. */
export function NavOpener() {
  const ref = useRef<HTMLButtonElement>(null);
  const phone = layoutSize.value === "phone";
  useEffect(() => {
    if (phone && performance.now() < focusReturnsUntil && document.activeElement === document.body) ref.current?.focus();
  }, [phone]);
  if (!phone) return null;
  // The voice and call bars live in the drawer: while one is on, the opener says so (a dot, and
  // its description), so a call is never out of mind behind a closed drawer.
  const live = connectionSummary();
  return (
    <button
      ref={ref}
      type="button"
      id={OPENER_ID}
      class={live ? "tool nav-opener live" : "tool nav-opener"}
      aria-label="Open navigation"
      aria-description={live ?? undefined}
      title={live ?? undefined}
      aria-haspopup="dialog"
      aria-expanded={navOpen.value}
      onClick={() => (navOpen.value = true)}
    >
      <Icon name="menu" size={22} />
      {live && <span class="live-dot" aria-hidden="true" />}
    </button>
  );
}

/** Makes everything in the page but `keep` inert (its ancestors' other children); the returned function undoes it. */
function inertOutside(keep: HTMLElement): () => void {
  const made: HTMLElement[] = [];
  for (let node: HTMLElement = keep; node.parentElement && node !== document.body; node = node.parentElement) {
    for (const sibling of node.parentElement.children) {
      if (sibling === node || !(sibling instanceof HTMLElement) || sibling.inert || sibling.classList.contains("drawer-backdrop")) continue;
      sibling.inert = true;
      made.push(sibling);
    }
  }
  return () => {
    for (const element of made) element.inert = false;
  };
}
