/**
 * A spoiler: a button named "Spoiler" over its text until pressed, then the text itself. While
 * hidden the text is `visibility: hidden` under the cover (web/components/markdown.css): out of
 * the accessibility tree, not selectable, its links not focusable, yet it keeps the width the
 * revealed text will take, as Discord's does.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";

export function Spoiler({ children }: { children: ComponentChildren }) {
  const [revealed, setRevealed] = useState(false);
  const text = useRef<HTMLSpanElement>(null);
  const pressed = useRef(false);
  useEffect(() => {
    // The button is gone once pressed: the focus goes to the text it revealed, not to the page's start.
    if (revealed && pressed.current) text.current?.focus();
  }, [revealed]);
  if (revealed) {
    return (
      <span ref={text} class="spoiler revealed" tabIndex={-1}>
        {children}
      </span>
    );
  }
  return (
    <button
      type="button"
      class="spoiler"
      aria-label="Spoiler"
      title="Spoiler: press to reveal"
      onClick={(event) => {
        pressed.current = event.currentTarget === document.activeElement;
        setRevealed(true);
      }}
    >
      <span class="spoiler-text" aria-hidden="true">
        {children}
      </span>
    </button>
  );
}
