/**
 * The window's layout size (docs/web.md, "Phone and tablet"): under 768 px one column (the servers
 * and channels in a drawer, the members in a sheet), from 768 to 1,200 px the member list is a
 * toggle, above it everything shows side by side. The same breakpoints are web/layout.css's
 * media queries; this signal is for what CSS cannot do (a modal drawer, who holds the focus).
 */
import { signal } from "@preact/signals";
import "../layout.css";

export type LayoutSize = "phone" | "tablet" | "desktop";

/** `max-width` a hair under the breakpoint, so 768 px itself is a tablet and 1,200 px a desktop. */
const PHONE_QUERY = "(max-width: 767.98px)";
const TABLET_QUERY = "(max-width: 1199.98px)";

const phone = typeof matchMedia === "function" ? matchMedia(PHONE_QUERY) : null;
const tablet = typeof matchMedia === "function" ? matchMedia(TABLET_QUERY) : null;

function current(): LayoutSize {
  if (phone?.matches) return "phone";
  return tablet?.matches ? "tablet" : "desktop";
}

export const layoutSize = signal<LayoutSize>(current());
const follow = () => (layoutSize.value = current());
phone?.addEventListener("change", follow);
tablet?.addEventListener("change", follow);

/** Whether the phone's navigation drawer (servers and channels) is open. */
export const navOpen = signal(false);
