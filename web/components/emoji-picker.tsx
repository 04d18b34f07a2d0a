import { useEffect, useRef } from "preact/hooks";
import type { Emoji } from "../lib/wire-types.ts";
import { emojiUrl } from "./message-content.tsx";

/** The Unicode emoji offered first; any emoji can also be typed in a message. */
const COMMON = ["👍", "👎", "😄", "🎉", "❤️", "😮", "😢", "🔥", "👀", "✅", "❌", "🙏", "🚀", "😂", "🤔", "💯"];

/** A small pop-up of emoji: common Unicode ones and the server's custom emojis. Escape or a click outside closes it. */
export function EmojiPicker({ label, customEmojis, onPick, onClose }: { label: string; customEmojis: Emoji[]; onPick: (emoji: string) => void; onClose: () => void }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    ref.current?.querySelector<HTMLButtonElement>("button")?.focus();
    const outside = (e: MouseEvent) => {
      if (ref.current && !ref.current.contains(e.target as Node)) onClose();
    };
    document.addEventListener("mousedown", outside);
    return () => document.removeEventListener("mousedown", outside);
  }, []);
  return (
    <div
      ref={ref}
      class="popover emoji-picker"
      role="dialog"
      aria-label={label}
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.stopPropagation();
          onClose();
        }
      }}
    >
      <div class="emoji-grid" role="group" aria-label="Emoji">
        {COMMON.map((emoji) => (
          <button key={emoji} type="button" class="emoji-choice" aria-label={emoji} onClick={() => onPick(emoji)}>
            {emoji}
          </button>
        ))}
      </div>
      {customEmojis.length > 0 && (
        <div class="emoji-grid" role="group" aria-label="Server emojis">
          {customEmojis.map((emoji) => (
            <button key={emoji.id} type="button" class="emoji-choice" aria-label={`:${emoji.name}:`} title={`:${emoji.name}:`} onClick={() => onPick(`<:${emoji.name}:${emoji.id}>`)}>
              <img src={emojiUrl(emoji.id)} alt="" width={22} height={22} />
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
