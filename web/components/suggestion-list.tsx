import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";

export interface Suggestion {
  id: string;
  /** What the option is named (its text starts with this). */
  label: string;
  detail?: string;
  icon?: ComponentChildren;
}

/**
 * A pop-up list box of suggestions under a text field. The field keeps focus and points at the
 * active option with aria-activedescendant; arrows move, Enter/Tab choose, Escape closes (the
 * keys are handled by the field, see `listKeys`). A click chooses too.
 */
export function SuggestionList({
  id,
  label,
  items,
  active,
  onChoose,
  onHover,
}: {
  id: string;
  label: string;
  items: Suggestion[];
  active: number;
  onChoose: (index: number) => void;
  onHover?: (index: number) => void;
}) {
  const ref = useRef<HTMLUListElement>(null);
  useEffect(() => {
    ref.current?.querySelector(`[aria-selected="true"]`)?.scrollIntoView({ block: "nearest" });
  }, [active]);
  return (
    <ul ref={ref} id={id} class="suggestions" role="listbox" aria-label={label}>
      {items.map((item, index) => (
        <li
          key={item.id}
          id={`${id}-${index}`}
          role="option"
          aria-selected={index === active}
          class={index === active ? "active" : undefined}
          // mousedown: choose before the field loses focus.
          onMouseDown={(e) => {
            e.preventDefault();
            onChoose(index);
          }}
          onMouseMove={() => onHover?.(index)}
        >
          {item.icon}
          <span class="suggestion-label">{item.label}</span>
          {item.detail && <span class="suggestion-detail"> {item.detail}</span>}
        </li>
      ))}
    </ul>
  );
}

/**
 * Keyboard for a field that shows a SuggestionList: returns true when the key was used.
 * ArrowDown/ArrowUp move (wrapping), Enter and Tab choose, Escape closes.
 */
export function listKeys(
  event: KeyboardEvent,
  state: { count: number; active: number; setActive: (i: number) => void; choose: (i: number) => void; close: () => void },
): boolean {
  if (state.count === 0) return false;
  switch (event.key) {
    case "ArrowDown":
      state.setActive((state.active + 1) % state.count);
      break;
    case "ArrowUp":
      state.setActive((state.active - 1 + state.count) % state.count);
      break;
    case "Enter":
    case "Tab":
      if (event.shiftKey) return false;
      state.choose(state.active);
      break;
    case "Escape":
      state.close();
      break;
    default:
      return false;
  }
  event.preventDefault();
  event.stopPropagation();
  return true;
}
