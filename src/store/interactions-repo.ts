import type { Database } from "./database.ts";
import { nowSeconds } from "./time.ts";

type InteractionType = "slash_command" | "message_component";

export interface InteractionRow {
  id: string;
  application_id: string;
  bot_user_id: string;
  type: InteractionType;
  user_id: string;
  server_id: string | null;
  channel_id: string | null;
  message_id: string | null;
  /** The payload delivered to the bot, as JSON. */
  data: string;
  created_at: number;
  responded_at: number | null;
}

interface NewInteraction {
  id: string;
  applicationId: string;
  botUserId: string;
  type: InteractionType;
  userId: string;
  serverId: string;
  channelId: string;
  messageId: string;
  data: string;
}

/** Interactions delivered to bots, kept so a response can be checked against what was asked. */
export class InteractionsRepo {
  private readonly insertStmt;
  private readonly byId;
  private readonly respondStmt;

  constructor(private readonly db: Database) {
    this.insertStmt = db.prepare<InteractionRow, [Record<string, string | number>]>(
      `INSERT INTO interactions (id, application_id, bot_user_id, type, user_id, server_id, channel_id, message_id, data, created_at)
       VALUES ($id, $application_id, $bot_user_id, $type, $user_id, $server_id, $channel_id, $message_id, ${db.dialect.json("$data")}, $now) RETURNING *`,
    );
    this.byId = db.prepare<InteractionRow, [string]>("SELECT * FROM interactions WHERE id = ?");
    // Only the first response is recorded: later ones are follow-ups.
    this.respondStmt = db.prepare("UPDATE interactions SET responded_at = coalesce(responded_at, ?) WHERE id = ?");
  }

  async insert(interaction: NewInteraction): Promise<InteractionRow> {
    return (await this.db.get(this.insertStmt, {
      id: interaction.id,
      application_id: interaction.applicationId,
      bot_user_id: interaction.botUserId,
      type: interaction.type,
      user_id: interaction.userId,
      server_id: interaction.serverId,
      channel_id: interaction.channelId,
      message_id: interaction.messageId,
      data: interaction.data,
      now: nowSeconds(),
    }))!;
  }

  async findById(id: string): Promise<InteractionRow | null> {
    return this.db.get(this.byId, id);
  }

  async markResponded(id: string): Promise<void> {
    await this.db.run(this.respondStmt, nowSeconds(), id);
  }
}
