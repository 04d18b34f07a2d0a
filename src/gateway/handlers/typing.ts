import * as v from "valibot";
import type { Domain } from "../../domain/domain.ts";
import { parseInput } from "../../domain/validation.ts";
import type { Logger } from "../../log.ts";
import { onClientEvent } from "../ack.ts";
import type { GatewaySocket } from "../gateway.ts";

const ChannelId = v.pipe(v.string("must be a channel id"), v.uuid("must be a channel id"));

/** `typing:start` / `typing:stop <channelId>`: relayed to the channel room as `{userId, username, channelId}`. */
export function registerTypingEvents(socket: GatewaySocket, domain: Domain, log: Logger): void {
  for (const event of ["typing:start", "typing:stop"] as const) {
    onClientEvent(socket, event, log, async (payload) => {
      const channelId = parseInput(ChannelId, payload, "channelId");
      const user = await domain.users.get(socket.data.userId);
      await domain.messages.typing(channelId, user, event);
      return { channelId };
    });
  }
}
