import { useEffect, useState } from "preact/hooks";
import { errorMessage } from "../lib/api-errors.ts";
import type { Message } from "../lib/wire-types.ts";
import { rest } from "../state/app-state.ts";
import { MessageSummary } from "./message-summary.tsx";
import { usePlace } from "./place-context.ts";
import { Icon } from "./icons.tsx";
import { ErrorAlert } from "./error-alert.tsx";
import { useEscapeCloses } from "./use-escape-closes.ts";

/** The channel's pinned messages, newest pin first; follows pins and unpins live. "Jump" shows a pin in the log. */
export function PinsPanel({ onClose }: { onClose: () => void }) {
  const place = usePlace();
  const [pins, setPins] = useState<Message[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const pinnedIds = place.timeline.pinned.value;
  useEscapeCloses(onClose);
  // Closed from inside (its own button, Escape on a "Jump"), the focus goes back to what opened it.
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    return () => {
      if (!document.activeElement || document.activeElement === document.body) opener?.focus?.();
    };
  }, []);
  useEffect(() => {
    if (place.place.kind !== "channel") return;
    rest.request("listPins", { params: { id: place.place.channelId } }).then(setPins, (e) => setError(errorMessage(e)));
  }, [place.timeline.key, pinnedIds]);
  return (
    <aside class="side-panel" aria-label="Pinned messages">
      <header class="side-panel-header">
        <h2>Pinned messages</h2>
        <button type="button" class="icon" aria-label="Close pinned messages" aria-keyshortcuts="Escape" onClick={onClose}>
          <Icon name="close" />
        </button>
      </header>
      <ErrorAlert message={error} />
      {pins === null && !error && <p class="muted" role="status">Loading…</p>}
      {pins?.length === 0 && <p class="empty">No pinned messages yet. Moderators can pin a message from its actions.</p>}
      <ul class="pin-list">
        {pins?.map((m) => (
          <MessageSummary key={m.id} message={m} onJump={() => void place.timeline.jumpTo(m.id)} />
        ))}
      </ul>
    </aside>
  );
}
