import type { Store } from "../../store/store.ts";
import type { UserRow } from "../../store/users-repo.ts";
import type { EventBus } from "../shared/events.ts";
import { rooms } from "../shared/events.ts";
import type { Activity, PresenceStatus } from "../shared/shapes.ts";
import { badRequest } from "../shared/errors.ts";
import type { ConnectionCounts } from "../shared/shared-state.ts";
import type { CustomStatus } from "../shared/shapes.ts";
import { currentCustomStatus } from "./current-custom-status.ts";
import { KeyedQueue } from "../shared/keyed-queue.ts";

/** What `user:status` carries beside the status: a person's custom status, or a bot's custom activity. */
type StatusExtras = { customStatus: string | null; customStatusEmoji?: string | null };

/**
 * Presence: a user is shown with their chosen status while at least one gateway socket is
 * connected, and `offline` once the last one closes. Choosing `offline` while connected is
 * "invisible". Every change is announced as `user:status`. Connections are counted over every
 * node of a cluster (SharedState): a user goes offline when the last one, on any node, closes.
 * A person's announcement while shown (not offline) carries their custom status (text and emoji,
 * or null), so whoever sees them come online sees it too; a bot's carries its custom activity
 * only when it sets its presence (bots have no custom status: docs/users.md, "Custom status").
 * A user's changes run one at a time on a node: each reads the row and writes what follows from
 * it, so a `status:set` sent right after connecting is not overwritten by the connect's older read.
 */
export class Presence {
  private readonly perUser = new KeyedQueue();

  constructor(
    private readonly store: Store,
    private readonly bus: EventBus,
    /** Connections per user and the activities (bots set them through PUT /oauth2/bot/presence), kept only while connected. */
    private readonly connections: ConnectionCounts,
    /** The rooms that see a user's presence; features that add audiences extend it. */
    private readonly audience: (userId: string) => Promise<string[]> = async (userId) => [rooms.user(userId)],
  ) {
    // A node that died took its connections with it, or Redis came back and the counts were
    // published again: what each user is shown as follows their count over the cluster.
    connections.onRecount((userId) => void this.recheck(userId).catch(() => {}));
  }

  async isConnected(userId: string): Promise<boolean> {
    return (await this.connections.count(userId)) > 0;
  }

  socketConnected(userId: string): Promise<void> {
    return this.perUser.run(userId, async () => {
      if ((await this.connections.connected(userId)) > 1) return;
      const user = await this.store.users.findById(userId);
      if (user) await this.show(user, user.preferred_status);
    });
  }

  socketDisconnected(userId: string): Promise<void> {
    return this.perUser.run(userId, async () => {
      // At zero the activity goes too: it must be sent again after reconnecting.
      if ((await this.connections.disconnected(userId)) > 0) return;
      const user = await this.store.users.findById(userId);
      // A socket may have reconnected (on another node) while the lookup ran.
      if (user && !(await this.isConnected(userId))) await this.show(user, "offline");
    });
  }

  private recheck(userId: string): Promise<void> {
    return this.perUser.run(userId, async () => {
      const user = await this.store.users.findById(userId);
      if (user) await this.show(user, (await this.isConnected(userId)) ? user.preferred_status : "offline");
    });
  }

  /** `status:set`: remembers the choice and shows it while connected. */
  setStatus(userId: string, chosen: PresenceStatus): Promise<{ status: PresenceStatus }> {
    return this.perUser.run(userId, () => this.applyStatus(userId, chosen));
  }

  private async applyStatus(userId: string, chosen: PresenceStatus): Promise<{ status: PresenceStatus }> {
    const user = await this.store.users.findById(userId);
    if (!user) throw badRequest("Unknown user");
    const shown = (await this.isConnected(userId)) ? chosen : "offline";
    await this.store.users.setPreferredStatus(userId, chosen, shown);
    if (shown !== user.status) await this.announce(userId, shown, customStatusExtras(user, shown));
    return { status: shown };
  }

  /**
   * Status and activity in one call (Bot REST `PUT /presence`). The status is remembered like
   * `status:set`; the activity is kept only while connected (null or a disconnected caller
   * clears it; absent keeps it). Connected callers always announce `user:status`, with
   * `customStatus` (a custom activity's state, else its name; null otherwise).
   */
  setPresence(
    userId: string,
    chosen: PresenceStatus,
    activity: Activity | null | undefined,
  ): Promise<{ status: PresenceStatus; activity: Activity | null }> {
    return this.perUser.run(userId, () => this.applyPresence(userId, chosen, activity));
  }

  private async applyPresence(
    userId: string,
    chosen: PresenceStatus,
    activity: Activity | null | undefined,
  ): Promise<{ status: PresenceStatus; activity: Activity | null }> {
    const user = await this.store.users.findById(userId);
    if (!user) throw badRequest("Unknown user");
    const connected = await this.isConnected(userId);
    const shown = connected ? chosen : "offline";
    await this.store.users.setPreferredStatus(userId, chosen, shown);
    if (!connected || activity === null) await this.connections.setActivity(userId, null);
    else if (activity !== undefined) await this.connections.setActivity(userId, activity);
    const current = connected ? await this.connections.activity(userId) : null;
    if (connected) await this.announce(userId, shown, { customStatus: customStatusOf(current) });
    else if (shown !== user.status) await this.announce(userId, shown);
    return { status: shown, activity: current };
  }

  /** The activity others see: only while connected and not shown offline (invisible). */
  async visibleActivity(userId: string, shownStatus: PresenceStatus): Promise<Activity | null> {
    if (shownStatus === "offline" || !(await this.isConnected(userId))) return null;
    return this.connections.activity(userId);
  }

  /**
   * A person's custom status was set, changed, cleared or expired (`user` is the row after it):
   * announced only while they are connected and shown, since nobody else sees it otherwise.
   */
  async customStatusChanged(user: UserRow, status: CustomStatus | null): Promise<void> {
    if (user.status === "offline" || !(await this.isConnected(user.id))) return;
    await this.announce(user.id, user.status, { customStatus: status?.text ?? null, customStatusEmoji: status?.emoji ?? null });
  }

  private async show(user: UserRow, after: PresenceStatus) {
    if (user.status === after) return;
    await this.store.users.setStatus(user.id, after);
    await this.announce(user.id, after, customStatusExtras(user, after));
  }

  private async announce(userId: string, status: PresenceStatus, extras?: StatusExtras) {
    this.bus.publish(await this.audience(userId), "user:status", { userId, status, ...extras });
  }
}

/**
 * A person shown as `shown` carries their custom status when they have one. Clients keep what
 * they were told until told otherwise, and an offline announcement clears it (nothing is shown
 * of an offline user), so coming back without one means none.
 */
function customStatusExtras(user: UserRow, shown: PresenceStatus): StatusExtras | undefined {
  const status = user.is_bot || shown === "offline" ? null : currentCustomStatus(user);
  return status ? { customStatus: status.text, customStatusEmoji: status.emoji } : undefined;
}

/** `user:status` carries a custom activity as `customStatus`: its state, or else its name. */
function customStatusOf(activity: Activity | null): string | null {
  if (!activity || activity.type !== "custom") return null;
  return activity.state ?? activity.name;
}
