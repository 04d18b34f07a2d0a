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
      // A repeat is checked, so a typist who just lost the channel is refused, but not relayed
      // (its username is not needed, so the account is not read for it).
      const repeat = event === "typing:start" && !repeats.claim(socket, key);
      try {
        const user = repeat ? { id: socket.data.userId, username: socket.data.username } : await domain.users.get(socket.data.userId);
        await domain.messages.typing(channelId, user, event, !repeat);
      } catch (error) {
        // A refused start holds no streak: once allowed again, the next start is relayed.
        if (event === "typing:start") repeats.stopped(socket, key);
        throw error;
      }
      if (event === "typing:stop") repeats.stopped(socket, key);
      return { channelId };
    };
  return { "typing:start": typing("typing:start"), "typing:stop": typing("typing:stop") };
}
