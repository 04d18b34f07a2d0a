/**
 * A context menu (right click, the Menu key or Shift+F10 on a link): a `menu` of buttons at the
 * pointer, kept inside the window. Arrow keys, Home and End move between items; Escape, Tab or a
 * click elsewhere closes it and gives focus back to what opened it.
 */
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import "./unread.css";

export interface MenuItem {
  label: string;
  onSelect: () => void;
  disabled?: boolean;
  /** A choice among several (a `menuitemradio`): whether it is the current one. */
  checked?: boolean;
  /** Starts a new group of items (a separator above it). */
  separated?: boolean;
}

export interface MenuAt {
  x: number;
  y: number;
  /** What opened it, focused again on close. */
  opener: HTMLElement | null;
}

/** Where a `contextmenu` event puts the menu: at the pointer, or under the element for the keyboard. */
export function menuAt(event: MouseEvent): MenuAt {
  const opener = event.currentTarget instanceof HTMLElement ? event.currentTarget : null;
  if ((event.clientX === 0 && event.clientY === 0) || event.detail === 0) {
    const box = opener?.getBoundingClientRect();
    if (box) return { x: box.left + 16, y: box.bottom, opener };
  }
  return { x: event.clientX, y: event.clientY, opener };
}

export function ContextMenu({ label, at, items, onClose }: { label: string; at: MenuAt; items: MenuItem[]; onClose: () => void }) {
  const ref = useRef<HTMLDivElement>(null);
  const [place, setPlace] = useState({ left: at.x, top: at.y });

  const close = () => {
    onClose();
    at.opener?.focus();
  };

  useLayoutEffect(() => {
    const menu = ref.current;
    if (!menu) return;
    const box = menu.getBoundingClientRect();
    setPlace({ left: Math.max(4, Math.min(at.x, innerWidth - box.width - 4)), top: Math.max(4, Math.min(at.y, innerHeight - box.height - 4)) });
    menu.querySelector<HTMLElement>("[role^=menuitem]:not([aria-disabled=true])")?.focus();
  }, [at.x, at.y]);

  useEffect(() => {
    const outside = (event: Event) => {
      if (!ref.current?.contains(event.target as Node)) onClose();
    };
    document.addEventListener("pointerdown", outside, true);
    window.addEventListener("blur", onClose);
    window.addEventListener("resize", onClose);
    return () => {
      document.removeEventListener("pointerdown", outside, true);
      window.removeEventListener("blur", onClose);
      window.removeEventListener("resize", onClose);
    };
  }, []);

  function onKeyDown(event: KeyboardEvent) {
    const list = [...(ref.current?.querySelectorAll<HTMLElement>("[role^=menuitem]:not([aria-disabled=true])") ?? [])];
    const index = list.indexOf(document.activeElement as HTMLElement);
    const move = (to: number) => list[(to + list.length) % list.length]?.focus();
    if (event.key === "ArrowDown") move(index + 1);
    else if (event.key === "ArrowUp") move(index - 1);
    else if (event.key === "Home") move(0);
    else if (event.key === "End") move(list.length - 1);
    else if (event.key === "Escape") close();
    else if (event.key === "Tab") onClose();
    else return;
    event.preventDefault();
    event.stopPropagation();
  }

  return (
    <div ref={ref} class="context-menu" role="menu" aria-label={label} style={{ left: `${place.left}px`, top: `${place.top}px` }} onKeyDown={onKeyDown}>
      {items.flatMap((item) => [
        item.separated ? <div key={`${item.label}-separator`} role="separator" class="context-menu-separator" /> : null,
          <button
            key={item.label}
            type="button"
            role={item.checked === undefined ? "menuitem" : "menuitemradio"}
            aria-checked={item.checked}
            aria-disabled={item.disabled || undefined}
            tabIndex={-1}
            onClick={() => {
              if (item.disabled) return;
              close();
              item.onSelect();
            }}
          >
            {item.label}
          </button>,
      ])}
    </div>
  );
}
