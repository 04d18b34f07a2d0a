import * as v from "valibot";
import type { Store } from "../../store/store.ts";
import type { UserRow } from "../../store/users-repo.ts";
import type { NotificationOverrideRow, OverrideLevel, OverrideTarget } from "../../store/notification-overrides-repo.ts";
import type { Access } from "../access/access.ts";
import { PERMISSIONS } from "../access/permission-bits.ts";
import { badRequest, notFound } from "../shared/errors.ts";
import type { EventBus } from "../shared/events.ts";
import { rooms } from "../shared/events.ts";
import { NOTIFICATION_LEVELS as LEVELS, NotificationOverride } from "../shared/shapes.ts";
import { isUuid } from "../shared/validation.ts";

/**
 * A user's notification settings per server, channel and DM (docs/users.md, "Notification
 * settings per server, channel and DM"), on top of the account-wide ones
 * (`/users/me/notifications`) and a server's `default_notifications`.
 */

export { NotificationOverride };

/** PUT's body: any subset; the fields left out keep their value. */
export const NotificationOverrideChange = {
  level: v.optional(v.picklist(LEVELS, "must be one of default, all, mentions, none")),
  muted: v.optional(v.boolean("must be a boolean")),
  muted_until: v.optional(v.nullable(v.pipe(v.number("must be unix seconds or null"), v.integer("must be unix seconds or null")))),
};
export interface NotificationOverrideInput {
  level?: OverrideLevel;
  muted?: boolean;
  muted_until?: number | null;
}

const now = () => Math.floor(Date.now() / 1000);

/** A stored setting as the wire has it; a mute whose time has passed is no mute. */
function toOverride(type: OverrideTarget, targetId: string, row: Pick<NotificationOverrideRow, "level" | "muted" | "muted_until"> | null, mute?: { muted: number; muted_until: number | null } | null): NotificationOverride {
  const m = mute === undefined ? row : mute;
  const running = !!m && m.muted === 1 && (m.muted_until === null || m.muted_until > now());
  return { target_type: type, target_id: targetId, level: row?.level ?? "default", muted: running, muted_until: running ? m!.muted_until : null };
}

export class NotificationOverrides {
  constructor(
    private readonly store: Store,
    private readonly access: Access,
    private readonly bus: EventBus,
  ) {}

  /** Every setting the user has that is not the default (servers, channels, DMs), mutes still in force. */
  async list(user: UserRow): Promise<NotificationOverride[]> {
    const rows = await this.store.notificationOverrides.list(user.id);
    const listed = rows.map((row) => toOverride(row.target_type, row.target_id, row, row.target_type === "server" ? { muted: 0, muted_until: null } : undefined));
    // Server mutes live on the membership (POST /servers/:id/mute): merged in.
    for (const muted of await this.store.members.mutedServers(user.id)) {
      const at = listed.find((o) => o.target_type === "server" && o.target_id === muted.server_id);
      if (at) Object.assign(at, { muted: true, muted_until: muted.muted_until });
      else listed.push({ target_type: "server", target_id: muted.server_id, level: "default", muted: true, muted_until: muted.muted_until });
    }
    return listed.filter((o) => o.level !== "default" || o.muted);
  }

  async get(user: UserRow, type: OverrideTarget, targetId: string): Promise<NotificationOverride> {
    const id = await this.target(user, type, targetId);
    const row = await this.store.notificationOverrides.get(user.id, type, id);
    return toOverride(type, id, row, type === "server" ? await this.store.notificationOverrides.serverMute(id, user.id) : undefined);
  }

  /** Changes the setting, answers it, and tells the user's other sockets (`notifications:update`). */
  async set(user: UserRow, type: OverrideTarget, targetId: string, input: NotificationOverrideInput): Promise<NotificationOverride> {
    const id = await this.target(user, type, targetId);
    if (input.muted_until !== undefined && input.muted_until !== null) {
      if (input.muted === false) throw badRequest("muted_until: must be null when muted is false");
      if (input.muted_until <= now()) throw badRequest("muted_until: must be in the future");
    }
    const current = await this.get(user, type, id);
    const level = input.level ?? current.level;
    const muted = input.muted ?? (input.muted_until !== undefined && input.muted_until !== null ? true : current.muted);
    const mutedUntil = !muted ? null : input.muted_until !== undefined ? input.muted_until : input.muted === true ? null : current.muted_until;
    if (type === "server") {
      await this.store.notificationOverrides.set(user.id, type, id, level, false, null);
      await this.store.members.setMuted(id, user.id, muted, mutedUntil);
    } else {
      await this.store.notificationOverrides.set(user.id, type, id, level, muted, mutedUntil);
    }
    const changed: NotificationOverride = { target_type: type, target_id: id, level, muted, muted_until: mutedUntil };
    this.bus.publish(rooms.user(user.id), "notifications:update", changed);
    return changed;
  }

  /**
   * The target's id, once the user may have a setting for it: a server they are a member of
   * (403 otherwise), a channel they can view (403), a DM they are in (404 otherwise, as every
   * DM route answers); an unknown one is 404.
   */
  private async target(user: UserRow, type: OverrideTarget, targetId: string): Promise<string> {
    if (type === "server") return (await this.access.member(targetId, user.id)).server.id;
    if (type === "channel") return (await this.access.requireChannel(targetId, user.id, PERMISSIONS.VIEW_CHANNEL)).channel.id;
    const dm = isUuid(targetId) ? await this.store.dms.findById(targetId.toLowerCase()) : null;
    if (!dm || !(await this.store.dms.isMember(dm.id, user.id))) throw notFound("Conversation");
    return dm.id;
  }
}
