import type { ReactionSummary } from "../lib/wire-types.ts";
import { EmojiView } from "./message-content.tsx";

/** The reactions under a message: one toggle button per emoji with its count, pressed when the reader reacted. */
export function ReactionBar({ reactions, meId, onToggle }: { reactions: ReactionSummary[]; meId: string; onToggle: (emoji: string) => void }) {
  if (reactions.length === 0) return null;
  return (
    <div class="reactions" role="group" aria-label="Reactions">
      {reactions.map((r) => {
        const mine = r.users.some((u) => u.id === meId);
        const custom = /^<a?:([\w-]+):/.exec(r.emoji);
        const name = custom ? `:${custom[1]}:` : r.emoji;
        return (
          <button
            key={r.emoji}
            type="button"
            class={mine ? "reaction mine" : "reaction"}
            aria-pressed={mine}
            aria-label={`${name} ${r.count}`}
            title={r.users.map((u) => u.username).filter(Boolean).join(", ")}
            onClick={() => onToggle(r.emoji)}
          >
            <EmojiView emoji={r.emoji} /> <span class="count">{r.count}</span>
          </button>
        );
      })}
    </div>
  );
}
