/**
 * A settings page's section heading (server settings, user settings): it takes the focus when a
 * section is chosen in the page's navigation, so screen readers announce where they are.
 */
import { useEffect, useRef } from "preact/hooks";

export function SectionTitle({ title }: { title: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (document.activeElement?.closest(".settings-nav")) ref.current?.focus();
  }, [title]);
  return (
    <h1 id="settings-title" ref={ref} tabIndex={-1}>
      {title}
    </h1>
  );
}
