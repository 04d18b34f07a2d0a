/**
 * Interactions (SPEC.md "Interaction (delivered to bots)"): bots answering them, the bot-only
 * message events, and component presses (slash-command detection: ./slash-commands.ts).
 * Every message written here goes through `Messages.send` / `edit` / `delete`, so the bot
 * paths obey exactly the rules the REST paths do. Notes: docs/interactions.md.
 */
import * as v from "valibot";
import type { Store } from "../../store/store.ts";
import type { InteractionRow } from "../../store/interactions-repo.ts";
import type { MessageRow } from "../../store/messages-repo.ts";
import type { UserRow } from "../../store/users-repo.ts";
import type { Access } from "../access/access.ts";
import { findComponent, validateComponentValues } from "../messaging/embeds.ts";
import { badRequest, forbidden, notFound } from "../shared/errors.ts";
import { rooms, type EventBus, type Interaction } from "../shared/events.ts";
import type { Messages } from "../messaging/messages.ts";
import { PERMISSIONS } from "../access/permission-bits.ts";
import { hasPermission } from "../access/permissions.ts";
import type { Message } from "../shared/shapes.ts";
import { isUuid } from "../shared/validation.ts";
import { LIMITS } from "../shared/limits.ts";
import { MessageBody } from "../messaging/message-schemas.ts";
import { nonceEntries } from "../messaging/nonce.ts";

const Id = (what: string) => v.pipe(v.string(`must be ${what} id`), v.uuid(`must be ${what} id`));
const { customIdLength } = LIMITS.bot;

/**
 * The payloads of the bot events and component presses (the gateway parses them with these);
 * the message fields are the ones every message path shares (../messaging/message-schemas.ts).
 */
export const InteractionResponse = v.object(
  { interaction_id: Id("an interaction"), channel_id: Id("a channel"), ...MessageBody.entries, ...nonceEntries },
  "must be an object {interaction_id, channel_id, content?, embeds?}",
);
export const BotSendMessage = v.object(
  { channel_id: Id("a channel"), ...MessageBody.entries, ...nonceEntries },
  "must be an object {channel_id, content?, embeds?}",
);
export const BotEditMessage = v.object(
  { message_id: Id("a message"), channel_id: v.optional(Id("a channel")), ...MessageBody.entries },
  "must be an object {message_id, channel_id?, content?, embeds?}",
);
export const BotDeleteMessage = v.object(
  { message_id: Id("a message"), channel_id: v.optional(Id("a channel")) },
  "must be an object {message_id, channel_id?}",
);
export const ComponentPress = v.object(
  {
    message_id: Id("a message"),
    custom_id: v.pipe(
      v.string("must be a string"),
      v.minLength(1, "must not be empty"),
      v.maxLength(customIdLength, `must be at most ${customIdLength} characters`),
    ),
    values: v.optional(v.unknown()),
  },
  "must be an object {message_id, custom_id, values?}",
);

const BOTS_CANNOT_PRESS = "Bots cannot press components";

/** Responses, the bot-only message events and component presses. */
export class Interactions {
  constructor(
    private readonly store: Store,
    private readonly access: Access,
    private readonly messages: Messages,
    private readonly bus: EventBus,
  ) {}

  /**
   * `interaction:response`: the bot that received the interaction answers in its channel, as
   * an ordinary bot message (every send rule applies). Later responses are follow-ups.
   */
  async respond(bot: UserRow, input: v.InferOutput<typeof InteractionResponse>): Promise<Message> {
    this.requireBot(bot);
    const interaction = await this.findInteraction(input.interaction_id);
    if (interaction.bot_user_id !== bot.id) throw forbidden("This interaction was delivered to another bot");
    if (interaction.channel_id !== input.channel_id) throw badRequest("channel_id: must be the interaction's channel");
    const message = await this.messages.send(input.channel_id, bot, { content: input.content, embeds: input.embeds, nonce: input.nonce, enforce_nonce: input.enforce_nonce });
    await this.store.interactions.markResponded(interaction.id);
    return message;
  }

  /** `bot:send_message`. */
  async send(bot: UserRow, input: v.InferOutput<typeof BotSendMessage>): Promise<Message> {
    this.requireBot(bot);
    return this.messages.send(input.channel_id, bot, { content: input.content, embeds: input.embeds, nonce: input.nonce, enforce_nonce: input.enforce_nonce });
  }

