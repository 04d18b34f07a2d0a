import type { Domain } from "../../domain/domain.ts";
import { parseInput } from "../../domain/shared/validation.ts";
import type { ClientEventHandler, ClientEventTable } from "../ack.ts";
import { TypingRepeats } from "../typing-repeats.ts";
import { ChannelId } from "../client-events.ts";

/**
 * `typing:start` / `typing:stop <channelId>`: relayed to the channel room as `{userId, username, channelId}`.
 * A repeated start from the same socket within 3 s is checked and acknowledged, but not relayed again.
 */
export function typingEvents(domain: Domain): ClientEventTable {
  const repeats = new TypingRepeats();
  const typing =
    (event: "typing:start" | "typing:stop"): ClientEventHandler<{ channelId: string }> =>
    async (socket, payload) => {
      const channelId = parseInput(ChannelId, payload, "channelId");
      const key = channelId.toLowerCase();
      if (event === "typing:start" && !repeats.claim(socket, key)) {
        // A repeat is not relayed, but still checked: a typist who just lost the channel is refused.
        await domain.messages.typing(channelId, { id: socket.data.userId, username: socket.data.username }, event, false);
        return { channelId };
      }
      try {
        const user = await domain.users.get(socket.data.userId);
        await domain.messages.typing(channelId, user, event);
      } catch (error) {
        if (event === "typing:start") repeats.stopped(socket, key);
        throw error;
      }
      if (event === "typing:stop") repeats.stopped(socket, key);
      return { channelId };
    };
  return { "typing:start": typing("typing:start"), "typing:stop": typing("typing:stop") };
}
