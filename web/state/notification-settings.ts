/**
 * The reader's notification settings as the app holds them: the account's preferences
 * (`/users/me/notifications`: levels, sounds, desktop), every server, channel and DM setting
 * (`/users/me/notifications/overrides`), kept current by `notifications:update` from any device,
 * and the users they muted (whose messages never notify).
 */
import { signal } from "@preact/signals";
import type { RestClient } from "../../sdk/src/client.ts";
import type { NotificationOverride, NotificationSettings } from "../lib/wire-types.ts";
import { channelLevel, dmLevel, mutedNow, type Level } from "../lib/notify-rules.ts";

type Target = NotificationOverride["target_type"];
type Change = { level?: NotificationOverride["level"]; muted?: boolean; muted_until?: number | null };

const key = (type: Target, id: string) => `${type}:${id}`;
const nowSeconds = () => Math.floor(Date.now() / 1000);

export class NotificationSettingsState {
  readonly account = signal<NotificationSettings | null>(null);
  readonly overrides = signal<ReadonlyMap<string, NotificationOverride>>(new Map());
  readonly mutedUsers = signal<ReadonlySet<string>>(new Set());
  /** Re-evaluates mutes when the soonest one ends (a signal read by what shows them dimmed). */
  readonly clock = signal(0);
  private expiry: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly rest: RestClient) {}

  async load(): Promise<void> {
    const [account, overrides, muted] = await Promise.allSettled([
      this.rest.request("getNotificationSettings"),
      this.rest.request("listNotificationOverrides"),
      this.rest.request("listMutedUsers"),
    ]);
    if (account.status === "fulfilled") this.account.value = account.value;
    if (overrides.status === "fulfilled") {
      this.overrides.value = new Map(overrides.value.map((o) => [key(o.target_type, o.target_id), o]));
      this.scheduleExpiry();
    }
    if (muted.status === "fulfilled") this.mutedUsers.value = new Set(muted.value.map((m) => m.user_id));
  }

  /** `notifications:update` (or this device's own change): the setting as the server now has it. */
  apply(setting: NotificationOverride): void {
    const next = new Map(this.overrides.value);
    if (setting.level === "default" && !setting.muted) next.delete(key(setting.target_type, setting.target_id));
    else next.set(key(setting.target_type, setting.target_id), setting);
    this.overrides.value = next;
    this.scheduleExpiry();
  }

  setting(type: Target, id: string): NotificationOverride | undefined {
    return this.overrides.value.get(key(type, id));
  }

  isMuted(type: Target, id: string): boolean {
    void this.clock.value;
    return mutedNow(this.setting(type, id), nowSeconds());
  }

  /** A server channel is muted by its own mute or its server's. */
  channelMuted(serverId: string, channelId: string): boolean {
    return this.isMuted("server", serverId) || this.isMuted("channel", channelId);
  }

  channelLevel(serverId: string, channelId: string, serverDefault: "all" | "mentions"): Level {
    return channelLevel(this.account.value, this.setting("server", serverId), this.setting("channel", channelId), serverDefault);
  }

  dmLevel(dmId: string): Level {
    return dmLevel(this.account.value, this.setting("dm", dmId));
  }

  /** Changes a server's, channel's or DM's setting; the answer (and `notifications:update`) is applied. */
  async change(type: Target, id: string, change: Change): Promise<void> {
    const body = change;
    const saved =
      type === "server"
        ? await this.rest.request("setServerNotificationSettings", { params: { serverId: id }, body })
        : type === "channel"
          ? await this.rest.request("setChannelNotificationSettings", { params: { channelId: id }, body })
          : await this.rest.request("setDmNotificationSettings", { params: { dmId: id }, body });
    this.apply(saved);
  }

  /** The account's preferences (sounds, desktop): saved, then shown as the server answers. */
  async changeAccount(change: Partial<NotificationSettings>): Promise<void> {
    this.account.value = await this.rest.request("updateNotificationSettings", { body: change });
  }

  private scheduleExpiry(): void {
    if (this.expiry) clearTimeout(this.expiry);
    this.expiry = null;
    const now = nowSeconds();
    const ends = [...this.overrides.value.values()].map((o) => o.muted_until ?? 0).filter((t) => t > now);
    if (!ends.length) return;
    // Timers are 32-bit: a mute weeks away is looked at again within a day.
    const wait = Math.min((Math.min(...ends) - now) * 1000 + 500, 86_400_000);
    this.expiry = setTimeout(() => {
      this.clock.value++;
      this.scheduleExpiry();
    }, wait);
  }

  reset(): void {
    if (this.expiry) clearTimeout(this.expiry);
    this.expiry = null;
    this.account.value = null;
    this.overrides.value = new Map();
    this.mutedUsers.value = new Set();
  }
}
