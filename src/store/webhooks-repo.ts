import type { Database } from "./database.ts";
import { nowSeconds } from "./time.ts";
import { secretContext, type SecretBox } from "./secret-box.ts";

/** A stored channel webhook. */
export interface WebhookRow {
  id: string;
  channel_id: string;
  server_id: string;
  name: string;
  avatar: string | null;
  token: string;
  created_by: string | null;
  created_at: number;
  updated_at: number;
  /**
   * The account its messages are stored under (messages.user_id is a user): the creator, or
   * the server owner once the creator's account is gone.
   */
  author_id: string;
}

export interface NewWebhook {
  channelId: string;
  serverId: string;
  name: string;
  avatar: string | null;
  token: string;
  createdBy: string;
}

/** Not of a server or channel being deleted (migration 22). */
const SELECT = `SELECT w.*, coalesce(w.created_by, s.owner_id) AS author_id FROM webhooks w
  JOIN servers s ON s.id = w.server_id AND s.deleted_at IS NULL JOIN channels c ON c.id = w.channel_id AND c.deleted_at IS NULL`;

/** Channel webhooks. Deleting a channel (or server) deletes its webhooks by cascade. */
export class WebhooksRepo {
  private readonly byId;
  private readonly ofChannel;
  private readonly insertStmt;
  private readonly updateStmt;
  private readonly tokenStmt;
  private readonly deleteStmt;
  private readonly countOfChannel;

  constructor(
    private readonly db: Database,
    private readonly secrets: SecretBox,
  ) {
    this.byId = db.prepare<WebhookRow, [string]>(`${SELECT} WHERE w.id = ?`);
    this.ofChannel = db.prepare<WebhookRow, [string]>(`${SELECT} WHERE w.channel_id = ? ORDER BY w.created_at, w.id`);
    this.insertStmt = db.prepare(
      `INSERT INTO webhooks (id, channel_id, server_id, name, avatar, token, created_by, created_at, updated_at)
       VALUES ($id, $channel_id, $server_id, $name, $avatar, $token, $created_by, $now, $now)`,
    );
    this.updateStmt = db.prepare("UPDATE webhooks SET name = ?, avatar = ?, updated_at = ? WHERE id = ?");
    this.tokenStmt = db.prepare("UPDATE webhooks SET token = ?, updated_at = ? WHERE id = ?");
    this.deleteStmt = db.prepare("DELETE FROM webhooks WHERE id = ?");
    // webhooks_channel serves it.
    this.countOfChannel = db.prepare<{ n: number }, [string]>("SELECT count(*) AS n FROM webhooks WHERE channel_id = ?");
  }

  async find(id: string): Promise<WebhookRow | null> {
    return this.open(await this.db.get(this.byId, id));
  }

  async listByChannel(channelId: string): Promise<WebhookRow[]> {
    return (await this.db.all(this.ofChannel, channelId)).map((row) => this.open(row)!);
  }

  /** A row as the domain sees it: the token in clear (it is stored sealed). */
  private open(row: WebhookRow | null): WebhookRow | null {
    return row && { ...row, token: this.secrets.open(row.token, secretContext("webhooks.token", row.id)) };
  }

  /** The new webhook, or null when the channel already has `maxPerChannel`; one transaction. */
  async insert(webhook: NewWebhook, maxPerChannel: number): Promise<WebhookRow | null> {
    return this.db.transaction(async (tx) => {
      await tx.lock(`webhooks:${webhook.channelId}`);
      if (((await tx.get(this.countOfChannel, webhook.channelId))?.n ?? 0) >= maxPerChannel) return null;
      const id = Bun.randomUUIDv7();
      await tx.run(this.insertStmt, {
        id,
        channel_id: webhook.channelId,
        server_id: webhook.serverId,
        name: webhook.name,
        avatar: webhook.avatar,
        token: this.secrets.seal(webhook.token, secretContext("webhooks.token", id)),
        created_by: webhook.createdBy,
        now: nowSeconds(),
      });
      return this.open(await tx.get(this.byId, id))!;
    });
  }

  /** The updated row, or null when it is gone. */
  async update(id: string, name: string, avatar: string | null): Promise<WebhookRow | null> {
    if ((await this.db.run(this.updateStmt, name, avatar, nowSeconds(), id)) === 0) return null;
    return this.open(await this.db.get(this.byId, id));
  }

  /** Replaces the token (the old one stops working at once); null when the webhook is gone. */
  async setToken(id: string, token: string): Promise<WebhookRow | null> {
    if ((await this.db.run(this.tokenStmt, this.secrets.seal(token, secretContext("webhooks.token", id)), nowSeconds(), id)) === 0) return null;
    return this.open(await this.db.get(this.byId, id));
  }

  async delete(id: string): Promise<boolean> {
    return (await this.db.run(this.deleteStmt, id)) > 0;
  }
}
