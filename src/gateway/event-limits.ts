import type { ClientToServerEvents } from "./client-events.ts";

/**
 * Rate limits of client gateway events (docs/gateway.md, "Limits"): every client event has a
 * kind, and each kind its own token bucket per socket and per user. Pure data; the buckets
 * are src/gateway/event-limiter.ts.
 */

export const EVENT_KINDS = ["typing", "rooms", "presence", "subscriptions", "voice", "signal", "messages", "audio"] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** `perSecond` events on average, up to `burst` at once (a token bucket). */
export interface RateLimit {
  perSecond: number;
  burst: number;
}
export type EventLimits = Record<EventKind, RateLimit>;

/**
 * Per socket, sized for real clients with headroom; a user's sockets together get
 * `userFactor` times as much (GATEWAY_USER_RATE_FACTOR).
 */
export const DEFAULT_EVENT_LIMITS: EventLimits = {
  // A fast typist's keystrokes, if a client sends one event per key (repeats are coalesced).
  typing: { perSecond: 10, burst: 20 },
  // Joining servers and channels one by one: a client's first few after connecting, then
  // navigation. A large account joins everything in one event (`{servers: "all"}`).
  rooms: { perSecond: 20, burst: 200 },
  // A person changes status now and then; an idle detector a little more often.
  presence: { perSecond: 2, burst: 10 },
  // `presence:subscribe`: the member list a client shows, sent again as it scrolls (debounced)
  // or switches servers; each one replaces the last, so a few a second are plenty.
  subscriptions: { perSecond: 5, burst: 20 },
  // Joining, leaving, speaking indicators, moderation.
  voice: { perSecond: 20, burst: 100 },
  // WebRTC signalling: joining a peer-to-peer room of ten sends an offer or answer to each of
  // nine peers and a trickle of ICE candidates (about 10-20 per connection) within a second or
  // two; each payload is capped too (LIMITS.voice.signalBytes).
  signal: { perSecond: 50, burst: 200 },
  // A bot's messages and interaction responses, a user's component presses.
  messages: { perSecond: 20, burst: 50 },
  // PCM frames: 50 a second per stream of 20 ms frames; room for a bot streaming five rooms.
  audio: { perSecond: 250, burst: 500 },
};

export const DEFAULT_USER_RATE_FACTOR = 3;

/** What a refusal names: "too many <label>". */
export const KIND_LABELS: Record<EventKind, string> = {
  typing: "typing events",
  rooms: "room joins and leaves",
  presence: "status changes",
  subscriptions: "presence subscriptions",
  voice: "voice events",
  signal: "signaling messages",
  messages: "message events",
  audio: "audio frames",
};

/** The kind of every client event; a new event does not compile until it has one. */
export const EVENT_KIND: Record<keyof ClientToServerEvents, EventKind> = {
  "typing:start": "typing",
  "typing:stop": "typing",
  "dm:typing:start": "typing",
  "dm:typing:stop": "typing",
  "server:join": "rooms",
  "server:leave": "rooms",
  "channel:join": "rooms",
  "channel:leave": "rooms",
  "status:set": "presence",
  "presence:subscribe": "subscriptions",
  "voice:join": "voice",
  "voice:leave": "voice",
  "voice:state": "voice",
  "voice:speaking": "voice",
  "voice:signal": "signal",
  "voice:raise-hand": "voice",
  "voice:lower-hand": "voice",
  "voice:set-meeting-role": "voice",
  "voice:server-mute": "voice",
  "voice:server-deafen": "voice",
  "voice:move": "voice",
  "voice:disconnect": "voice",
  "bot:voice-query": "voice",
  "bot:voice-participants": "voice",
  "voice:listen": "voice",
  "dm:call-start": "voice",
  "dm:call-accept": "voice",
  "dm:call-decline": "voice",
  "dm:call-end": "voice",
  "dm:call-signal": "signal",
  "interaction:response": "messages",
  "bot:send_message": "messages",
  "bot:edit_message": "messages",
  "bot:delete_message": "messages",
  "message:component": "messages",
  "bot:audio-data": "audio",
  "voice:audio-data": "audio",
};

/** Parses `"<per second>/<burst>"` (e.g. `10/20`); null when it is not that. */
export function parseRateLimit(text: string): RateLimit | null {
  const match = /^\s*(\d+(?:\.\d+)?)\s*\/\s*(\d+)\s*$/.exec(text);
  if (!match) return null;
  const perSecond = Number(match[1]);
  const burst = Number(match[2]);
  if (!(perSecond > 0) || burst < 1 || perSecond > 1e9 || burst > 1e9) return null;
  return { perSecond, burst };
}
