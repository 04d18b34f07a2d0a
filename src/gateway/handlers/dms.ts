import type { Domain } from "../../domain/domain.ts";
import { parseInput } from "../../domain/shared/validation.ts";
import type { ClientEventHandler, ClientEventTable } from "../ack.ts";
import { DmTyping } from "../client-events.ts";

/**
 * `dm:typing:start` / `dm:typing:stop {conversationId}`: relayed to the other members' user rooms
 * as `{userId, username, conversationId}`. Only members may type; others get "Conversation not found".
 */
export function dmEvents(domain: Domain): ClientEventTable {
  const typing =
    (start: boolean): ClientEventHandler =>
    async (socket, payload) => {
      const { conversationId } = parseInput(DmTyping, payload, "payload");
      await domain.dms.typing(socket.data.userId, socket.data.username, conversationId, start);
      return { conversationId };
    };
  return { "dm:typing:start": typing(true), "dm:typing:stop": typing(false) };
}