  /** `bot:edit_message`: the bot's own messages only; the message then has `updated_at` set. */
  async edit(bot: UserRow, input: v.InferOutput<typeof BotEditMessage>): Promise<Message> {
    this.requireBot(bot);
    if (input.content === undefined && input.embeds === undefined) throw badRequest("A message edit needs content or embeds");
    return this.messages.edit(input.message_id, bot, { content: input.content, embeds: input.embeds }, { channelId: input.channel_id, ownOnly: true });
  }

  /** `bot:delete_message`: the bot's own messages only. */
  async delete(bot: UserRow, input: v.InferOutput<typeof BotDeleteMessage>): Promise<void> {
    this.requireBot(bot);
    await this.messages.delete(input.message_id, bot, { channelId: input.channel_id, ownOnly: true });
  }

  /**
   * `message:component`: a person presses a component on a bot's message; bots never do (one
   * bot could otherwise drive another, or itself). The presser must see the channel and hold
   * USE_APPLICATION_COMMANDS there (which a timeout takes away); the values must fit the
   * component (a channel select's values must be channels of the same server the presser can
   * see). The interaction goes to the authoring bot alone.
   */
  async press(user: UserRow, input: v.InferOutput<typeof ComponentPress>): Promise<{ interaction_id: string }> {
    if (user.is_bot === 1) throw forbidden(BOTS_CANNOT_PRESS);
    const row = await this.findMessage(input.message_id);
    const { channel } = await this.access.requireChannel(row.channel_id, user.id, PERMISSIONS.USE_APPLICATION_COMMANDS);
    const component = findComponent(JSON.parse(row.embeds), input.custom_id);
    if (!component) throw badRequest("custom_id: no such component on this message");
    if (row.is_bot !== 1 || row.webhook_id !== null) throw badRequest("Only components on a bot's messages can be pressed");
    const values = validateComponentValues(component, input.values);
    const application = await this.store.applications.findByBotUser(row.user_id);
    const server = await this.access.server(channel.server_id);
    if (!application || !(await this.access.memberOf(server, row.user_id))) {
      throw badRequest("The bot that sent this message is no longer in this server");
    }

    // Keys in the order the spec lists them: the component's, then where and who.
    const payload: Extract<Interaction, { type: "message_component" }> = {
      id: Bun.randomUUIDv7(),
      type: "message_component",
      component_type: component.type,
      custom_id: component.custom_id,
      ...(component.type === "string_select" ? { values } : {}),
      ...(component.type === "channel_select"
        ? { selected_channels: await this.resolveChannels(user, channel.server_id, values, component.channel_types) }
        : {}),
      channel_id: channel.id,
      server_id: channel.server_id,
      user: { id: user.id, username: user.username },
      message_id: row.id,
    };
    await this.store.interactions.insert({
      id: payload.id,
      applicationId: application.id,
      botUserId: row.user_id,
      type: "message_component",
      userId: user.id,
      serverId: channel.server_id,
      channelId: channel.id,
      messageId: row.id,
      data: JSON.stringify(payload),
    });
    this.bus.publish(rooms.user(row.user_id), "interaction:create", payload);
    return { interaction_id: payload.id };
  }

  /** Channel ids to `{id, name, type}`: same server, visible to the presser, of an allowed type. */
  private async resolveChannels(user: UserRow, serverId: string, ids: string[], types: readonly string[] | undefined) {
    const member = await this.access.member(serverId, user.id);
    const resolved: { id: string; name: string; type: string }[] = [];
    for (const [index, id] of ids.entries()) {
      const channel = await this.store.channels.findById(id.toLowerCase());
      const visible = channel && channel.server_id === serverId && hasPermission(await this.access.channelPermissions(channel, member), PERMISSIONS.VIEW_CHANNEL);
      if (!channel || !visible) throw badRequest(`values.${index}: no such channel in this server`);
      if (types && !types.includes(channel.type)) throw badRequest(`values.${index}: must be a channel of type ${types.join(" or ")}`);
      resolved.push({ id: channel.id, name: channel.name, type: channel.type });
    }
    return resolved;
  }

  private requireBot(user: UserRow): void {
    if (user.is_bot !== 1) throw forbidden("This event needs a bot token");
  }

  private async findInteraction(id: string): Promise<InteractionRow> {
    const row = isUuid(id) ? await this.store.interactions.findById(id.toLowerCase()) : null;
    if (!row) throw notFound("Interaction");
    return row;
  }

  private async findMessage(id: string): Promise<MessageRow> {
    const row = isUuid(id) ? await this.store.messages.findById(id.toLowerCase()) : null;
    if (!row) throw notFound("Message");
    return row;
  }
}
