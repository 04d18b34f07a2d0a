import type { Domain } from "../../domain/domain.ts";
import { parseInput } from "../../domain/shared/validation.ts";
import type { ClientEventHandler, ClientEventTable } from "../ack.ts";
import { TypingRepeats } from "../typing-repeats.ts";
import { DmTyping } from "../client-events.ts";

/**
 * `dm:typing:start` / `dm:typing:stop {conversationId}`: relayed to the other members' user rooms
 * as `{userId, username, conversationId}`. Only members may type; others get "Conversation not found".
 * A repeated start from the same socket within 3 s is checked and acknowledged, but not relayed again.
 */
export function dmEvents(domain: Domain): ClientEventTable {
  const repeats = new TypingRepeats();
  const typing =
    (start: boolean): ClientEventHandler<{ conversationId: string }> =>
    async (socket, payload) => {
      const { conversationId } = parseInput(DmTyping, payload, "payload");
      const key = conversationId.toLowerCase();
      // A repeat is checked, so a member who just left is refused, but not relayed.
      const repeat = start && !repeats.claim(socket, key);
      try {
        await domain.dms.typing(socket.data.userId, socket.data.username, conversationId, start, !repeat);
      } catch (error) {
        // A refused start holds no streak: once allowed again, the next start is relayed.
        if (start) repeats.stopped(socket, key);
        throw error;
      }
      if (!start) repeats.stopped(socket, key);
      return { conversationId };
    };
  return { "dm:typing:start": typing(true), "dm:typing:stop": typing(false) };
}
