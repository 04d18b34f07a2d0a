import type { Store } from "../../store/store.ts";
import type { EventBus } from "../shared/events.ts";
import { rooms } from "../shared/events.ts";
import type { Activity, PresenceStatus } from "../shared/shapes.ts";
import { badRequest } from "../shared/errors.ts";

/**
 * Presence: a user is shown with their chosen status while at least one gateway socket is
 * connected, and `offline` once the last one closes. Choosing `offline` while connected is
 * "invisible". Every change is announced as `user:status`.
 */
export class Presence {
  private readonly sockets = new Map<string, number>();
  /** Activities (bots set them through PUT /oauth2/bot/presence); kept in memory only while connected. */
  private readonly activities = new Map<string, Activity>();

  constructor(
    private readonly store: Store,
    private readonly bus: EventBus,
    /** The rooms that see a user's presence; features that add audiences extend it. */
    private readonly audience: (userId: string) => Promise<string[]> = async (userId) => [rooms.user(userId)],
  ) {}

  isConnected(userId: string): boolean {
    return (this.sockets.get(userId) ?? 0) > 0;
  }

  async socketConnected(userId: string): Promise<void> {
    const count = (this.sockets.get(userId) ?? 0) + 1;
    this.sockets.set(userId, count);
    if (count > 1) return;
    const user = await this.store.users.findById(userId);
    if (user) await this.show(userId, user.status, user.preferred_status);
  }

  async socketDisconnected(userId: string): Promise<void> {
    const count = (this.sockets.get(userId) ?? 0) - 1;
    if (count > 0) {
      this.sockets.set(userId, count);
      return;
    }
    this.sockets.delete(userId);
    // An activity lives as long as the connection: it must be sent again after reconnecting.
    this.activities.delete(userId);
    const user = await this.store.users.findById(userId);
    // A socket may have reconnected while the lookup ran.
    if (user && !this.isConnected(userId)) await this.show(userId, user.status, "offline");
  }

  /** `status:set`: remembers the choice and shows it while connected. */
  async setStatus(userId: string, chosen: PresenceStatus): Promise<{ status: PresenceStatus }> {
    const user = await this.store.users.findById(userId);
    if (!user) throw badRequest("Unknown user");
    const shown = this.isConnected(userId) ? chosen : "offline";
    await this.store.users.setPreferredStatus(userId, chosen, shown);
    if (shown !== user.status) await this.announce(userId, shown);
    return { status: shown };
  }

  /**
   * Status and activity in one call (Bot REST `PUT /presence`). The status is remembered like
   * `status:set`; the activity is kept only while connected (null or a disconnected caller
   * clears it; absent keeps it). Connected callers always announce `user:status`, with
   * `customStatus` (a custom activity's state, else its name; null otherwise).
   */
  async setPresence(
    userId: string,
    chosen: PresenceStatus,
    activity: Activity | null | undefined,
  ): Promise<{ status: PresenceStatus; activity: Activity | null }> {
    const user = await this.store.users.findById(userId);
    if (!user) throw badRequest("Unknown user");
    const connected = this.isConnected(userId);
    const shown = connected ? chosen : "offline";
    await this.store.users.setPreferredStatus(userId, chosen, shown);
    if (!connected || activity === null) this.activities.delete(userId);
    else if (activity !== undefined) this.activities.set(userId, activity);
    const current = this.activities.get(userId) ?? null;
    if (connected) await this.announce(userId, shown, customStatusOf(current));
    else if (shown !== user.status) await this.announce(userId, shown);
    return { status: shown, activity: current };
  }

  /** The activity others see: only while connected and not shown offline (invisible). */
  visibleActivity(userId: string, shownStatus: PresenceStatus): Activity | null {
    if (shownStatus === "offline" || !this.isConnected(userId)) return null;
    return this.activities.get(userId) ?? null;
  }

  private async show(userId: string, before: PresenceStatus, after: PresenceStatus) {
    if (before === after) return;
    await this.store.users.setStatus(userId, after);
    await this.announce(userId, after);
  }

  private async announce(userId: string, status: PresenceStatus, customStatus?: string | null) {
    const payload = customStatus === undefined ? { userId, status } : { userId, status, customStatus };
    this.bus.publish(await this.audience(userId), "user:status", payload);
  }
}

/** `user:status` carries a custom activity as `customStatus`: its state, or else its name. */
export function customStatusOf(activity: Activity | null): string | null {
  if (!activity || activity.type !== "custom") return null;
  return activity.state ?? activity.name;
}
