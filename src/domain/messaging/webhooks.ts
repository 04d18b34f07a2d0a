import * as v from "valibot";
import { sameSecret } from "../shared/same-secret.ts";
import type { Store } from "../../store/store.ts";
import type { UserRow } from "../../store/users-repo.ts";
import type { WebhookRow } from "../../store/webhooks-repo.ts";
import type { Access, ChannelContext } from "../access/access.ts";
import { ApiError, forbidden, notFound, tooManyRequests, unauthorized } from "../shared/errors.ts";
import { LIMITS } from "../shared/limits.ts";
import { capReached, type ResourceCaps } from "../shared/caps.ts";
import type { Messages } from "./messages.ts";
import { PERMISSIONS } from "../access/permission-bits.ts";
import type { SharedRateLimiter, SharedState } from "../shared/shared-state.ts";
import { UnixSeconds, Uuid, type Message } from "../shared/shapes.ts";
import { isUuid } from "../shared/validation.ts";
import type { ExecuteWebhookInput, NewWebhookInput, WebhookChangesInput } from "./webhook-schemas.ts";

const INVALID_WEBHOOK = "Invalid webhook";
/** Token bytes: 32 random bytes, 43 characters of base64url. */
const TOKEN_BYTES = 32;

/** A webhook as its managers see it, token and execute URL included. */
export const Webhook = v.object({
  id: Uuid,
  name: v.string(),
  avatar: v.nullable(v.string()),
  channel_id: Uuid,
  server_id: Uuid,
  token: v.string(),
  url: v.string(),
  created_by: v.nullable(Uuid),
  created_at: UnixSeconds,
});
export type Webhook = v.InferOutput<typeof Webhook>;

/** What the holder of the URL may read (CONTRACT.md). */
export const WebhookMetadata = v.object({ id: Uuid, name: v.string(), avatar: v.nullable(v.string()), channel_id: Uuid, url: v.string() });
export type WebhookMetadata = v.InferOutput<typeof WebhookMetadata>;

/** The execute URL, as a path: clients put their base URL in front. */
export const webhookUrl = (row: Pick<WebhookRow, "id" | "token">) => `/api/webhooks/${row.id}/${row.token}`;

function toWebhook(row: WebhookRow): Webhook {
  return {
    id: row.id,
    name: row.name,
    avatar: row.avatar,
    channel_id: row.channel_id,
    server_id: row.server_id,
    token: row.token,
    url: webhookUrl(row),
    created_by: row.created_by,
    created_at: row.created_at,
  };
}

const newToken = () => Buffer.from(crypto.getRandomValues(new Uint8Array(TOKEN_BYTES))).toString("base64url");


/**
 * Channel webhooks (SPEC.md "Channel webhooks"). Managing them needs a user token and
 * MANAGE_CHANNELS in the channel; executing needs only the URL token, and posts through
 * `Messages.sendAsWebhook`, the shared send path. Notes: docs/webhooks.md.
 */
export class Webhooks {
  /** Shared by every node in cluster mode. */
  private readonly executes: SharedRateLimiter;

  constructor(
    private readonly store: Store,
    private readonly access: Access,
    private readonly messages: Messages,
    shared: SharedState,
    private readonly caps: ResourceCaps,
  ) {
    this.executes = shared.rateLimiter("webhook-executes", LIMITS.webhookExecutesPerMinute, 60_000);
  }

  async list(channelId: string, user: UserRow): Promise<Webhook[]> {
    const { channel } = await this.manageChannel(channelId, user);
    return (await this.store.webhooks.listByChannel(channel.id)).map(toWebhook);
  }

  async create(channelId: string, user: UserRow, input: NewWebhookInput): Promise<Webhook> {
    const { channel } = await this.manageChannel(channelId, user);
    const row = await this.store.webhooks.insert({
      channelId: channel.id,
      serverId: channel.server_id,
      name: input.name,
      avatar: input.avatar ?? null,
      token: newToken(),
      createdBy: user.id,
    }, this.caps.webhooksPerChannel);
    if (!row) throw capReached.webhooks(this.caps);
    return toWebhook(row);
  }

  async update(webhookId: string, user: UserRow, patch: WebhookChangesInput): Promise<Webhook> {
    const row = await this.manage(webhookId, user);
    const updated = await this.store.webhooks.update(row.id, patch.name ?? row.name, patch.avatar === undefined ? row.avatar : patch.avatar);
    if (!updated) throw notFound("Webhook");
    return toWebhook(updated);
  }

  /** A new token; the old one stops working at once. */
  async regenerateToken(webhookId: string, user: UserRow): Promise<Webhook> {
    const row = await this.manage(webhookId, user);
    const updated = await this.store.webhooks.setToken(row.id, newToken());
    if (!updated) throw notFound("Webhook");
    return toWebhook(updated);
  }

  async delete(webhookId: string, user: UserRow): Promise<void> {
    const row = await this.manage(webhookId, user);
    if (!(await this.store.webhooks.delete(row.id))) throw notFound("Webhook");
    await this.executes.reset(row.id);
  }

  /** The URL's id and token, or 401 `Invalid webhook` (never 404: ids are not probed). */
  async authenticate(webhookId: string, token: string): Promise<WebhookRow> {
    const row = isUuid(webhookId) ? await this.store.webhooks.find(webhookId.toLowerCase()) : null;
    // Compare even without a row, so a missing id and a wrong token take the same time.
    const matches = sameSecret(row?.token ?? "", token);
    if (!row || !matches) throw unauthorized(INVALID_WEBHOOK);
    return row;
  }

  /** The metadata of an authenticated webhook. */
  metadata(row: WebhookRow): WebhookMetadata {
    return { id: row.id, name: row.name, avatar: row.avatar, channel_id: row.channel_id, url: webhookUrl(row) };
  }

  /** Counts an execute of an authenticated webhook against its limit (429 past it). */
  async admit(row: WebhookRow): Promise<void> {
    const decision = await this.executes.hit(row.id);
    if (!decision.allowed) throw tooManyRequests(decision.retryAfter, "This webhook is being rate limited, try again later");
  }

  /** Posts as the webhook: its name and avatar unless the request names others. */
  async execute(webhook: WebhookRow, input: ExecuteWebhookInput): Promise<Message> {
    return this.messages.sendAsWebhook(
      {
        id: webhook.id,
        channelId: webhook.channel_id,
        userId: webhook.author_id,
        username: input.username ?? webhook.name,
        avatar: input.avatar_url ?? webhook.avatar,
      },
      { content: input.content, embeds: input.embeds, nonce: input.nonce, enforce_nonce: input.enforce_nonce },
    );
  }

  /** The caller in the channel with MANAGE_CHANNELS there; bot tokens are refused (SPEC: user token). */
  private async manageChannel(channelId: string, user: UserRow): Promise<ChannelContext> {
    if (user.is_bot) throw forbidden("Webhook management needs a user token");
    return this.access.requireChannel(channelId, user.id, PERMISSIONS.MANAGE_CHANNELS);
  }

  /** The webhook (404 when missing), for a manager of its channel (403 when the caller cannot view it). */
  private async manage(webhookId: string, user: UserRow): Promise<WebhookRow> {
    const row = isUuid(webhookId) ? await this.store.webhooks.find(webhookId.toLowerCase()) : null;
    if (!row) throw notFound("Webhook");
    try {
      await this.manageChannel(row.channel_id, user);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) throw notFound("Webhook");
      throw error;
    }
    return row;
  }
}
