/**
 * The quick switcher (Ctrl+K, or Cmd+K on macOS; docs/web.md "Keyboard"): a dialog with one
 * field that finds servers, channels and DMs by name (web/lib/quick-switch.ts); arrows move
 * through the answers, Enter or a click opens one, Escape closes and focus returns.
 */
import { useMemo, useState } from "preact/hooks";
import { useLocation } from "preact-iso/router";
import { quickSwitch, switchTargets, type SwitchTarget } from "../lib/quick-switch.ts";
import { store } from "../state/app-state.ts";
import { Dialog } from "./dialog.tsx";
import { listKeys, SuggestionList } from "./suggestion-list.tsx";
import "./quick-switcher.css";

const KIND_LABELS: Record<SwitchTarget["kind"], string> = { server: "Server", channel: "Channel", dm: "Direct message" };

const describe = (target: SwitchTarget) => (target.detail ? `${KIND_LABELS[target.kind]} in ${target.detail}` : KIND_LABELS[target.kind]);

export function QuickSwitcher({ onClose }: { onClose: () => void }) {
  const { route } = useLocation();
  const [query, setQuery] = useState("");
  const [active, setActive] = useState(0);
  // The places as they were when it opened: what the reader searches does not move under them.
  const targets = useMemo(() => switchTargets(store.switchSources()), []);
  const found = quickSwitch(targets, query);
  const open = (index: number) => {
    const target = found[index];
    if (!target) return;
    onClose();
    route(target.url);
  };
  return (
    <Dialog title="Quick switcher" onClose={onClose}>
      <div class="quick-switcher">
        <input
          type="text"
          role="combobox"
          aria-label="Where would you like to go?"
          aria-expanded={found.length > 0}
          aria-controls="quick-switcher-results"
          aria-autocomplete="list"
          aria-activedescendant={found.length ? `quick-switcher-results-${active}` : undefined}
          placeholder="Where would you like to go?"
          autoFocus
          value={query}
          onInput={(e) => {
            setQuery(e.currentTarget.value);
            setActive(0);
          }}
          onKeyDown={(e) => {
            // Escape is the dialog's own (it closes); Tab stays a way out of the field.
            if (e.key === "Escape" || e.key === "Tab") return;
            listKeys(e, { count: found.length, active, setActive, choose: open, close: onClose });
          }}
        />
        {found.length ? (
          <SuggestionList
            id="quick-switcher-results"
            label="Places"
            items={found.map((t) => ({ id: `${t.kind}-${t.id}`, label: t.kind === "channel" ? `#${t.name}` : t.name, detail: describe(t) }))}
            active={Math.min(active, found.length - 1)}
            onChoose={open}
            onHover={setActive}
          />
        ) : (
          <p class="muted" role="status">
            Nothing is called that. Start with # for channels, @ for direct messages or * for servers.
          </p>
        )}
        <p class="hint">↑ ↓ to choose · Enter to open · Escape to close</p>
      </div>
    </Dialog>
  );
}
