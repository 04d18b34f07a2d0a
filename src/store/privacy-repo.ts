import type { Database } from "./database.ts";
import { nowSeconds } from "./time.ts";

export type DmsFrom = "server_members" | "friends";
export type FriendRequestsFrom = "everyone" | "mutual" | "nobody";

export interface PrivacyRow {
  dms_from: DmsFrom;
  friend_requests_from: FriendRequestsFrom;
}

/** Today's rules before anyone narrowed them: a user without a row has these. */
export const DEFAULT_PRIVACY: PrivacyRow = { dms_from: "server_members", friend_requests_from: "everyone" };

/** Who may reach a user: one row per user who changed a setting (table `privacy_settings`). */
export class PrivacyRepo {
  private readonly getStmt;
  private readonly upsertStmt;

  constructor(private readonly db: Database) {
    this.getStmt = db.prepare<PrivacyRow, [string]>("SELECT dms_from, friend_requests_from FROM privacy_settings WHERE user_id = ?");
    this.upsertStmt = db.prepare(
      `INSERT INTO privacy_settings (user_id, dms_from, friend_requests_from, updated_at)
       VALUES ($user_id, $dms_from, $friend_requests_from, $now)
       ON CONFLICT (user_id) DO UPDATE SET dms_from = excluded.dms_from,
         friend_requests_from = excluded.friend_requests_from, updated_at = excluded.updated_at`,
    );
  }

  async get(userId: string): Promise<PrivacyRow> {
    return (await this.db.get(this.getStmt, userId)) ?? { ...DEFAULT_PRIVACY };
  }

  /** Merges the given fields into the stored (or default) settings, atomically. */
  async update(userId: string, changes: Partial<PrivacyRow>): Promise<PrivacyRow> {
    return this.db.transaction(async (tx) => {
      await tx.lock(`privacy:${userId}`);
      const next = { ...((await tx.get(this.getStmt, userId)) ?? DEFAULT_PRIVACY), ...changes };
      await tx.run(this.upsertStmt, { user_id: userId, ...next, now: nowSeconds() });
      return next;
    });
  }
}
