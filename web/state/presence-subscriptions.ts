/**
 * The members whose presence the page shows in each large server, told to the gateway as
 * `presence:subscribe {server_id, user_ids}` (docs/gateway.md, "Presence"): past
 * `large_server_members`, `user:status` reaches only the sockets that asked for that member. A
 * list that scrolls says what it shows as often as it likes; the gateway hears it at most once
 * per DEBOUNCE_MS per server, only when the set changed, at most PRESENCE_IDS_PER_SERVER ids,
 * and again after a reconnect that lost the socket's rooms. A refusal (the bulk subscription not
 * joined yet, the rate limit) is tried again a few times.
 */
import type { Gateway } from "../../sdk/src/client.ts";
import { LIMITS } from "../../sdk/src/generated/constants.ts";

export const PRESENCE_IDS_PER_SERVER = LIMITS.gateway.presenceIdsPerServer;
/** Scrolling settles for this long before the set is sent (the subscriptions rate limit is 5 a second). */
const DEBOUNCE_MS = 250;
const RETRY_MS = 1000;
const RETRIES = 3;

export class PresenceSubscriptions {
  /** What each server's list shows now (ids in order). */
  private wanted = new Map<string, string[]>();
  /** What the gateway last accepted, as a key. */
  private sent = new Map<string, string>();
  private timers = new Map<string, ReturnType<typeof setTimeout>>();
  private failures = new Map<string, number>();
  private inFlight = new Set<string>();

  constructor(
    private readonly gateway: Gateway,
    private readonly connected: () => boolean,
  ) {}

  /** The members a large server's list shows (empty: it shows none any more). */
  show(serverId: string, userIds: readonly string[]): void {
    const ids = [...new Set(userIds)].slice(0, PRESENCE_IDS_PER_SERVER);
    // Nothing held there and nothing wanted: nothing to tell (a small server's list closing).
    if (ids.length === 0 && !this.sent.has(serverId) && !this.inFlight.has(serverId)) return this.forget(serverId);
    this.wanted.set(serverId, ids);
    this.failures.delete(serverId);
    this.schedule(serverId, DEBOUNCE_MS);
  }

  /**
   * Connected (`ready`), or connected again (`resumed`): what changed while away is sent, and
   * every set again when the socket's rooms were lost with the session.
   */
  connectedAgain(roomsKept: boolean): void {
    if (!roomsKept) this.sent.clear();
    for (const serverId of this.wanted.keys()) this.schedule(serverId, 0);
  }

  /** Forgets everything (log out, or the socket is gone). */
  reset(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.wanted.clear();
    this.sent.clear();
    this.failures.clear();
    this.inFlight.clear();
  }

  /** A server left: its subscription went with its room. */
  forget(serverId: string): void {
    clearTimeout(this.timers.get(serverId));
    this.timers.delete(serverId);
    this.wanted.delete(serverId);
    this.sent.delete(serverId);
  }

  private schedule(serverId: string, delayMs: number): void {
    if (this.timers.has(serverId)) return;
    this.timers.set(
      serverId,
      setTimeout(() => {
        this.timers.delete(serverId);
        void this.flush(serverId);
      }, delayMs),
    );
  }

  private async flush(serverId: string): Promise<void> {
    const ids = this.wanted.get(serverId);
    if (!ids) return;
    const key = ids.join(",");
    if (this.sent.get(serverId) === key) {
      // Nothing shown any more and nothing held: forgotten.
      if (ids.length === 0) this.wanted.delete(serverId);
      return;
    }
    // Sent once connected: `connectedAgain` flushes again.
    if (!this.connected()) return;
    this.inFlight.add(serverId);
    try {
      await this.gateway.emit("presence:subscribe", { server_id: serverId, user_ids: ids });
      this.sent.set(serverId, key);
    } catch {
      const failures = (this.failures.get(serverId) ?? 0) + 1;
      this.failures.set(serverId, failures);
      if (failures <= RETRIES && this.wanted.get(serverId) === ids) this.schedule(serverId, RETRY_MS * failures);
    } finally {
      this.inFlight.delete(serverId);
    }
  }
}
