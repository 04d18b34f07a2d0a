import { EVENT_KINDS, KIND_LABELS, type EventKind, type EventLimits } from "./event-limits.ts";

/** What the limiter needs of a socket: its user, its connection state (a GatewaySocket fits). */
export interface LimitedSocket {
  readonly data: { userId: string };
  readonly connected: boolean;
  readonly conn: { readyState: string };
}

interface EventLimiterOptions {
  limits: EventLimits;
  /** A user's sockets together get this many times a socket's limits. */
  userFactor: number;
  /** A socket with more refused events than this within about ten seconds is disconnected. */
  refusalsBeforeDisconnect: number;
  maxConnectionsPerUser: number;
  /** Milliseconds from a monotonic clock (tests pass their own). */
  now?: () => number;
}

export interface Refusal {
  error: string;
  /** The socket has been refused too often: disconnect it after answering. */
  disconnect: boolean;
}

interface UserLimits {
  buckets: Float64Array;
  connected: number;
  /** Sockets past the connection cap check whose CONNECT is not done yet. */
  pending: Set<LimitedSocket>;
  idleSince: number;
}

const KINDS = EVENT_KINDS.length;
/** Bucket layout: tokens and last refill time per kind, then refusal strikes and their time. */
const STRIKES = 2 * KINDS;
/** Strikes drain completely in this long, so "N refusals" means "N within about ten seconds". */
const STRIKE_WINDOW_MS = 10_000;
/** A user's state is dropped this long after its last socket left (every bucket is full again by then). */
const USER_IDLE_MS = 60_000;

/**
 * Token buckets for client gateway events, per socket and per user, one per event kind
 * (docs/gateway.md, "Limits"). The work per event is a few arithmetic operations on two
 * small typed arrays: no timers, no allocation unless the event is refused.
 *
 * An event is admitted when both its socket's and its user's bucket of that kind hold a
 * token; a refused event counts a strike for the socket and the user. Strikes drain at
 * `refusalsBeforeDisconnect` per ten seconds: a socket that goes over is disconnected, and
 * while its user is over, new handshakes of that user are refused too (so reconnecting in a
 * loop does not reset anything).
 *
 * Connections per user: at most `maxConnectionsPerUser` connected or connecting sockets per
 * user on this node.
 *
 * Not on rate-limiter-flexible, as the REST and domain limits are (src/domain/shared/rate-limit.ts):
 * this runs for every client event (audio frames: 50 a second per stream), synchronously, so a
 * frame can be acked in the same turn (src/gateway/ack.ts); the library answers with a promise,
 * allocates a result and a prefixed key per count, arms a timer per key and window, and has
 * fixed windows where these are token buckets refilling continuously. Two counts (socket and
 * user) through RateLimiterMemory cost several times what `admit` does. Its state is per
 * node by design (docs/gateway.md, "Limits"), so it has no need of a shared store either.
 */
export class EventLimiter {
  private readonly sockets = new WeakMap<LimitedSocket, Float64Array>();
  private readonly users = new Map<string, UserLimits>();
  /** Tokens per millisecond and capacity, per kind: the socket's, then the user's. */
  private readonly rate = new Float64Array(KINDS);
  private readonly burst = new Float64Array(KINDS);
  private readonly userRate = new Float64Array(KINDS);
  private readonly userBurst = new Float64Array(KINDS);
  private readonly strikeLimit: number;
  private readonly strikeDrain: number;
  private readonly now: () => number;
  private lastSweep: number;

  constructor(private readonly options: EventLimiterOptions) {
    EVENT_KINDS.forEach((kind, i) => {
      const { perSecond, burst } = options.limits[kind];
      this.rate[i] = perSecond / 1000;
      this.burst[i] = burst;
      this.userRate[i] = (perSecond * options.userFactor) / 1000;
      this.userBurst[i] = burst * options.userFactor;
    });
    this.strikeLimit = options.refusalsBeforeDisconnect;
    this.strikeDrain = options.refusalsBeforeDisconnect / STRIKE_WINDOW_MS;
    this.now = options.now ?? (() => performance.now());
    this.lastSweep = this.now();
  }

  /** The index of a kind, resolved once per event name (listeners are built once). */
  static kindIndex(kind: EventKind): number {
    return EVENT_KINDS.indexOf(kind);
  }

  /**
   * Checks a handshake against the connection cap and the user's refusal strikes, and
   * reserves a place for the socket: null, or the connect_error message.
   */
  handshake(socket: LimitedSocket): string | null {
    const now = this.now();
    if (now - this.lastSweep > USER_IDLE_MS) this.sweep(now);
    const user = this.user(socket.data.userId, now);
    const strikes = this.strikesNow(user.buckets, now);
    if (strikes > this.strikeLimit) {
      const seconds = Math.ceil((strikes - this.strikeLimit) / this.strikeDrain / 1000);
      return `Rate limited: too many refused events from this account; retry in ${seconds} s`;
    }
    prunePending(user.pending);
    const max = this.options.maxConnectionsPerUser;
    if (user.connected + user.pending.size >= max) return `Too many connections: at most ${max} per user`;
    user.pending.add(socket);
    return null;
  }

