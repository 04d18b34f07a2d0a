import type { Database } from "./database.ts";
import { nowSeconds } from "./time.ts";

type MessageNotificationLevel = "all" | "mentions" | "none";

export interface NotificationSettings {
  message_notifications: MessageNotificationLevel;
  dm_notifications: boolean;
  friend_request_notifications: boolean;
  sounds: boolean;
  desktop: boolean;
}

const DEFAULT_NOTIFICATION_SETTINGS: NotificationSettings = {
  message_notifications: "all",
  dm_notifications: true,
  friend_request_notifications: true,
  sounds: true,
  desktop: true,
};

interface NotificationRow {
  message_notifications: MessageNotificationLevel;
  dm_notifications: number;
  friend_request_notifications: number;
  sounds: number;
  desktop: number;
}

export interface ConnectionRow {
  id: string;
  user_id: string;
  type: string;
  name: string;
  url: string | null;
  visible: number;
  created_at: number;
}

export interface MutedUserRow {
  user_id: string;
  username: string;
  avatar: string | null;
  is_bot: 0 | 1;
  created_at: number;
}

/** A user's own settings: notification preferences, profile connections, muted users. */
export class UserSettingsRepo {
  private readonly getNotifications;
  private readonly upsertNotifications;
  private readonly listConnectionsStmt;
  private readonly insertConnection;
  private readonly deleteConnectionStmt;
  private readonly countConnections;
  private readonly listMutedStmt;
  private readonly insertMute;
  private readonly deleteMute;

  constructor(private readonly db: Database) {
    this.getNotifications = db.prepare<NotificationRow, [string]>(
      `SELECT message_notifications, dm_notifications, friend_request_notifications, sounds, desktop
       FROM notification_settings WHERE user_id = ?`,
    );
    this.upsertNotifications = db.prepare(
      `INSERT INTO notification_settings (user_id, message_notifications, dm_notifications,
         friend_request_notifications, sounds, desktop, updated_at)
       VALUES ($user_id, $message_notifications, $dm_notifications, $friend_request_notifications, $sounds, $desktop, $now)
       ON CONFLICT (user_id) DO UPDATE SET message_notifications = excluded.message_notifications,
         dm_notifications = excluded.dm_notifications, friend_request_notifications = excluded.friend_request_notifications,
         sounds = excluded.sounds, desktop = excluded.desktop, updated_at = excluded.updated_at`,
    );
    this.listConnectionsStmt = db.prepare<ConnectionRow, [string]>(
      "SELECT * FROM user_connections WHERE user_id = ? ORDER BY id",
    );
    this.insertConnection = db.prepare<ConnectionRow, [Record<string, string | number | null>]>(
      `INSERT INTO user_connections (id, user_id, type, name, url, visible, created_at)
       VALUES ($id, $user_id, $type, $name, $url, $visible, $now) RETURNING *`,
    );
    this.deleteConnectionStmt = db.prepare("DELETE FROM user_connections WHERE id = ? AND user_id = ?");
    this.countConnections = db.prepare<{ n: number }, [string]>(
      "SELECT count(*) AS n FROM user_connections WHERE user_id = ?",
    );
    this.listMutedStmt = db.prepare<MutedUserRow, [string]>(
      `SELECT u.id AS user_id, u.username, u.avatar, u.is_bot, m.created_at
       FROM muted_users m JOIN users u ON u.id = m.target_id
       WHERE m.user_id = ? ORDER BY m.created_at, u.id`,
    );
    this.insertMute = db.prepare(
      "INSERT INTO muted_users (user_id, target_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
    );
    this.deleteMute = db.prepare("DELETE FROM muted_users WHERE user_id = ? AND target_id = ?");
  }

  async notificationSettings(userId: string): Promise<NotificationSettings> {
    const row = await this.db.get(this.getNotifications, userId);
    return row ? fromNotificationRow(row) : { ...DEFAULT_NOTIFICATION_SETTINGS };
  }

  /** Merges the given fields into the stored (or default) settings, atomically. */
  async updateNotificationSettings(userId: string, changes: Partial<NotificationSettings>): Promise<NotificationSettings> {
    return this.db.transaction(async (tx) => {
      await tx.lock(`user-settings:${userId}`);
      const current = await tx.get(this.getNotifications, userId);
      const next = { ...(current ? fromNotificationRow(current) : DEFAULT_NOTIFICATION_SETTINGS), ...changes };
      await tx.run(this.upsertNotifications, {
        user_id: userId,
        message_notifications: next.message_notifications,
        dm_notifications: next.dm_notifications ? 1 : 0,
        friend_request_notifications: next.friend_request_notifications ? 1 : 0,
        sounds: next.sounds ? 1 : 0,
        desktop: next.desktop ? 1 : 0,
        now: nowSeconds(),
      });
      return next;
    });
  }

  async listConnections(userId: string): Promise<ConnectionRow[]> {
    return this.db.all(this.listConnectionsStmt, userId);
  }

  /** Adds a connection unless the user already has `max`; null when full. */
  async addConnection(
    userId: string,
    connection: { type: string; name: string; url: string | null; visible: boolean },
    max: number,
  ): Promise<ConnectionRow | null> {
    return this.db.transaction(async (tx) => {
      await tx.lock(`user-settings:${userId}`);
      if (((await tx.get(this.countConnections, userId))?.n ?? 0) >= max) return null;
      return tx.get(this.insertConnection, {
        id: Bun.randomUUIDv7(),
        user_id: userId,
        type: connection.type,
        name: connection.name,
        url: connection.url,
        visible: connection.visible ? 1 : 0,
        now: nowSeconds(),
      });
    });
  }

  async removeConnection(userId: string, connectionId: string): Promise<boolean> {
    return (await this.db.run(this.deleteConnectionStmt, connectionId, userId)) > 0;
  }

  async listMutedUsers(userId: string): Promise<MutedUserRow[]> {
    return this.db.all(this.listMutedStmt, userId);
  }

  /** True when the mute is new. */
  async muteUser(userId: string, targetId: string): Promise<boolean> {
    return (await this.db.run(this.insertMute, userId, targetId, nowSeconds())) > 0;
  }

  async unmuteUser(userId: string, targetId: string): Promise<boolean> {
    return (await this.db.run(this.deleteMute, userId, targetId)) > 0;
  }
}

function fromNotificationRow(row: NotificationRow): NotificationSettings {
  return {
    message_notifications: row.message_notifications,
    dm_notifications: row.dm_notifications === 1,
    friend_request_notifications: row.friend_request_notifications === 1,
    sounds: row.sounds === 1,
    desktop: row.desktop === 1,
  };
}
