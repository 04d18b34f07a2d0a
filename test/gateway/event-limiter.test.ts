import { describe, expect, test } from "bun:test";
import { EventLimiter, type LimitedSocket } from "../../src/gateway/event-limiter.ts";
import { DEFAULT_EVENT_LIMITS, EVENT_KIND, EVENT_KINDS, parseRateLimit, type EventLimits } from "../../src/gateway/event-limits.ts";

/** The token buckets alone, on a clock the test moves (src/gateway/event-limiter.ts). */

const TYPING = EventLimiter.kindIndex("typing");
const ROOMS = EventLimiter.kindIndex("rooms");

function setup(overrides: Partial<{ limits: EventLimits; userFactor: number; refusals: number; maxConnections: number }> = {}) {
  let now = 1000;
  const limiter = new EventLimiter({
    limits: overrides.limits ?? { ...DEFAULT_EVENT_LIMITS, typing: { perSecond: 2, burst: 4 } },
    userFactor: overrides.userFactor ?? 2,
    refusalsBeforeDisconnect: overrides.refusals ?? 5,
    maxConnectionsPerUser: overrides.maxConnections ?? 3,
    now: () => now,
  });
  const socket = (userId = "u1"): LimitedSocket & { connected: boolean; conn: { readyState: string } } => ({
    data: { userId },
    connected: false,
    conn: { readyState: "open" },
  });
  return { limiter, socket, advance: (ms: number) => void (now += ms) };
}

/** Admits `count` events of `kind` from `socket`: how many got through. */
const admitted = (limiter: EventLimiter, socket: LimitedSocket, kind: number, count: number) =>
  Array.from({ length: count }, () => limiter.admit(socket, kind)).filter((refusal) => refusal === null).length;

describe("EventLimiter: buckets", () => {
  test("a socket gets its burst at once, then its rate; a refusal names the kind and the wait", () => {
    const { limiter, socket, advance } = setup();
    const s = socket();
    expect(admitted(limiter, s, TYPING, 4)).toBe(4);
    expect(limiter.admit(s, TYPING)).toEqual({ error: "Rate limited: too many typing events; retry in 500 ms", disconnect: false });
    advance(499);
    expect(limiter.admit(s, TYPING)?.error).toBe("Rate limited: too many typing events; retry in 1 ms");
    advance(1);
    expect(limiter.admit(s, TYPING)).toBeNull();
    advance(10_000); // refills to the burst, not past it
    expect(admitted(limiter, s, TYPING, 10)).toBe(4);
  });

  test("kinds are counted apart", () => {
    const { limiter, socket } = setup();
    const s = socket();
    expect(admitted(limiter, s, TYPING, 10)).toBe(4);
    expect(limiter.admit(s, ROOMS)).toBeNull();
  });

  test("a user's sockets share `userFactor` times a socket's bucket", () => {
    const { limiter, socket } = setup({ userFactor: 2 });
    const [a, b, c] = [socket(), socket(), socket()];
    expect(admitted(limiter, a, TYPING, 10)).toBe(4);
    expect(admitted(limiter, b, TYPING, 10)).toBe(4);
    // The user's 8 are spent: a third socket with a full bucket of its own still waits.
    expect(limiter.admit(c, TYPING)?.error).toBe("Rate limited: too many typing events; retry in 250 ms");
    // Another user is untouched.
    expect(limiter.admit(socket("u2"), TYPING)).toBeNull();
  });
});

describe("EventLimiter: refusals", () => {
  test("a socket refused more than `refusalsBeforeDisconnect` times in a row is to be disconnected", () => {
    const { limiter, socket } = setup({ refusals: 5 });
    const s = socket();
    admitted(limiter, s, TYPING, 4);
    const refusals = Array.from({ length: 6 }, () => limiter.admit(s, TYPING)!.disconnect);
    expect(refusals).toEqual([false, false, false, false, false, true]);
  });

  test("strikes drain over ten seconds: occasional refusals never disconnect", () => {
    const { limiter, socket, advance } = setup({ refusals: 5 });
    const s = socket();
    for (let i = 0; i < 100; i++) {
      admitted(limiter, s, TYPING, 10); // 4 through, then refusals
      advance(10_000);
    }
    expect(limiter.admit(s, TYPING)).toBeNull();
  });

  test("unknown events count as refusals", () => {
    const { limiter, socket } = setup({ refusals: 3 });
    const s = socket();
    expect([1, 2, 3, 4].map(() => limiter.unknownEvent(s))).toEqual([false, false, false, true]);
  });

  test("while a user is over the refusal limit its handshakes are refused, for at most twenty seconds", () => {
    const { limiter, socket, advance } = setup({ refusals: 5 });
    const flooder = socket();
    for (let i = 0; i < 50; i++) limiter.admit(flooder, TYPING);
    expect(limiter.handshake(socket())).toBe("Rate limited: too many refused events from this account; retry in 10 s");
    expect(limiter.handshake(socket("u2"))).toBeNull();
    advance(10_000);
    expect(limiter.handshake(socket())).toBeNull();
  });
});

describe("EventLimiter: connections per user", () => {
  test("at most `maxConnectionsPerUser` connected or connecting; a closed handshake frees its place", () => {
    const { limiter, socket } = setup({ maxConnections: 3 });
    const [a, b, c, d] = [socket(), socket(), socket(), socket()];
    expect([a, b, c].map((s) => limiter.handshake(s))).toEqual([null, null, null]);
    expect(limiter.handshake(d)).toBe("Too many connections: at most 3 per user");
    expect(limiter.handshake(socket("u2"))).toBeNull();
    // a and b connect; c's client goes away before its CONNECT is done.
    for (const s of [a, b]) {
      s.connected = true;
      limiter.connected(s);
    }
    c.conn.readyState = "closed";
    expect(limiter.handshake(d)).toBeNull();
    expect(limiter.handshake(socket())).toBe("Too many connections: at most 3 per user");
    limiter.disconnected(a);
    expect(limiter.handshake(socket())).toBeNull();
  });

  test("a user without sockets is forgotten a minute after its last one left", () => {
    const { limiter, socket, advance } = setup();
    const s = socket();
    limiter.handshake(s);
    s.connected = true;
    limiter.connected(s);
    const gone = socket("u2");
    limiter.handshake(gone);
    expect(limiter.trackedUsers).toBe(2);
    limiter.disconnected(s);
    gone.conn.readyState = "closed"; // u2's client left before its CONNECT was done
    advance(61_000);
    limiter.handshake(socket("u3")); // sweeps u1 and u2
    expect(limiter.trackedUsers).toBe(1);
  });
});

describe("event limits", () => {
  test("every client event has a kind, and every kind a default", () => {
    for (const kind of Object.values(EVENT_KIND)) expect(EVENT_KINDS).toContain(kind);
    expect(Object.keys(DEFAULT_EVENT_LIMITS).sort()).toEqual([...EVENT_KINDS].sort());
    expect(EVENT_KIND["bot:audio-data"]).toBe("audio");
    expect(EVENT_KIND["typing:start"]).toBe("typing");
  });

  test.each([
    ["10/20", { perSecond: 10, burst: 20 }],
    [" 0.5 / 3 ", { perSecond: 0.5, burst: 3 }],
    ["10", null],
    ["0/5", null],
    ["5/0", null],
    ["-1/5", null],
    ["a/b", null],
  ])("parseRateLimit(%j)", (text, expected) => {
    expect(parseRateLimit(text)).toEqual(expected);
  });
});
