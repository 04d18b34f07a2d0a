/**
 * The ICE servers of every peer connection the page makes (voice rooms, meetings, DM calls):
 * `GET /api/v1/voice/ice-servers`, STUN and TURN with a short-lived TURN credential, and the
 * host's transport policy (`relay`: relay candidates only; docs/voice.md, "ICE servers").
 * Kept until half its `ttl` has passed, then asked again. When the server cannot be asked,
 * peer connections go without (host candidates only: enough on one machine or a LAN).
 */
import type { IceServers } from "../../sdk/src/generated/schemas.ts";

const NONE: RTCConfiguration = { iceServers: [] };

export class IceConfiguration {
  private configuration: RTCConfiguration = NONE;
  private freshUntil = 0;
  private pending: Promise<void> | null = null;

  constructor(private readonly fetch: () => Promise<IceServers>) {}

  /** What a new peer connection is made with now; asks again in the background when it is getting old. */
  current(): RTCConfiguration {
    if (Date.now() >= this.freshUntil) void this.ready();
    return this.configuration;
  }

  /** Resolves once a configuration no older than half its lifetime is at hand (or asking failed). */
  ready(): Promise<void> {
    if (Date.now() < this.freshUntil) return Promise.resolve();
    this.pending ??= this.fetch()
      .then(
        (answer) => {
          this.configuration = {
            iceServers: answer.ice_servers.map(({ urls, username, credential }) => ({ urls, username, credential })),
            iceTransportPolicy: answer.ice_transport_policy,
          };
          this.freshUntil = Date.now() + (answer.ttl * 1000) / 2;
        },
        (error: unknown) => console.warn("voice: could not get the ICE servers; connecting without", error),
      )
      .finally(() => (this.pending = null));
    return this.pending;
  }

  /** Forgotten on log out: the next account's credential is its own. */
  reset(): void {
    this.configuration = NONE;
    this.freshUntil = 0;
  }
}
