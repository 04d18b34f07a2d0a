/**
 * The REST client's rate-limit queues (docs/operations.md "Rate limits", sdk/README.md "Rate
 * limits"), on the model of Discord clients: every answer of a limited route carries its
 * bucket's `X-RateLimit-*` headers, so the client learns which bucket each operation counts
 * against, keeps one queue per bucket (per token, and for the buckets the server keeps apart per
 * channel, per channel), and sends no more in a window than the bucket has left. A 429 that still
 * happens (another process with the same token, a limit shared by several buckets) stops its
 * queue until the wait it gives; calls of other buckets go on meanwhile.
 *
 * Unlike a queue that sends one request at a time, a bucket whose window is known lets as many
 * calls go at once as it has requests left: a burst of 100 sends into a fresh channel goes out
 * together. A bucket whose window is unknown (never seen, or past its reset) lets one call go
 * and holds the rest until its answer says what is left: that answer is the only way to know
 * what the new window holds (another process, or a request counted late, may have spent some).
 */

/**
 * The buckets the server keeps apart per resource as well as per caller, by the route's first
 * path parameter: a send's channel or DM (src/http/rate-limit-families.ts, `scopeParamOf`), until
 * the instance says otherwise (`rest_limits`, `per`). Every other bucket is one per caller over
 * all its routes.
 */
const PER_RESOURCE_BUCKETS: readonly string[] = ["messages.send"];

/** A bucket as the instance publishes it (`GET /api/v1/platform/config`, `rest_limits`). */
export interface PublishedRestBucket {
  requests: number;
  window_seconds: number;
  per: "caller" | "caller_and_channel";
  counted_in: string | null;
}

/**
 * Added to every reset: our reset is already later than the server's (it is counted from when
 * the answer arrived), this covers the header's rounding to the millisecond and a store whose
 * clock ticks apart (Redis in cluster mode).
 */
const RESET_MARGIN_MS = 20;

/** Answers of the same window give the same reset; a new window's is at least a second later. */
const SAME_WINDOW_MS = 250;

/** How often (in calls) queues that are idle and past their window are forgotten. */
const SWEEP_EVERY = 1000;

/** A route the server does not limit (answered 2xx without `X-RateLimit-*`): no queue. */
const UNLIMITED = "";

interface RateHeaders {
  bucket: string;
  limit: number;
  remaining: number;
  /** `X-RateLimit-Reset` in epoch ms: the same for every answer of one window, on the server's clock. */
  reset: number;
  resetAfterMs: number;
}

function rateHeaders(headers: Headers): RateHeaders | null {
  const bucket = headers.get("x-ratelimit-bucket");
  const limit = Number(headers.get("x-ratelimit-limit"));
  const remaining = Number(headers.get("x-ratelimit-remaining"));
  const reset = Number(headers.get("x-ratelimit-reset"));
  const resetAfter = Number(headers.get("x-ratelimit-reset-after"));
  if (!bucket || ![limit, remaining, reset, resetAfter].every(Number.isFinite) || headers.get("x-ratelimit-remaining") === null) return null;
  return { bucket, limit, remaining, reset: reset * 1000, resetAfterMs: Math.max(0, resetAfter * 1000) };
}

