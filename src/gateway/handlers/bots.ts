import type { Domain } from "../../domain/domain.ts";
import { forbidden } from "../../domain/shared/errors.ts";
import { parseInput } from "../../domain/shared/validation.ts";
import type { Message } from "../../domain/shared/shapes.ts";
import type { ClientEventTable } from "../ack.ts";
import type { GatewaySocket } from "../socket-types.ts";
import { BotDeleteMessage, BotEditMessage, BotSendMessage, ComponentPress, InteractionResponse } from "../../domain/bots/interactions.ts";

const sent = (message: Message) => ({ message_id: message.id, message });

/**
 * The bot platform's client events. Bots: `interaction:response`, `bot:send_message`,
 * `bot:edit_message`, `bot:delete_message` (user sockets are refused). Everyone:
 * `message:component`, a press of a component on a bot's message.
 */
export function botEvents(domain: Domain): ClientEventTable {
  const bot = async (socket: GatewaySocket) => {
    if (!socket.data.isBot) throw forbidden("This event needs a bot token");
    return domain.users.get(socket.data.userId);
  };
  return {
    "interaction:response": async (socket, payload) => {
      const user = await bot(socket);
      return sent(await domain.interactions.respond(user, parseInput(InteractionResponse, payload, "payload")));
    },
    "bot:send_message": async (socket, payload) => {
      const user = await bot(socket);
      return sent(await domain.interactions.send(user, parseInput(BotSendMessage, payload, "payload")));
    },
    "bot:edit_message": async (socket, payload) => {
      const user = await bot(socket);
      return sent(await domain.interactions.edit(user, parseInput(BotEditMessage, payload, "payload")));
    },
    "bot:delete_message": async (socket, payload) => {
      const user = await bot(socket);
      await domain.interactions.delete(user, parseInput(BotDeleteMessage, payload, "payload"));
    },
    "message:component": async (socket, payload) => {
      const press = parseInput(ComponentPress, payload, "payload");
      return domain.interactions.press(await domain.users.get(socket.data.userId), press);
    },
  };
}
