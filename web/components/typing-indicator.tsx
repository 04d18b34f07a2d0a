import { typingText } from "../lib/format.ts";
import { usePlace } from "./place-context.ts";

/** "alice is typing…" under the log; announced politely to screen readers. */
export function TypingIndicator() {
  const { timeline } = usePlace();
  const names = timeline.typing.value.map((t) => t.username);
  return (
    <div class="typing" aria-live="polite">
      {names.length > 0 && (
        <>
          <span class="typing-dots" aria-hidden="true">
            <span />
            <span />
            <span />
          </span>
          {typingText(names)}
        </>
      )}
    </div>
  );
}
