import type { Database } from "./database.ts";
import { nowSeconds } from "./time.ts";

export type OverrideTarget = "server" | "channel" | "dm";
export type OverrideLevel = "default" | "all" | "mentions" | "none";

/** A user's notification setting for one server, channel or DM (migration 20, docs/users.md). */
export interface NotificationOverrideRow {
  target_type: OverrideTarget;
  target_id: string;
  level: OverrideLevel;
  muted: number;
  muted_until: number | null;
}

/**
 * Per-user notification settings of a server, a channel or a DM: the level and, for channels
 * and DMs, the mute. A server's mute is the member's own (`server_members.muted`,
 * `POST /servers/:id/mute`), read and written here too so both routes agree.
 */
export class NotificationOverridesRepo {
  private readonly getStmt;
  private readonly listStmt;
  private readonly upsertStmt;
  private readonly deleteStmt;
  private readonly serverMuteStmt;

  constructor(private readonly db: Database) {
    this.getStmt = db.prepare<NotificationOverrideRow, [string, string, string]>(
      "SELECT target_type, target_id, level, muted, muted_until FROM notification_overrides WHERE user_id = ? AND target_type = ? AND target_id = ?",
    );
    this.listStmt = db.prepare<NotificationOverrideRow, [string]>(
      "SELECT target_type, target_id, level, muted, muted_until FROM notification_overrides WHERE user_id = ? ORDER BY target_type, target_id",
    );
    this.upsertStmt = db.prepare(
      `INSERT INTO notification_overrides (user_id, target_type, target_id, level, muted, muted_until, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (user_id, target_type, target_id) DO UPDATE SET level = excluded.level, muted = excluded.muted,
         muted_until = excluded.muted_until, updated_at = excluded.updated_at`,
    );
    this.deleteStmt = db.prepare("DELETE FROM notification_overrides WHERE user_id = ? AND target_type = ? AND target_id = ?");
    this.serverMuteStmt = db.prepare<{ muted: number; muted_until: number | null }, [string, string]>(
      "SELECT muted, muted_until FROM server_members WHERE server_id = ? AND user_id = ?",
    );
  }

  async get(userId: string, type: OverrideTarget, targetId: string): Promise<NotificationOverrideRow | null> {
    return this.db.get(this.getStmt, userId, type, targetId);
  }

  /** Every stored setting of the user (one index range on the primary key). */
  async list(userId: string): Promise<NotificationOverrideRow[]> {
    return this.db.all(this.listStmt, userId);
  }

  /** Stores the setting; one that says nothing (level `default`, not muted) is removed instead. */
  async set(userId: string, type: OverrideTarget, targetId: string, level: OverrideLevel, muted: boolean, mutedUntil: number | null): Promise<void> {
    if (level === "default" && !muted) await this.db.run(this.deleteStmt, userId, type, targetId);
    else await this.db.run(this.upsertStmt, userId, type, targetId, level, muted ? 1 : 0, muted ? mutedUntil : null, nowSeconds());
  }

  /** The member's server mute (`server_members`), or null when they are not a member. */
  async serverMute(serverId: string, userId: string): Promise<{ muted: number; muted_until: number | null } | null> {
    return this.db.get(this.serverMuteStmt, serverId, userId);
  }
}
