import type { Store } from "../../store/store.ts";
import type { AuditEntryRow } from "../../store/audit-repo.ts";
import type { Access } from "./access.ts";
import { forbidden, notFound } from "../shared/errors.ts";
import { PERMISSIONS } from "./permission-bits.ts";
import { hasPermission } from "./permissions.ts";

/** SPEC.md "Audit log": the recorded actions. */
export type AuditAction =
  | "MEMBER_JOIN" | "MEMBER_LEAVE" | "MEMBER_KICK" | "MEMBER_BAN" | "MEMBER_UNBAN" | "MEMBER_TIMEOUT"
  | "MEMBER_TIMEOUT_REMOVE" | "MEMBER_ROLE_UPDATE" | "BOT_ADD" | "VOICE_JOIN" | "VOICE_LEAVE"
  | "VOICE_SERVER_MUTE" | "VOICE_SERVER_UNMUTE" | "VOICE_SERVER_DEAFEN" | "VOICE_SERVER_UNDEAFEN"
  | "VOICE_DISCONNECT" | "VOICE_MOVE" | "CHANNEL_CREATE" | "CHANNEL_UPDATE" | "CHANNEL_DELETE"
  | "CHANNEL_DUPLICATE" | "CHANNEL_REORDER" | "CATEGORY_CREATE" | "CATEGORY_DELETE" | "ROLE_CREATE"
  | "ROLE_UPDATE" | "ROLE_DELETE" | "ROLE_ASSIGN" | "ROLE_UNASSIGN" | "MESSAGE_EDIT" | "MESSAGE_DELETE"
  | "MESSAGE_PIN" | "MESSAGE_UNPIN" | "INVITE_CREATE" | "INVITE_DELETE" | "INVITE_REGENERATE"
  | "SERVER_CREATE" | "SERVER_UPDATE" | "SERVER_DELETE" | "SERVER_ICON" | "SERVER_BANNER" | "SERVER_VANITY"
  | "SERVER_EMOJI_UPLOAD" | "SERVER_EMOJI_DELETE" | "SERVER_EMOJI_RENAME" | "SERVER_SOUNDBOARD_UPLOAD"
  | "SERVER_SOUNDBOARD_UPDATE" | "SERVER_SOUNDBOARD_DELETE";

export interface AuditEntry {
  id: string;
  server_id: string;
  actor_id: string | null;
  actor_username: string | null;
  actor_avatar: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  target_username: string | null;
  changes: Record<string, unknown>;
  created_at: number;
}

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

  /** Needs ADMINISTRATOR or MANAGE_SERVER. `before` is unix seconds or an entry id (docs/moderation.md). */
  async list(serverId: string, userId: string, limit: number, before: number | string | undefined) {
    const member = await this.access.member(serverId, userId);
    if (!hasPermission(member.permissions, PERMISSIONS.MANAGE_SERVER)) throw forbidden("Missing permission: MANAGE_SERVER");
    const page =
      typeof before === "string"
        ? await this.store.audit.pageAfter(member.server.id, before.toLowerCase(), limit)
        : await this.store.audit.page(member.server.id, before ?? Number.MAX_SAFE_INTEGER, limit);
    if (!page) throw notFound("Audit log entry");
    return { entries: page.rows.map(toEntry), hasMore: page.hasMore };
  }
}
