/**
 * The choices "Invite people" offers (docs/web.md, "Servers"), as Discord's invite dialog does:
 * how long a new link lives and how many times it can be used, and whether a link the reader
 * made before may be shown again.
 */

/** "Expire after": seconds (0: never), 30 minutes to never. */
export const INVITE_EXPIRY_CHOICES: readonly { label: string; seconds: number }[] = [
  { label: "30 minutes", seconds: 30 * 60 },
  { label: "1 hour", seconds: 3600 },
  { label: "6 hours", seconds: 6 * 3600 },
  { label: "12 hours", seconds: 12 * 3600 },
  { label: "1 day", seconds: 86400 },
  { label: "7 days", seconds: 7 * 86400 },
  { label: "Never", seconds: 0 },
];
/** A new link made by opening the dialog lives 7 days. */
export const DEFAULT_INVITE_SECONDS = 7 * 86400;

/** "Max number of uses": 0 is no limit. */
export const INVITE_USE_CHOICES: readonly { label: string; uses: number }[] = [
  { label: "No limit", uses: 0 },
  ...[1, 5, 10, 25, 50, 100].map((uses) => ({ label: `${uses} ${uses === 1 ? "use" : "uses"}`, uses })),
];

/** A link the reader made (`GET /servers/:id/invites/me` answers them), as the dialog shows it. */
export interface OwnInvite {
  code: string;
  expires_at: number | null;
}

/** Shown again only while it has at least a minute to live (the server still has the last word). */
export function stillUsable(invite: OwnInvite | null | undefined, nowSeconds: number): invite is OwnInvite {
  return invite != null && (invite.expires_at === null || invite.expires_at - nowSeconds >= 60);
}

/** "Expires in 6 days", "Expires in 3 hours", "Never expires": what the dialog says under the link. */
export function expiryText(expiresAt: number | null, nowSeconds: number): string {
  if (expiresAt === null) return "This link never expires.";
  const left = Math.max(0, expiresAt - nowSeconds);
  const [value, unit] = left >= 86400 ? [Math.round(left / 86400), "day"] : left >= 3600 ? [Math.round(left / 3600), "hour"] : [Math.max(1, Math.round(left / 60)), "minute"];
  return `This link expires in ${value} ${unit}${value === 1 ? "" : "s"}.`;
}
