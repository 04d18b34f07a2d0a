/**
 * What a user row's custom status columns show (docs/users.md, "Custom status"), apart from the
 * feature's writes (custom-status.ts) so that presence and the member list read it without them.
 */
import type { UserRow } from "../../store/users-repo.ts";
import type { CustomStatus } from "../shared/shapes.ts";

type CustomStatusColumns = Pick<UserRow, "custom_status_text" | "custom_status_emoji" | "custom_status_expires_at">;

export const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * The custom status a row holds at `now` (seconds): null when there is none or its time is up.
 * Reads go through this, so an expired status is never shown, even before the sweep clears it.
 */
export function currentCustomStatus(row: CustomStatusColumns, now = nowSeconds()): CustomStatus | null {
  if (row.custom_status_text === null) return null;
  const expiresAt = row.custom_status_expires_at === null ? null : Number(row.custom_status_expires_at);
  if (expiresAt !== null && expiresAt <= now) return null;
  return {
    text: row.custom_status_text,
    emoji: row.custom_status_emoji,
    expires_at: expiresAt === null ? null : new Date(expiresAt * 1000).toISOString(),
  };
}

