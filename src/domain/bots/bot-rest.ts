import type { UserRow } from "../../store/users-repo.ts";
import type { Presence } from "../accounts/presence.ts";
import type { Users } from "../accounts/users.ts";
import type { Channels } from "../community/channels.ts";
import type { Member, Members } from "../community/members.ts";
import type { Dms, DmMessage } from "../dms/dms.ts";
import type { MessagePage, Messages } from "../messaging/messages.ts";
import { badRequest, notFound } from "../shared/errors.ts";
import type { Activity, Channel, Message, PresenceStatus, PublicUser } from "../shared/shapes.ts";
import type { MessageBodyInput, SendMessageInput } from "../messaging/message-schemas.ts";
import type { NonceInput } from "../messaging/nonce.ts";

const hasBody = (input: MessageBodyInput) =>
  (input.content !== undefined && input.content.trim() !== "") || (input.embeds !== undefined && input.embeds !== null && input.embeds.length > 0);

/**
 * Bot REST (`/api/v1/oauth2/bot`): the rules that only bots have, in front of the shared
 * domain functions. Permission checks, events and audit entries stay in those functions;
 * routes that need nothing bot-specific call the features directly.
 */
export class BotRest {
  constructor(
    private readonly messages: Messages,
    private readonly dms: Dms,
    private readonly serverChannels: Channels,
    private readonly members: Members,
    private readonly presence: Presence,
    private readonly users: Users,
  ) {}

  send(channelId: string, bot: UserRow, input: SendMessageInput): Promise<Message> {
    // Messages.send refuses a message with neither content nor embeds (spec "Errors" 5).
    return this.messages.send(channelId, bot, input);
  }

  /** A bot edits only its own messages, even when its role holds MANAGE_MESSAGES. */
  async edit(channelId: string, messageId: string, bot: UserRow, input: MessageBodyInput): Promise<Message> {
    if (input.content === undefined && input.embeds === undefined) throw badRequest("An edit needs content or embeds");
    return this.messages.edit(messageId, bot, input, { channelId, ownOnly: true });
  }

  /** A bot deletes only its own messages one by one; others' go through bulk delete (MANAGE_MESSAGES). */
  async delete(channelId: string, messageId: string, bot: UserRow): Promise<void> {
    await this.messages.delete(messageId, bot, { channelId, ownOnly: true });
  }

  list(channelId: string, bot: UserRow, query: MessagePage): Promise<Message[]> {
    return this.messages.page(channelId, bot, query);
  }

  /**
   * A DM message through the same Dms as users' DMs: the target must share a server with the bot
   * and not take direct messages from friends only (a bot is never a friend).
   */
  async dm(targetUserId: string, bot: UserRow, input: MessageBodyInput & NonceInput): Promise<DmMessage> {
    if (!hasBody(input)) throw badRequest("A message needs content or embeds");
    const { dm } = await this.dms.openDm(bot, targetUserId);
    return this.dms.send(dm, bot, { content: input.content ?? "", embeds: input.embeds, nonce: input.nonce, enforce_nonce: input.enforce_nonce });
  }

  /** The channels the bot can see, as a bare array (each names its `category_id`). */
  async channels(serverId: string, bot: UserRow): Promise<Channel[]> {
    return (await this.serverChannels.list(serverId, bot)).channels;
  }

  /** One member, in the shape of the member list (with `roles`: custom role ids, highest first). */
  member(serverId: string, bot: UserRow, userId: string): Promise<Member> {
    return this.members.one(serverId, bot.id, userId);
  }

  setPresence(bot: UserRow, status: PresenceStatus, activity: Activity | null | undefined) {
    return this.presence.setPresence(bot.id, status, activity);
  }

  /**
   * The public user plus `activity`: shown while that user is connected and not invisible, and
   * only to a bot that shares a server with them (presenceShownTo: an offline status has none).
   */
  async user(bot: UserRow, userId: string): Promise<PublicUser & { activity: Activity | null }> {
    const user = await this.users.publicUser(userId, bot);
    return { ...user, activity: await this.presence.visibleActivity(user.id, user.status) };
  }
}
