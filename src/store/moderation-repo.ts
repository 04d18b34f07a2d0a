import type { Database } from "./database.ts";
import { nowSeconds } from "./time.ts";

export interface BanRow {
  user_id: string;
  username: string;
  avatar: string | null;
  reason: string | null;
  banned_by: string | null;
  created_at: number;
}

/** A member's server mute and deafen (0/1), kept while they are out of voice too. */
interface VoiceModerationRow {
  server_muted: number;
  server_deafened: number;
}

/** Bans, member timeouts, and server mutes and deafens. */
export class ModerationRepo {
  private readonly insertBanStmt;
  private readonly deleteBanStmt;
  private readonly banStmt;
  private readonly bansStmt;
  private readonly setTimeoutStmt;
  private readonly voiceModerationStmt;
  private readonly setServerMutedStmt;
  private readonly setServerDeafenedStmt;

  constructor(private readonly db: Database) {
    this.insertBanStmt = db.prepare<{ user_id: string }, [string, string, string | null, string, number]>(
      `INSERT INTO bans (server_id, user_id, reason, banned_by, created_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT DO NOTHING RETURNING user_id`,
    );
    this.deleteBanStmt = db.prepare("DELETE FROM bans WHERE server_id = ? AND user_id = ?");
    const banColumns = `b.user_id, u.username, u.avatar, b.reason, b.banned_by, b.created_at
       FROM bans b JOIN users u ON u.id = b.user_id`;
    this.banStmt = db.prepare<BanRow, [string, string]>(`SELECT ${banColumns} WHERE b.server_id = ? AND b.user_id = ?`);
    this.bansStmt = db.prepare<BanRow, [string]>(`SELECT ${banColumns} WHERE b.server_id = ? ORDER BY b.created_at DESC, b.user_id`);
    this.setTimeoutStmt = db.prepare<{ timeout_until: number | null }, [number | null, string, string]>(
      "UPDATE server_members SET timeout_until = ? WHERE server_id = ? AND user_id = ? RETURNING timeout_until",
    );
    this.voiceModerationStmt = db.prepare<VoiceModerationRow, [string, string]>(
      "SELECT server_muted, server_deafened FROM server_members WHERE server_id = ? AND user_id = ?",
    );
    this.setServerMutedStmt = db.prepare("UPDATE server_members SET server_muted = ? WHERE server_id = ? AND user_id = ?");
    this.setServerDeafenedStmt = db.prepare("UPDATE server_members SET server_deafened = ? WHERE server_id = ? AND user_id = ?");
  }

  /** Records a ban; null when the user is already banned. */
  async ban(serverId: string, userId: string, reason: string | null, bannedBy: string): Promise<BanRow | null> {
    const inserted = await this.db.get(this.insertBanStmt, serverId, userId, reason, bannedBy, nowSeconds());
    return inserted ? await this.db.get(this.banStmt, serverId, userId) : null;
  }

  async unban(serverId: string, userId: string): Promise<boolean> {
    return (await this.db.run(this.deleteBanStmt, serverId, userId)) > 0;
  }

  async findBan(serverId: string, userId: string): Promise<BanRow | null> {
    return this.db.get(this.banStmt, serverId, userId);
  }

  async bans(serverId: string): Promise<BanRow[]> {
    return this.db.all(this.bansStmt, serverId);
  }

  /** Sets (a unix time) or clears (null) a member's timeout; false when not a member. */
  async setTimeout(serverId: string, userId: string, until: number | null): Promise<boolean> {
    return (await this.db.get(this.setTimeoutStmt, until, serverId, userId)) !== null;
  }

  /** Null when not a member. */
  async voiceModeration(serverId: string, userId: string): Promise<VoiceModerationRow | null> {
    return this.db.get(this.voiceModerationStmt, serverId, userId);
  }

  /** False when not a member. */
  async setServerMuted(serverId: string, userId: string, muted: boolean): Promise<boolean> {
    return (await this.db.run(this.setServerMutedStmt, muted ? 1 : 0, serverId, userId)) > 0;
  }

  async setServerDeafened(serverId: string, userId: string, deafened: boolean): Promise<boolean> {
    return (await this.db.run(this.setServerDeafenedStmt, deafened ? 1 : 0, serverId, userId)) > 0;
  }
}
