import * as v from "valibot";
import type { Domain } from "../../domain/domain.ts";
import { parseInput } from "../../domain/validation.ts";
import type { Logger } from "../../log.ts";
import { onClientEvent } from "../ack.ts";
import type { GatewaySocket } from "../gateway.ts";

const TypingPayload = v.object(
  { conversationId: v.pipe(v.string("must be a conversation id"), v.uuid("must be a conversation id")) },
  "must be an object {conversationId}",
);

/**
 * `dm:typing:start` / `dm:typing:stop {conversationId}`: relayed to the other members' user rooms
 * as `{userId, username, conversationId}`. Only members may type; others get "Conversation not found".
 */
export function registerDmEvents(socket: GatewaySocket, domain: Domain, log: Logger): void {
  for (const event of ["dm:typing:start", "dm:typing:stop"] as const) {
    onClientEvent(socket, event, log, async (payload) => {
      const { conversationId } = parseInput(TypingPayload, payload, "payload");
      await domain.conversations.typing(socket.data.userId, socket.data.username, conversationId, event === "dm:typing:start");
      return { conversationId };
    });
  }
}
