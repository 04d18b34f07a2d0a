/**
 * A button that copies `text` to the clipboard and says so in a status next to it (its own name
 * stays the same, so it can be pressed again). When the browser refuses, it says how to copy by hand.
 */
import { useEffect, useState } from "preact/hooks";

export function CopyButton({ text, label = "Copy", class: className = "primary" }: { text: string | null; label?: string; class?: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => setState("idle"), [text]);
  useEffect(() => {
    if (state !== "copied") return;
    const timer = setTimeout(() => setState("idle"), 4000);
    return () => clearTimeout(timer);
  }, [state]);
  return (
    <>
      <button
        type="button"
        class={className}
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
        {label}
      </button>
      <span class={state === "failed" ? "error small copy-status" : "muted small copy-status"} role="status">
        {state === "copied" ? "Copied" : state === "failed" ? "Copying is not allowed here: select the text and copy it." : ""}
      </span>
    </>
  );
}
