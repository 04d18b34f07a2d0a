import * as v from "valibot";
import type { Store } from "../../store/store.ts";
import type { UserRow } from "../../store/users-repo.ts";
import type { Access } from "../access/access.ts";
import type { Audit } from "../access/audit.ts";
import { badRequest, notFound } from "../shared/errors.ts";
import { rooms, type EventBus } from "../shared/events.ts";
import type { Messages } from "./messages.ts";
import { PERMISSIONS } from "../access/permission-bits.ts";
import { channelMessage } from "./reactions.ts";
import { Uuid, type Message } from "../shared/shapes.ts";
import { LIMITS } from "../shared/limits.ts";

export const PinState = v.object({ channelId: Uuid, messageId: Uuid, pinned: v.boolean() });
export type PinState = v.InferOutput<typeof PinState>;

/**
 * Channel pins. Pinning and unpinning need MANAGE_MESSAGES (as on Discord); listing needs
 * READ_MESSAGE_HISTORY. Each change emits `message:pin` and writes MESSAGE_PIN / MESSAGE_UNPIN
 * with the message's author as the target.
 */
export class Pins {
  constructor(
    private readonly store: Store,
    private readonly access: Access,
    private readonly audit: Audit,
    private readonly messages: Messages,
    private readonly bus: EventBus,
  ) {}

  /** Idempotent: pinning a pinned message answers the same state, without event or audit. */
  async pin(channelId: string, messageId: string, user: UserRow): Promise<PinState> {
    const { context, message } = await channelMessage(this.store, this.access, channelId, messageId, user.id, PERMISSIONS.MANAGE_MESSAGES);
    const outcome = await this.store.pins.pin(context.channel.id, message.id, user.id, LIMITS.message.pinsPerChannel);
    if (outcome === "full") throw badRequest(`This channel already has the maximum of ${LIMITS.message.pinsPerChannel} pinned messages`);
    const state = { channelId: context.channel.id, messageId: message.id, pinned: true };
    if (outcome === "pinned") {
      this.bus.publish(rooms.channel(context.channel.id), "message:pin", state);
      await this.audit.record(context.channel.server_id, user.id, "MESSAGE_PIN", { type: "member", id: message.user_id }, {
        messageId: message.id,
        channelId: context.channel.id,
      });
    }
    return state;
  }

  /** 404 when the message is not pinned. */
  async unpin(channelId: string, messageId: string, user: UserRow): Promise<PinState> {
    const { context, message } = await channelMessage(this.store, this.access, channelId, messageId, user.id, PERMISSIONS.MANAGE_MESSAGES);
    if (!(await this.store.pins.unpin(message.id))) throw notFound("Pin");
    const state = { channelId: context.channel.id, messageId: message.id, pinned: false };
    this.bus.publish(rooms.channel(context.channel.id), "message:pin", state);
    await this.audit.record(context.channel.server_id, user.id, "MESSAGE_UNPIN", { type: "member", id: message.user_id }, {
      messageId: message.id,
      channelId: context.channel.id,
    });
    return state;
  }

  /** The pinned messages as message objects, newest pin first. */
  async list(channelId: string, user: UserRow): Promise<Message[]> {
    const { channel } = await this.access.requireChannel(channelId, user.id, PERMISSIONS.READ_MESSAGE_HISTORY);
    return this.messages.hydrate(await this.store.pins.list(channel.id));
  }
}