/** `Retry-After` in milliseconds (seconds, possibly fractional), or null. */
export function retryAfterMs(headers: Headers): number | null {
  const seconds = Number(headers.get("retry-after") ?? NaN);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : null;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

interface Waiter {
  grant: (slot: Slot) => void;
  /** The route's bucket became known: acquire again from the bucket's queue. */
  moved: () => void;
  reject: (reason: unknown) => void;
}

/** What a queue's calls share with the other queues of the same bucket name (every channel's sends). */
interface Group {
  pausedUntil: number;
  readonly queues: Set<Queue>;
}

/**
 * A bucket over several queues' buckets (the sends over all channels, `counted_in`), known only
 * from what the instance publishes: its answers carry the channel's headers, not its own. So it
 * is counted here: a window starts with the first call sent after the last one ended, and ends
 * `windowMs` after that call's answer arrived (the server started it earlier: this errs late).
 * A 429 naming it says exactly when it ends.
 */
class SharedBudget {
  private used = 0;
  private inFlight = 0;
  private generation = 0;
  private started = false;
  private windowEnd: number | null = null;
  private readonly waiting = new Set<Queue>();
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  /** Whether a call may go now; if not, `queue` is pumped again when one may. */
  hasRoom(queue: Queue): boolean {
    const now = Date.now();
    if (this.windowEnd !== null && now >= this.windowEnd) {
      // Calls still out may land in the new window: count them there.
      this.generation++;
      this.used = this.inFlight;
      this.started = false;
      this.windowEnd = null;
    }
    if (this.used < this.limit) return true;
    this.waiting.add(queue);
    if (this.windowEnd !== null) this.notifyAt(this.windowEnd);
    return false;
  }

  /** Counts a call that goes: the window it belongs to, for `over`. */
  take(): number {
    this.used++;
    this.inFlight++;
    this.started = true;
    return this.generation;
  }

  /** A call taken in `generation` is over (answered or failed): the first one of a window dates its end. */
  over(generation: number): void {
    this.inFlight--;
    if (generation === this.generation && this.started && this.windowEnd === null) {
      this.windowEnd = Date.now() + this.windowMs + RESET_MARGIN_MS;
      if (this.waiting.size > 0) this.notifyAt(this.windowEnd);
    }
  }

  /** A 429 naming this bucket: spent until `resetAfterMs` from now. */
  refused(resetAfterMs: number): void {
    this.generation++;
    this.used = this.limit;
    this.started = true;
    this.windowEnd = Date.now() + resetAfterMs + RESET_MARGIN_MS;
    this.notifyAt(this.windowEnd);
  }

  private notifyAt(at: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(
      () => {
        this.timer = null;
        const queues = [...this.waiting];
        this.waiting.clear();
        for (const queue of queues) queue.pump();
      },
      Math.max(0, at - Date.now()),
    );
  }
}

class Queue {
  private windowReset: number | null = null;
  private resetAt = 0;
  private remaining = 0;
  private probing = false;
  private readonly out = new Set<Slot>();
  private readonly waiters: Waiter[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private timerAt = 0;
  /** Set on a route's provisional queue once its bucket is known. */
  forwarded = false;

  constructor(
    readonly key: string,
    readonly group: Group | null,
    /** The budget over this bucket and others (`counted_in`), when the instance published one. */
    private readonly sharedBudget: () => SharedBudget | null,
  ) {}

  get idle(): boolean {
    return this.waiters.length === 0 && this.out.size === 0 && Date.now() >= Math.max(this.resetAt, this.group?.pausedUntil ?? 0);
  }

  /** A place at once when nothing waits ahead and the window has room: the call goes out in the same tick, as without a queue. */
  now(): Slot | undefined {
    if (this.waiters.length > 0 || this.forwarded) return undefined;
    let granted: Slot | undefined;
    const waiter: Waiter = { grant: (slot) => (granted = slot), moved: () => {}, reject: () => {} };
    this.waiters.push(waiter);
    this.pump();
    if (!granted) this.waiters.splice(this.waiters.indexOf(waiter), 1);
    return granted;
  }

  /** Waits for this queue's turn; `first`: ahead of the calls already waiting (a call retried after a 429). */
  turn(signal: AbortSignal | undefined, first: boolean): Promise<Slot | null> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise<Slot | null>((resolve, reject) => {
      const onAbort = () => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        reject(abortReason(signal!));
        this.pump();
      };
      const settled = () => signal?.removeEventListener("abort", onAbort);
      const waiter: Waiter = {
        grant: (slot) => (settled(), resolve(slot)),
        moved: () => (settled(), resolve(null)),
        reject: (reason) => (settled(), reject(reason)),
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      if (first) this.waiters.unshift(waiter);
      else this.waiters.push(waiter);
      this.pump();
    });
  }

  /** Lets go every call its window (and any pause) allows, and sets a timer for the rest. */
  pump(): void {
    while (this.waiters.length > 0) {
      if (this.forwarded) {
        for (const waiter of this.waiters.splice(0)) waiter.moved();
        return;
      }
      const now = Date.now();
      const paused = this.group?.pausedUntil ?? 0;
      if (now < paused) return this.wake(paused);
      const shared = this.sharedBudget();
      if (this.windowReset === null || now >= this.resetAt) {
        // No window known: one call goes, its answer tells what the window holds.
        if (this.probing) return;
        if (shared && !shared.hasRoom(this)) return;
        this.windowReset = null;
        this.probing = true;
        this.grant(true, shared);
        continue;
      }
      if (this.remaining <= 0) return this.wake(this.resetAt);
      if (shared && !shared.hasRoom(this)) return;
      this.remaining--;
      this.grant(false, shared);
    }
  }

  private grant(probe: boolean, shared: SharedBudget | null): void {
    const slot = new Slot(this, probe, shared);
    this.out.add(slot);
    this.waiters.shift()!.grant(slot);
  }

  private wake(at: number): void {
    if (this.timer && this.timerAt <= at) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.pump();
      },
      Math.max(0, at - Date.now()),
    );
  }

  /** A call of this queue is over (answered, or failed without an answer). */
  finished(slot: Slot, probe: boolean): void {
    this.out.delete(slot);
    if (probe) this.probing = false;
  }

  /** The calls out of a route's provisional queue, once its bucket turns out to be counted in `budget` too. */
  adopt(budget: SharedBudget): void {
    for (const slot of this.out) slot.countIn(budget);
  }

  /** What an answer of this queue's own bucket says about its window. */
  learn(headers: RateHeaders): void {
    const now = Date.now();
    if (this.windowReset !== null && Math.abs(headers.reset - this.windowReset) < SAME_WINDOW_MS) {
      // Calls sent since were already taken off `remaining`; an answer can only lower it (another process spent some).
      this.remaining = Math.min(this.remaining, headers.remaining);
      return;
    }
    if (this.windowReset !== null && headers.reset < this.windowReset) return; // a late answer of an older window
    this.windowReset = headers.reset;
    this.resetAt = now + headers.resetAfterMs + RESET_MARGIN_MS;
    // The calls still out may count in this window too: assume they do.
    this.remaining = headers.remaining - this.out.size;
  }

  /** A 429 of this queue's bucket: nothing goes until its reset. */
  stop(headers: RateHeaders): void {
    this.windowReset = headers.reset;
    this.remaining = 0;
    this.resetAt = Date.now() + headers.resetAfterMs + RESET_MARGIN_MS;
  }
}

