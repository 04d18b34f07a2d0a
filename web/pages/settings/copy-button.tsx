import { useEffect, useState } from "preact/hooks";

/**
 * Copies `text` to the clipboard and says so ("Copied" for two seconds, announced). When the
 * browser refuses, the text is shown selected so the person can copy it by hand.
 */
export function CopyButton({ text, label, name }: { text: string; label: string; name?: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => {
    if (state !== "copied") return;
    const timer = setTimeout(() => setState("idle"), 2000);
    return () => clearTimeout(timer);
  }, [state]);
  return (
    <span class="copy-button">
      <button
        type="button"
        class="secondary small"
        aria-label={name}
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(text);
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
      {state === "failed" && (
        <input class="copy-fallback" readOnly aria-label="Copy this by hand" value={text} ref={(el) => el?.select()} onFocus={(e) => e.currentTarget.select()} />
      )}
    </span>
  );
}
