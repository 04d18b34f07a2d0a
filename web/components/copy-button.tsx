/**
 * A button that copies `text` to the clipboard: it reads "Copied" for two seconds and a status
 * says so to screen readers, while its accessible name (`name`, or the label) stays the same, so
 * it can be pressed again. When the browser refuses, the text is shown selected in a field of its
 * own, "Copy this by hand". Disabled while there is nothing to copy yet.
 */
import { useEffect, useState } from "preact/hooks";

export function CopyButton({ text, label = "Copy", name, describedBy, class: className = "primary" }: {
  text: string | null;
  label?: string;
  /** The button's accessible name when the label alone would be ambiguous ("Copy link of invite abc"). */
  name?: string;
  /** The id of what the copied text is, when the name is the bare label ("Copy" under "Your recovery codes"). */
  describedBy?: string;
  class?: string;
}) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => setState("idle"), [text]);
  useEffect(() => {
    if (state !== "copied") return;
    const timer = setTimeout(() => setState("idle"), 2000);
    return () => clearTimeout(timer);
  }, [state]);
  return (
    <span class="copy-button">
      <button
        type="button"
        class={className}
        aria-label={name ?? label}
        aria-describedby={describedBy}
        disabled={!text}
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(text!);
            setState("copied");
          } catch {
            setState("failed");
          }
        }}
      >
        {state === "copied" ? "Copied" : label}
      </button>
      <span class="sr-only" role="status">
        {state === "copied" ? "Copied to the clipboard" : ""}
      </span>
      {state === "failed" && text && (
        <input class="copy-fallback" readOnly aria-label="Copy this by hand" value={text} ref={(el) => el?.select()} onFocus={(e) => e.currentTarget.select()} />
      )}
    </span>
  );
}