/** One call's place in its queue: given back with the answer (or null when none came). */
export class Slot {
  private done = false;
  private generation = 0;

  constructor(
    readonly queue: Queue,
    private readonly probe: boolean,
    public shared: SharedBudget | null,
  ) {
    if (shared) this.generation = shared.take();
  }

  /** Counts this call in `budget` (it went before its route's bucket was known). */
  countIn(budget: SharedBudget): void {
    if (this.shared || this.done) return;
    this.shared = budget;
    this.generation = budget.take();
  }

  /** The call is over (answered, or failed without an answer); the queue is pumped by whoever calls this. */
  finish(): void {
    if (this.done) return;
    this.done = true;
    this.queue.finished(this, this.probe);
    this.shared?.over(this.generation);
  }

  /** The call failed without an answer: its place goes to the next call. */
  release(): void {
    this.finish();
    this.queue.pump();
  }
}

/** How a 429 was taken: how long until the call may be sent again, and whether its queue holds it that long (else the call waits by itself). */
export interface Refusal {
  waitMs: number;
  queued: boolean;
}

/**
 * The queues of one RestClient, for every token it calls with. A call is a route: its token,
 * its operation and the value of its first path parameter (a send's channel).
 */
export class RateLimitQueues {
  /** operationId -> the bucket its answers name (UNLIMITED: none); learned from answers. */
  private readonly buckets = new Map<string, string>();
  private readonly queues = new Map<string, Queue>();
  private readonly groups = new Map<string, Group>();
  private readonly perResource = new Set(PER_RESOURCE_BUCKETS);
  /** bucket -> the bucket over it (`counted_in`) and that one's limit, as the instance published them. */
  private readonly countedIn = new Map<string, { bucket: string; limit: number; windowMs: number }>();
  private readonly budgets = new Map<string, SharedBudget>();
  private calls = 0;

  /**
   * The instance's buckets (`rest_limits` of `GET /api/v1/platform/config`): which are kept per
   * channel, and the limits over several buckets (the sends over all channels), counted here
   * since no answer carries their headers until a 429.
   */
  setLimits(published: Record<string, PublishedRestBucket>): void {
    this.perResource.clear();
    this.countedIn.clear();
    this.budgets.clear();
    for (const [bucket, limit] of Object.entries(published)) {
      if (limit.per === "caller_and_channel") this.perResource.add(bucket);
      const over = limit.counted_in === null ? undefined : published[limit.counted_in];
      if (over) this.countedIn.set(bucket, { bucket: limit.counted_in!, limit: over.requests, windowMs: over.window_seconds * 1000 });
    }
    // Queues made under the old rules are keyed by them.
    for (const [key, queue] of this.queues) if (queue.idle) this.queues.delete(key);
  }

  /**
   * The call's place in its queue (null: the route is not limited), at once when it has room or
   * once its turn comes; `retry`: it was just refused with a 429 and goes first.
   */
  acquire(token: string, operation: string, resource: string, signal: AbortSignal | undefined, retry = false): Slot | null | Promise<Slot | null> {
    if (++this.calls % SWEEP_EVERY === 0) this.sweep();
    const queue = this.queueOf(token, operation, resource);
    if (!queue) return null;
    if (!retry && !signal?.aborted) {
      const slot = queue.now();
      if (slot) return slot;
    }
    return this.waitTurn(token, operation, resource, signal, retry);
  }

