/**
 * What notifies and how unread things are named (docs/web.md, "Unread and notifications"): pure
 * rules over the server's read states and notification settings, so they are tested alone.
 */
import type { NotificationOverride, NotificationSettings } from "./wire-types.ts";

export type Level = "all" | "mentions" | "none";

/** A setting is muted while its mute is in force (`muted_until` null with `muted`: until unmuted). */
export function mutedNow(setting: NotificationOverride | undefined, nowSeconds: number): boolean {
  if (!setting?.muted) return false;
  return setting.muted_until === null || setting.muted_until > nowSeconds;
}

/**
 * Which messages of a server channel notify: the channel's own level, else its server's, else the
 * account's `message_notifications` when it says less than "all", else the server's
 * `default_notifications` (docs/users.md, "Notification settings per server, channel and DM").
 */
export function channelLevel(
  account: NotificationSettings | null,
  server: NotificationOverride | undefined,
  channel: NotificationOverride | undefined,
  serverDefault: "all" | "mentions",
): Level {
  if (channel && channel.level !== "default") return channel.level;
  if (server && server.level !== "default") return server.level;
  if (account && account.message_notifications !== "all") return account.message_notifications;
  return serverDefault;
}

/** A DM's level: its own, else the account's `dm_notifications` (every message, or none). */
export function dmLevel(account: NotificationSettings | null, dm: NotificationOverride | undefined): Level {
  if (dm && dm.level !== "default") return dm.level;
  return account && !account.dm_notifications ? "none" : "all";
}

/** Whether a message that arrived notifies, at `level`, given whether it mentions the reader. */
export function notifies(level: Level, mentionsReader: boolean): boolean {
  return level === "all" || (level === "mentions" && mentionsReader);
}

/** "general, 2 mentions", "general, 1 mention", "general, unread", or the name alone. */
export function unreadLabel(name: string, unread: boolean, mentions: number): string {
  if (mentions > 0) return `${name}, ${mentions} ${mentions === 1 ? "mention" : "mentions"}`;
  return unread ? `${name}, unread` : name;
}

/** The tab's title: "(N) " before it while anything is waiting for the reader. */
export function titleWithCount(title: string, count: number): string {
  const bare = title.replace(/^\(\d+\) /, "");
  return count > 0 ? `(${count}) ${bare}` : bare;
}

/**
 * Whether a live message may mention the reader and so may change their mention count: the app
 * then asks the server (which decides mentions, docs/read-states.md) instead of guessing.
 */
export function mayMention(content: string, replyTo: string | null, readerId: string): boolean {
  return replyTo !== null || content.includes(readerId) || content.includes("<@&") || /@(everyone|here)\b/.test(content);
}
