import * as v from "valibot";
import type { Store } from "../../store/store.ts";
import type { PlatformLogRow } from "../../store/platform-repo.ts";
import type { UserRow } from "../../store/users-repo.ts";
import { badRequest, forbidden, notFound } from "../shared/errors.ts";
import { UnixSeconds, Uuid } from "../shared/shapes.ts";

const LAST_ADMIN = "The platform needs at least one administrator: promote someone else first";

/** The platform permission every administrator holds (the spec's admin AI routes name it). */
export const MANAGE_SETTINGS = "MANAGE_SETTINGS";

export const PlatformLogEntry = v.object({
  id: Uuid,
  actor: v.nullable(v.object({ id: Uuid, username: v.string() })),
  action: v.string(),
  target_type: v.nullable(v.string()),
  target_id: v.nullable(v.string()),
  changes: v.record(v.string(), v.unknown()),
  created_at: UnixSeconds,
});
export type PlatformLogEntry = v.InferOutput<typeof PlatformLogEntry>;

const toLogEntry = (row: PlatformLogRow): PlatformLogEntry => ({
  id: row.id,
  actor: row.actor_id && row.actor_username ? { id: row.actor_id, username: row.actor_username } : null,
  action: row.action,
  target_type: row.target_type,
  target_id: row.target_id,
  changes: JSON.parse(row.changes) as Record<string, unknown>,
  created_at: row.created_at,
});

/** Who administers the platform, and the platform log of what they did. */
export class Admins {
  constructor(private readonly store: Store) {}

  isAdmin(user: UserRow): boolean {
    return user.platform_admin === 1 && user.is_bot === 0;
  }

  /** Every admin route starts here: non-administrators (and every bot) get 403. */
  requireAdmin(user: UserRow): void {
    if (!this.isAdmin(user)) throw forbidden(`Platform administrators only (${MANAGE_SETTINGS})`);
  }

  /** Writes one platform log entry. `actor` null is the host's command line. */
  async record(
    actor: UserRow | null,
    action: string,
    target: { type: string; id: string } | null,
    changes: Record<string, unknown> = {},
  ): Promise<void> {
    await this.store.platform.log({
      actorId: actor?.id ?? null,
      action,
      targetType: target?.type ?? null,
      targetId: target?.id ?? null,
      changes,
    });
  }

  /**
   * Promotes or demotes a human account, and logs it (USER_PROMOTE / USER_DEMOTE) when it
   * changed. `actor` null is the host's command line. The last administrator stays one.
   */
  async setAdmin(actor: UserRow | null, target: UserRow, admin: boolean): Promise<UserRow> {
    if (target.is_bot) throw badRequest("platform_admin: a bot cannot be a platform administrator");
    if ((target.platform_admin === 1) === admin) return target;
    const result = await this.store.platform.setAdmin(target.id, admin);
    if (!result.ok) throw result.reason === "last_admin" ? badRequest(LAST_ADMIN) : notFound("User");
    await this.record(actor, admin ? "USER_PROMOTE" : "USER_DEMOTE", { type: "user", id: target.id }, { platform_admin: admin });
    return result.user;
  }

  async logPage(before: string | null, limit: number): Promise<{ entries: PlatformLogEntry[]; hasMore: boolean }> {
    const rows = await this.store.platform.logPage(before, limit + 1);
    return { entries: rows.slice(0, limit).map(toLogEntry), hasMore: rows.length > limit };
  }
}
