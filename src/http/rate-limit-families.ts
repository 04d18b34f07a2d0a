/**
 * The REST rate limits' route families (docs/operations.md, "Rate limits"): every authenticated
 * route (a user's or a bot's token) counts against one family's bucket of its caller, so a
 * flood of one kind never spends another kind's budget, and there is no global bucket per user
 * or bot (SPEC.md: "no global rate-limit layer for the bot API"). Pure data and the rule that
 * names a route's family; the buckets are src/http/rest-rate-limits.ts.
 */

/**
 * `user-sends` is no route's family: every send also counts against it, the caller's sends over
 * all channels, so varying the channel (real ones, or ids that do not exist) cannot multiply the
 * sends budget nor the buckets kept.
 */
export const REST_RATE_FAMILIES = ["sends", "user-sends", "message-writes", "reactions", "reads", "writes"] as const;
export type RestRateFamily = (typeof REST_RATE_FAMILIES)[number];

/** `requests` per fixed window of `windowSeconds`, per caller (and, for sends, per channel or DM). */
export interface RestRateWindow {
  requests: number;
  windowSeconds: number;
}
export type RestRateLimits = Record<RestRateFamily, RestRateWindow>;

/**
 * Sized so a real client never meets them and a flood meets them within a fraction of a second.
 * A fixed window lets through at most twice its size across a window's edge, never more.
 */
export const DEFAULT_REST_RATE_LIMITS: RestRateLimits = {
  // A burst of 100 messages into one channel, then 10 a second on average: a bot filling a
  // channel before a bulk delete (100 at most) still gets through in one go.
  sends: { requests: 100, windowSeconds: 10 },
  // Over every channel: a bot announcing in 500 channels at once still gets through.
  "user-sends": { requests: 500, windowSeconds: 10 },
  // Edits, deletes, bulk deletes and pins over every channel: a moderator cleaning up by hand.
  "message-writes": { requests: 100, windowSeconds: 10 },
  // A person reacts a few times a second at most.
  reactions: { requests: 50, windowSeconds: 10 },
  // Every GET: a client starting up reads its servers, channels, members and a page of each
  // channel it opens; 20 readers in a loop reach it in a few milliseconds.
  reads: { requests: 500, windowSeconds: 10 },
  // Everything else a token changes (servers, channels, roles, invites, profile, read marks).
  writes: { requests: 200, windowSeconds: 10 },
};

/** What a bucket is called in `X-RateLimit-Bucket` and in a refusal's message. */
export const FAMILY_LABELS: Record<RestRateFamily, { bucket: string; refusal: string }> = {
  sends: { bucket: "messages.send", refusal: "too many messages sent to this channel" },
  "user-sends": { bucket: "messages.send.all", refusal: "too many messages sent" },
  "message-writes": { bucket: "messages.write", refusal: "too many message edits and deletes" },
  reactions: { bucket: "reactions", refusal: "too many reactions" },
  reads: { bucket: "reads", refusal: "too many reads" },
  writes: { bucket: "writes", refusal: "too many changes" },
};

/** Every route that posts a message: counted per caller and per channel or DM (the route's first parameter). */
const SENDS: ReadonlySet<string> = new Set([
  "/api/v1/messages/:id",
  "/api/v1/messages/:id/gif",
  "/api/v1/messages/:id/upload",
  "/api/v1/dm/:targetUserId/messages",
  "/api/v1/dm/:targetUserId/gif",
  "/api/v1/dm/:targetUserId/upload",
  "/api/v1/dm/groups/:groupId/messages",
  "/api/v1/dm/groups/:groupId/gif",
  "/api/v1/dm/groups/:groupId/upload",
  "/api/v1/oauth2/bot/channels/:channelId/messages",
  "/api/v1/oauth2/bot/dm/:targetUserId",
]);

/** Edits, deletes, bulk deletes and pins of messages (in channels, DMs and through Bot REST). */
const MESSAGE_WRITE = /\/messages\/(:messageId|bulk-delete)$|\/pins\/:messageId$|^\/api\/v1\/messages\/:id$/;

/** Routes with limits of their own (login, registration and the credential budgets: docs/auth.md). */
const EXEMPT_PREFIXES = ["/api/v1/auth/"];

/**
 * The family of an authenticated route, by method and pattern (as Elysia names the route);
 * null for a route that is not limited here.
 */
export function restRateFamilyOf(method: string, pattern: string): RestRateFamily | null {
  if (EXEMPT_PREFIXES.some((prefix) => pattern.startsWith(prefix))) return null;
  if (method === "GET" || method === "HEAD") return "reads";
  if (pattern.includes("/reactions")) return "reactions";
  if (method === "POST" && SENDS.has(pattern)) return "sends";
  if (MESSAGE_WRITE.test(pattern)) return "message-writes";
  return "writes";
}

/** The parameter a family's buckets are kept apart by, besides the caller: a send's channel or DM. */
export function scopeParamOf(family: RestRateFamily, pattern: string): string | null {
  if (family !== "sends") return null;
  return /:([^/]+)/.exec(pattern)?.[1] ?? null;
}

/** A bucket as GET /api/v1/platform/config publishes it (`rest_limits`, docs/discovery.md). */
export interface PublishedRestBucket {
  requests: number;
  window_seconds: number;
  /** Whose requests one bucket counts: each caller's, or each caller's per channel (or DM). */
  per: "caller" | "caller_and_channel";
  /** The bucket every request of this one is also counted in first (sends: the sends over all channels), or null. */
  counted_in: string | null;
}

/** The buckets by their `X-RateLimit-Bucket` name, for clients that keep to them by themselves; none when the limits are off. */
export function publishedRestLimits(limits: RestRateLimits | null): Record<string, PublishedRestBucket> {
  if (!limits) return {};
  return Object.fromEntries(
    REST_RATE_FAMILIES.map((family) => [
      FAMILY_LABELS[family].bucket,
      {
        requests: limits[family].requests,
        window_seconds: limits[family].windowSeconds,
        per: family === "sends" ? "caller_and_channel" : "caller",
        counted_in: family === "sends" ? FAMILY_LABELS["user-sends"].bucket : null,
      },
    ]),
  );
}

/** Parses `"<requests>/<seconds>s"` (e.g. `100/10s`); null when it is not that. */
export function parseRestRateWindow(text: string): RestRateWindow | null {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*s\s*$/.exec(text);
  if (!match) return null;
  const requests = Number(match[1]);
  const windowSeconds = Number(match[2]);
  if (requests < 1 || windowSeconds < 1 || requests > 1e9 || windowSeconds > 86_400) return null;
  return { requests, windowSeconds };
}