  private async waitTurn(token: string, operation: string, resource: string, signal: AbortSignal | undefined, retry: boolean): Promise<Slot | null> {
    for (;;) {
      const queue = this.queueOf(token, operation, resource);
      if (!queue) return null;
      const slot = await queue.turn(signal, retry);
      if (slot) return slot;
    }
  }

  /**
   * Learns from the call's answer and lets the queue go on. On a 429, stops the bucket it names
   * (every channel's queue of the route's bucket when it names a limit they share, e.g. the sends
   * over all channels) and says how long until the call may be sent again.
   */
  answered(slot: Slot, token: string, operation: string, resource: string, response: Response): Refusal | null {
    const headers = rateHeaders(response.headers);
    let refusal: Refusal | null = null;
    // A bucket's refusal says it is spent; a 429 with room left in the bucket (or no headers) is
    // a limit of the route's own (a credential budget, soundboard plays), which only this call waits for.
    const spent = response.status === 429 && headers !== null && headers.remaining <= 0;
    if (spent) {
      const own = this.buckets.get(operation);
      if (own !== undefined && headers.bucket !== own) {
        // A limit over several buckets (the sends over all channels): every queue of the route's bucket waits.
        if (slot.shared && this.countedIn.get(own)?.bucket === headers.bucket) slot.shared.refused(headers.resetAfterMs);
        else {
          const group = this.groupOf(token, own);
          group.pausedUntil = Math.max(group.pausedUntil, Date.now() + headers.resetAfterMs + RESET_MARGIN_MS);
        }
      } else (own === undefined ? slot.queue : this.queueOf(token, operation, resource)!).stop(headers);
      refusal = { waitMs: headers.resetAfterMs, queued: true };
    } else {
      if (response.status === 429) refusal = { waitMs: retryAfterMs(response.headers) ?? 1000, queued: false };
      if (!this.buckets.has(operation)) {
        if (headers) this.learnBucket(operation, headers.bucket);
        else if (response.ok) this.learnBucket(operation, UNLIMITED);
      }
    }
    // The call is over before its answer is read: a new window's remaining then counts only the calls still out.
    slot.finish();
    const queue = headers && !spent ? this.queueOf(token, operation, resource) : null;
    queue?.learn(headers!);
    slot.queue.pump();
    if (queue !== slot.queue) queue?.pump();
    return refusal;
  }

  private learnBucket(operation: string, bucket: string): void {
    this.buckets.set(operation, bucket);
    // Calls held by the route's provisional queues go to the bucket's queue; those already out count in its shared budget.
    for (const [key, queue] of this.queues) {
      const at = key.indexOf(`\0route\0${operation}\0`);
      if (at < 0) continue;
      const budget = this.budgetOf(key.slice(0, at), bucket);
      if (budget) queue.adopt(budget);
      queue.forwarded = true;
      this.queues.delete(key);
      queue.pump();
    }
  }

  private queueOf(token: string, operation: string, resource: string): Queue | null {
    const bucket = this.buckets.get(operation);
    if (bucket === UNLIMITED) return null;
    const key = bucket === undefined ? `${token}\0route\0${operation}\0${resource}` : this.perResource.has(bucket) ? `${token}\0bucket\0${bucket}\0${resource}` : `${token}\0bucket\0${bucket}`;
    let queue = this.queues.get(key);
    if (!queue) {
      const group = bucket === undefined ? null : this.groupOf(token, bucket);
      queue = new Queue(key, group, () => (bucket === undefined ? null : this.budgetOf(token, bucket)));
      group?.queues.add(queue);
      this.queues.set(key, queue);
    }
    return queue;
  }

  private budgetOf(token: string, bucket: string): SharedBudget | null {
    const over = this.countedIn.get(bucket);
    if (!over) return null;
    const key = `${token}\0${over.bucket}`;
    let budget = this.budgets.get(key);
    if (!budget) {
      budget = new SharedBudget(over.limit, over.windowMs);
      this.budgets.set(key, budget);
    }
    return budget;
  }

  private groupOf(token: string, bucket: string): Group {
    const key = `${token}\0${bucket}`;
    let group = this.groups.get(key);
    if (!group) {
      group = { pausedUntil: 0, queues: new Set() };
      this.groups.set(key, group);
    }
    return group;
  }

  /** Forgets queues with nothing waiting and no window left: a bot sending to thousands of channels keeps only the busy ones. */
  private sweep(): void {
    for (const [key, queue] of this.queues) {
      if (!queue.idle) continue;
      this.queues.delete(key);
      queue.group?.queues.delete(queue);
    }
    for (const [key, group] of this.groups) if (group.queues.size === 0 && Date.now() >= group.pausedUntil) this.groups.delete(key);
  }
}
