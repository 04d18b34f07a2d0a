/**
 * The ICE servers every peer connection of the web app uses (docs/operations.md, "TURN and
 * STUN"): the configured STUN servers as they are, and the TURN servers with a credential of
 * the TURN REST API form that coturn checks against its `static-auth-secret`
 * (`use-auth-secret`): the username is `<expiry>:<user id>` (expiry in unix seconds) and the
 * credential is base64(HMAC-SHA1(secret, username)). coturn refuses an allocation whose
 * username's expiry has passed, so a leaked credential is good for `ttl` seconds at most.
 */
import { createHmac } from "node:crypto";
import * as v from "valibot";

export interface IceSettings {
  /** `turn:` and `turns:` URLs sharing one secret (TURN_URLS); empty: no TURN. */
  turnUrls: string[];
  /** coturn's `static-auth-secret` (TURN_SECRET); set exactly when `turnUrls` is. */
  turnSecret: string | undefined;
  /** `stun:` and `stuns:` URLs (STUN_URLS), no credential. */
  stunUrls: string[];
  /** How long a TURN credential lives, in seconds (TURN_TTL_SECONDS). */
  ttlSeconds: number;
  /**
   * `relay` makes every peer connection relay-only (RTCConfiguration.iceTransportPolicy):
   * for tests, and for hosts whose users must never reveal their addresses to each other.
   */
  transportPolicy: "all" | "relay";
}

export const DEFAULT_ICE_SETTINGS: IceSettings = { turnUrls: [], turnSecret: undefined, stunUrls: [], ttlSeconds: 86_400, transportPolicy: "all" };

export const IceServer = v.object({
  urls: v.array(v.string()),
  username: v.optional(v.string()),
  credential: v.optional(v.string()),
});

/** GET /api/v1/voice/ice-servers (docs/voice.md, "ICE servers"). */
export const IceServers = v.object({
  ice_servers: v.array(IceServer),
  /** Seconds the TURN credentials stay good; the page asks again before. */
  ttl: v.number(),
  ice_transport_policy: v.picklist(["all", "relay"]),
});
export type IceServers = v.InferOutput<typeof IceServers>;

/** The TURN REST API credential of `userId` expiring at `expiry` (unix seconds). */
export function turnCredential(secret: string, userId: string, expiry: number): { username: string; credential: string } {
  const username = `${expiry}:${userId}`;
  return { username, credential: createHmac("sha1", secret).update(username).digest("base64") };
}

/** The ICE servers for `userId` now: STUN first, then TURN with a fresh credential. None configured: an empty list (host candidates only). */
export function iceServersFor(settings: IceSettings, userId: string, now = Date.now()): IceServers {
  const servers: v.InferOutput<typeof IceServer>[] = [];
  if (settings.stunUrls.length) servers.push({ urls: settings.stunUrls });
  if (settings.turnUrls.length && settings.turnSecret) {
    const expiry = Math.floor(now / 1000) + settings.ttlSeconds;
    servers.push({ urls: settings.turnUrls, ...turnCredential(settings.turnSecret, userId, expiry) });
  }
  return { ice_servers: servers, ttl: settings.ttlSeconds, ice_transport_policy: settings.transportPolicy };
}
