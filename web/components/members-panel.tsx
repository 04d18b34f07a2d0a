/**
 * Where a server's member list shows (docs/web.md, "Phone and tablet"): beside the place on a
 * desktop, always; over the place's right side on a tablet and as a sheet on a phone, each opened
 * by "Show members".
 */
import type { ComponentChildren } from "preact";
import { layoutSize } from "../state/layout.ts";
import { Icon } from "./icons.tsx";
import { Sheet } from "./sheet.tsx";

const TOGGLE_ID = "show-members";
const PANEL_ID = "member-panel";

export function MembersPanel({ shown, onClose, children }: { shown: boolean; onClose: () => void; children: ComponentChildren }) {
  const size = layoutSize.value;
  if (size === "desktop") return <>{children}</>;
  if (size === "phone") {
    return (
      <Sheet open={shown} label="Members" opener={TOGGLE_ID} onClose={onClose}>
        <div class="sheet-top">
          <button type="button" class="tool" aria-label="Close members" onClick={onClose}>
            <Icon name="close" size={22} />
          </button>
        </div>
        {/* Mounted while open only: a closed sheet's list would still load and follow presence. */}
        {shown && children}
      </Sheet>
    );
  }
  if (!shown) return null;
  return (
    <div
      class="members-overlay"
      id={PANEL_ID}
      onKeyDown={(e) => {
        if (e.key !== "Escape") return;
        onClose();
        document.getElementById(TOGGLE_ID)?.focus();
      }}
    >
      {children}
    </div>
  );
}

/** "Show members" in a channel's header, on a phone or a tablet (a desktop always shows them). */
export function MembersToggle({ shown, onToggle }: { shown: boolean; onToggle: () => void }) {
  const size = layoutSize.value;
  if (size === "desktop") return null;
  return (
    <button
      type="button"
      id={TOGGLE_ID}
      class="tool"
      aria-label="Show members"
      aria-expanded={shown}
      aria-haspopup={size === "phone" ? "dialog" : undefined}
      aria-controls={size === "tablet" && shown ? PANEL_ID : undefined}
      onClick={onToggle}
    >
      <Icon name="users" size={18} /> <span class="tool-label">Members</span>
    </button>
  );
}
