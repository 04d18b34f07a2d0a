import { characterCountText } from "../lib/message-length.ts";
import { LIMITS } from "../lib/shared-rules.ts";

/** The composer's count of the room left (web/lib/message-length.ts), near the limit only. */
export function CharacterCount({ id, length }: { id: string; length: number }) {
  const text = characterCountText(length);
  if (!text) return null;
  return (
    <span id={id} class={length > LIMITS.message.contentLength ? "character-count over" : "character-count"}>
      {text}
    </span>
  );
}
