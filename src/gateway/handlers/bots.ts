import * as v from "valibot";
import type { Domain } from "../../domain/domain.ts";
import { forbidden } from "../../domain/shared/errors.ts";
import { parseInput } from "../../domain/shared/validation.ts";
import type { Message } from "../../domain/shared/shapes.ts";
import type { ClientEventTable } from "../ack.ts";
import type { GatewaySocket } from "../socket-types.ts";

const Id = (what: string) => v.pipe(v.string(`must be ${what} id`), v.uuid(`must be ${what} id`));
const content = v.optional(v.string("must be a string"));
const embeds = v.optional(v.nullable(v.array(v.unknown(), "must be an array")));

const InteractionResponse = v.object(
  { interaction_id: Id("an interaction"), channel_id: Id("a channel"), content, embeds },
  "must be an object {interaction_id, channel_id, content?, embeds?}",
);
const SendMessage = v.object({ channel_id: Id("a channel"), content, embeds }, "must be an object {channel_id, content?, embeds?}");
const EditMessage = v.object(
  { message_id: Id("a message"), channel_id: v.optional(Id("a channel")), content, embeds },
  "must be an object {message_id, channel_id?, content?, embeds?}",
);
const DeleteMessage = v.object(
  { message_id: Id("a message"), channel_id: v.optional(Id("a channel")) },
  "must be an object {message_id, channel_id?}",
);
const ComponentPress = v.object(
  {
    message_id: Id("a message"),
    custom_id: v.pipe(v.string("must be a string"), v.minLength(1, "must not be empty"), v.maxLength(100, "must be at most 100 characters")),
    values: v.optional(v.unknown()),
  },
  "must be an object {message_id, custom_id, values?}",
);

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
      return sent(await domain.interactions.send(user, parseInput(SendMessage, payload, "payload")));
    },
    "bot:edit_message": async (socket, payload) => {
      const user = await bot(socket);
      return sent(await domain.interactions.edit(user, parseInput(EditMessage, payload, "payload")));
    },
    "bot:delete_message": async (socket, payload) => {
      const user = await bot(socket);
      await domain.interactions.delete(user, parseInput(DeleteMessage, payload, "payload"));
    },
    "message:component": async (socket, payload) => {
      const press = parseInput(ComponentPress, payload, "payload");
      return domain.interactions.press(await domain.users.get(socket.data.userId), press);
    },
  };
}