  /** Gives back the place `handshake` reserved for a socket that will not connect after all. */
  release(socket: LimitedSocket): void {
    this.users.get(socket.data.userId)?.pending.delete(socket);
  }

  /** The socket's CONNECT is done: it counts as connected until `disconnected`. */
  connected(socket: LimitedSocket): void {
    const user = this.user(socket.data.userId, this.now());
    user.pending.delete(socket);
    user.connected++;
  }

  disconnected(socket: LimitedSocket): void {
    const user = this.users.get(socket.data.userId);
    if (!user) return;
    user.connected = Math.max(0, user.connected - 1);
    if (user.connected === 0) user.idleSince = this.now();
  }

  /** Takes one token of `kind` (an index) for the socket and its user: null, or why not. */
  admit(socket: LimitedSocket, kind: number): Refusal | null {
    const now = this.now();
    let mine = this.sockets.get(socket);
    if (!mine) this.sockets.set(socket, (mine = this.fresh(this.burst, now)));
    const theirs = this.user(socket.data.userId, now).buckets;
    const t = 2 * kind;
    const own = Math.min(this.burst[kind]!, mine[t]! + (now - mine[t + 1]!) * this.rate[kind]!);
    const shared = Math.min(this.userBurst[kind]!, theirs[t]! + (now - theirs[t + 1]!) * this.userRate[kind]!);
    mine[t + 1] = now;
    theirs[t + 1] = now;
    if (own >= 1 && shared >= 1) {
      mine[t] = own - 1;
      theirs[t] = shared - 1;
      return null;
    }
    mine[t] = own;
    theirs[t] = shared;
    const waitMs = Math.max(own < 1 ? (1 - own) / this.rate[kind]! : 0, shared < 1 ? (1 - shared) / this.userRate[kind]! : 0);
    const socketStrikes = this.strike(mine, now, Infinity);
    this.strike(theirs, now, 2 * this.strikeLimit);
    return {
      error: `Rate limited: too many ${KIND_LABELS[EVENT_KINDS[kind]!]}; retry in ${Math.max(1, Math.ceil(waitMs - 1e-6))} ms`,
      disconnect: socketStrikes > this.strikeLimit,
    };
  }

  /**
   * Counts an event no handler knows as a refusal (it gets no answer): true when the socket
   * has been refused too often and is to be disconnected.
   */
  unknownEvent(socket: LimitedSocket): boolean {
    const now = this.now();
    let mine = this.sockets.get(socket);
    if (!mine) this.sockets.set(socket, (mine = this.fresh(this.burst, now)));
    this.strike(this.user(socket.data.userId, now).buckets, now, 2 * this.strikeLimit);
    return this.strike(mine, now, Infinity) > this.strikeLimit;
  }

  /** Users with state (for tests). */
  get trackedUsers(): number {
    return this.users.size;
  }

  private user(userId: string, now: number): UserLimits {
    let user = this.users.get(userId);
    if (!user) {
      user = { buckets: this.fresh(this.userBurst, now), connected: 0, pending: new Set(), idleSince: now };
      this.users.set(userId, user);
    }
    return user;
  }

  /** Full buckets, no strikes. */
  private fresh(burst: Float64Array, now: number): Float64Array {
    const buckets = new Float64Array(STRIKES + 2);
    for (let i = 0; i < KINDS; i++) {
      buckets[2 * i] = burst[i]!;
      buckets[2 * i + 1] = now;
    }
    buckets[STRIKES + 1] = now;
    return buckets;
  }

  private strikesNow(buckets: Float64Array, now: number): number {
    return Math.max(0, buckets[STRIKES]! - (now - buckets[STRIKES + 1]!) * this.strikeDrain);
  }

  /** Counts one refusal (at most `cap` strikes kept); returns the strikes now. */
  private strike(buckets: Float64Array, now: number, cap: number): number {
    const strikes = Math.min(cap, this.strikesNow(buckets, now) + 1);
    buckets[STRIKES] = strikes;
    buckets[STRIKES + 1] = now;
    return strikes;
  }

  /** Drops users without sockets that have been idle long enough for their buckets to be full. */
  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [userId, user] of this.users) {
      prunePending(user.pending);
      if (user.connected === 0 && user.pending.size === 0 && now - user.idleSince > USER_IDLE_MS) this.users.delete(userId);
    }
  }
}

/** Forgets reservations whose socket connected (it is counted) or whose connection closed first. */
function prunePending(pending: Set<LimitedSocket>): void {
  for (const socket of pending) if (socket.connected || socket.conn.readyState !== "open") pending.delete(socket);
}
