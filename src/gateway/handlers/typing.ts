import type { Domain } from "../../domain/domain.ts";
import { parseInput } from "../../domain/shared/validation.ts";
import type { ClientEventHandler, ClientEventTable } from "../ack.ts";
import { ChannelId } from "../client-events.ts";

/** `typing:start` / `typing:stop <channelId>`: relayed to the channel room as `{userId, username, channelId}`. */
export function typingEvents(domain: Domain): ClientEventTable {
  const typing =
    (event: "typing:start" | "typing:stop"): ClientEventHandler =>
    async (socket, payload) => {
      const channelId = parseInput(ChannelId, payload, "channelId");
      const user = await domain.users.get(socket.data.userId);
      await domain.messages.typing(channelId, user, event);
      return { channelId };
    };
  return { "typing:start": typing("typing:start"), "typing:stop": typing("typing:stop") };
}
