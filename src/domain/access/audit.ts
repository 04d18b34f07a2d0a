import * as v from "valibot";
import type { Store } from "../../store/store.ts";
import type { AuditEntryRow, AuditFilter } from "../../store/audit-repo.ts";
import type { Access } from "./access.ts";
import { forbidden, notFound } from "../shared/errors.ts";
import { PERMISSIONS } from "./permission-bits.ts";
import { hasPermission } from "./permissions.ts";
import type { AuditAction } from "./audit-actions.ts";
import { ImageUrl, UnixSeconds, Uuid } from "../shared/shapes.ts";

export const AuditEntry = v.object({
  id: Uuid,
  server_id: Uuid,
  actor_id: v.nullable(Uuid),
  actor_username: v.nullable(v.string()),
  actor_avatar: ImageUrl,
  action: v.string(),
  target_type: v.nullable(v.string()),
  target_id: v.nullable(v.string()),
  target_username: v.nullable(v.string()),
  changes: v.record(v.string(), v.unknown()),
  created_at: UnixSeconds,
});
export type AuditEntry = v.InferOutput<typeof AuditEntry>;

const toEntry = (row: AuditEntryRow): AuditEntry => ({ ...row, changes: JSON.parse(row.changes) as Record<string, unknown> });

export class Audit {
  constructor(private readonly store: Store, private readonly access: Access) {}

  record(
    serverId: string,
    actorId: string,
    action: AuditAction,
    target: { type: string; id: string } | null,
    changes: Record<string, unknown> = {},
  ): Promise<void> {
    return this.store.audit.record({
      serverId,
      actorId,
      action,
      targetType: target?.type ?? null,
      targetId: target?.id ?? null,
      changes,
    });
  }

  /**
   * Needs ADMINISTRATOR or MANAGE_SERVER. `before` is unix seconds or an entry id; `filter` keeps
   * one action and/or one actor (docs/moderation.md). The anchor entry need not match the filter.
   */
  async list(serverId: string, userId: string, limit: number, before: number | string | undefined, filter?: AuditFilter) {
    const member = await this.access.member(serverId, userId);
    if (!hasPermission(member.permissions, PERMISSIONS.MANAGE_SERVER)) throw forbidden("Missing permission: MANAGE_SERVER");
    const only = { action: filter?.action ?? null, actorId: filter?.actorId?.toLowerCase() ?? null };
    const page =
      typeof before === "string"
        ? await this.store.audit.pageAfter(member.server.id, before.toLowerCase(), limit, only)
        : await this.store.audit.page(member.server.id, before ?? Number.MAX_SAFE_INTEGER, limit, only);
    if (!page) throw notFound("Audit log entry");
    return { entries: page.rows.map(toEntry), hasMore: page.hasMore };
  }
}
