import type { Store } from "../../store/store.ts";
import type { UserRow } from "../../store/users-repo.ts";
import type { Access } from "../access/access.ts";
import { ApiError } from "../shared/errors.ts";
import { rooms, type EventBus } from "../shared/events.ts";

/** One entry of `GET /api/v1/users/me/read-states` (docs/read-states.md). */
export interface ReadStateEntry {
  /** A channel's id, or a DM's (1:1 or group) id: its `conversation_id`. */
  channel_id: string;
  last_read_message_id: string | null;
  last_message_id: string;
  mention_count: number;
}

/**
 * Read states: what a user has not read, where they are mentioned, and the mark-read that
 * tells their other devices. Counts come from rows kept at write time (migration 19); this
 * class only joins them and drops what the user may not view.
 */
export class ReadStates {
  constructor(
    private readonly store: Store,
    private readonly access: Access,
    private readonly bus: EventBus,
  ) {}

  /** Every visible channel and DM with unread messages or unread mentions. */
  async list(user: UserRow): Promise<ReadStateEntry[]> {
    const repo = this.store.readStates;
    const [channels, mentions, dms] = await Promise.all([repo.unreadChannelsOf(user.id), repo.mentionCountsOf(user.id), repo.unreadDmsOf(user.id)]);
    const counts = new Map(mentions.map((m) => [m.channel_id, Number(m.mentions)]));
    const entries: ReadStateEntry[] = [];
    for (const row of channels) {
      if (!(await this.canView(row.channel_id, user.id))) continue;
      entries.push({
        channel_id: row.channel_id,
        last_read_message_id: row.last_read_message_id,
        last_message_id: row.last_message_id,
        mention_count: counts.get(row.channel_id) ?? 0,
      });
    }
    for (const row of dms) {
      entries.push({ channel_id: row.conversation_id, last_read_message_id: row.last_read_message_id, last_message_id: row.last_message_id, mention_count: 0 });
    }
    return entries;
  }

  /** A server's mark-read: each of its visible channels read up to its newest message. */
  async markServer(userId: string, serverId: string): Promise<void> {
    for (const row of await this.store.readStates.unreadChannelsOf(userId)) {
      if (row.server_id !== serverId || !(await this.canView(row.channel_id, userId))) continue;
      await markChannelRead(this.store, this.bus, userId, row.channel_id, row.last_message_id);
    }
  }

  private async canView(channelId: string, userId: string): Promise<boolean> {
    try {
      await this.access.requireChannel(channelId, userId);
      return true;
    } catch (error) {
      if (error instanceof ApiError) return false;
      throw error;
    }
  }
}

/** Moves a channel's read point forward (never back) and tells the reader's sockets. */
export async function markChannelRead(store: Store, bus: EventBus, userId: string, channelId: string, messageId: string | null): Promise<string | null> {
  const stored = await store.readStates.markChannel(userId, channelId, messageId);
  const mentions = await store.readStates.mentionCountIn(userId, channelId);
  bus.publish(rooms.user(userId), "read-state:update", { channel_id: channelId, last_read_message_id: stored, mention_count: mentions });
  return stored;
}

/** The same for a DM (1:1 or group); `channel_id` is the DM's id. */
export async function markDmRead(store: Store, bus: EventBus, userId: string, dmId: string, messageId: string | null): Promise<string | null> {
  const stored = await store.readStates.markDm(userId, dmId, messageId);
  bus.publish(rooms.user(userId), "read-state:update", { channel_id: dmId, last_read_message_id: stored, mention_count: 0 });
  return stored;
}
