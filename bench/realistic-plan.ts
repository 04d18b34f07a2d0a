/**
 * The pure parts of bench/realistic.ts, with no imports so its load client
 * (bench/realistic-client.ts) loads none of the app: a seeded random source, the plan of a batch
 * of users and servers, and a step's verdict.
 */

/** A seeded source of numbers in [0, 1) (mulberry32): the same seed builds the same world. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A number drawn uniformly from [lo, hi). */
export const uniform = (random: () => number, lo: number, hi: number): number => lo + random() * (hi - lo);

/** `count` distinct integers of [0, n), drawn at random (all of them when count >= n), in no order. */
export function distinct(random: () => number, n: number, count: number): number[] {
  const picked = new Set<number>();
  const want = Math.min(n, count);
  while (picked.size < want) picked.add(Math.floor(random() * n));
  return [...picked];
}

/**
 * A batch of the world: `users` new users and `users / usersPerServer` new servers (at least
 * one), each user a member of `minServers`..`maxServers` distinct servers of the batch, drawn at
 * random (all of them when the batch has fewer). With 50 users a server and 3-5 servers a user,
 * a server has about 200 members. Answers the servers' count and, per user, the indices of its
 * servers in the batch.
 */
export function planBatch(random: () => number, users: number, usersPerServer = 50, minServers = 3, maxServers = 5): { servers: number; memberships: number[][] } {
  const servers = Math.max(1, Math.round(users / usersPerServer));
  const memberships: number[][] = [];
  for (let u = 0; u < users; u++) {
    const count = minServers + Math.floor(random() * (maxServers - minServers + 1));
    memberships.push(distinct(random, servers, count));
  }
  return { servers, memberships };
}

/** What a step measured, for its verdict. */
export interface StepFigures {
  /** Message deliveries timed (each `message:new` at a member other than the sender). */
  deliveries: number;
  delivery_p99_ms: number;
  /** Requests and acked events that failed, by kind (message, reaction, read, ...). */
  failures: Record<string, number>;
  /** Sockets the server closed during the step. */
  disconnects: number;
}

/**
 * Whether a step held: at least one delivery timed, p99 delivery within `p99BoundMs`, nothing
 * failed and no socket was closed. Answers null when it held, else why not.
 */
export function stepVerdict(step: StepFigures, p99BoundMs: number): string | null {
  const failed = Object.entries(step.failures).filter(([, n]) => n > 0);
  if (failed.length) return `failed: ${failed.map(([kind, n]) => `${n} ${kind}`).join(", ")}`;
  if (step.disconnects > 0) return `${step.disconnects} sockets closed by the server`;
  if (step.deliveries === 0) return "no message delivered";
  if (!(step.delivery_p99_ms <= p99BoundMs)) return `p99 delivery ${step.delivery_p99_ms} ms > ${p99BoundMs} ms`;
  return null;
}
