/**
 * How a `user:status` changes the custom status a list shows for someone (docs/gateway.md,
 * "user:status"): `custom` absent keeps it, a null text clears it, and nothing of a user shown
 * offline is shown (unless it is the reader's own, which they see while invisible). The event
 * carries no expiry, so the one known stays while the text is the same.
 */
import type { CustomStatus, PresenceStatus } from "./wire-types.ts";

/** What `user:status` says of a custom status: `customStatus` and `customStatusEmoji`. */
export interface CustomStatusNews {
  text: string | null;
  emoji: string | null;
}

export function customStatusAfter(
  kept: CustomStatus | null,
  status: PresenceStatus,
  custom: CustomStatusNews | undefined,
  isSelf = false,
): CustomStatus | null {
  if (custom === undefined) return status === "offline" && !isSelf ? null : kept;
  if (custom.text === null) return null;
  return { text: custom.text, emoji: custom.emoji, expires_at: kept?.text === custom.text ? kept.expires_at : null };
}
