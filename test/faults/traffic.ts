/**
 * The load the fault scenarios put on Hearth while a fault strikes: senders posting messages
 * into one channel over REST, one after the other each, every answer recorded with when it was
 * asked and answered; and the channel read back over REST afterwards, to count what was kept.
 */
import { letTimePass } from "../helpers/wait.ts";

export interface Send {
  sender: number;
  /** The sender's n-th send (its content is `<tag> <sender> <n>`). */
  n: number;
  /** The HTTP status, or "network" when no answer came (the connection failed or was cut). */
  status: number | "network";
  /** Milliseconds since the senders started. */
  startedAt: number;
  endedAt: number;
  /** The message id of a 201. */
  id?: string;
  /** The parsed body of any other answer, and its Retry-After header. */
  body?: unknown;
  retryAfter?: string | null;
}

export interface Senders {
  /** Every send so far, in the order answered. */
  sends: Send[];
  /** Milliseconds since the senders started (the clock of `Send.startedAt`). */
  now(): number;
  /** The ids answered 201 so far. */
  acknowledged(): string[];
  /** Stops the loops and waits for the sends in flight. */
  stop(): Promise<void>;
}

export interface SendersOptions {
  /** Where to send (a node or the load balancer). */
  url: string;
  channelId: string;
  /** One token per sender. */
  tokens: string[];
  tag: string;
  /** A pause between one answer and the next send: a steady stream, not a CPU-bound flood on a 2-core machine. */
  pauseMs?: number;
  /** Called with each send as it is answered. */
  onSend?: (send: Send) => void;
}

/** Starts one loop per token, each posting until `stop()`. */
export function startSenders({ url, channelId, tokens, tag, pauseMs = 10, onSend }: SendersOptions): Senders {
  const t0 = performance.now();
  const now = () => performance.now() - t0;
  const sends: Send[] = [];
  let stopped = false;
  const loop = async (sender: number, token: string) => {
    for (let n = 0; !stopped; n++) {
      const startedAt = now();
      let send: Send;
      try {
        const response = await fetch(`${url}/api/v1/messages/${channelId}`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ content: `${tag} ${sender} ${n}` }),
        });
        const text = await response.text();
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON (a load balancer's own page): kept as text
        }
        send = { sender, n, status: response.status, startedAt, endedAt: now() };
        if (response.status === 201) send.id = (body as { id: string }).id;
        else Object.assign(send, { body, retryAfter: response.headers.get("retry-after") });
      } catch {
        send = { sender, n, status: "network", startedAt, endedAt: now() };
      }
      sends.push(send);
      onSend?.(send);
      await letTimePass(pauseMs, "a steady stream of sends from each sender");
    }
  };
  const loops = tokens.map((token, sender) => loop(sender, token));
  return {
    sends,
    now,
    acknowledged: () => sends.flatMap((send) => (send.id ? [send.id] : [])),
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

/** Every message id in `channelId`, newest first, read over REST 100 at a time. */
export async function channelMessageIds(url: string, token: string, channelId: string): Promise<string[]> {
  const ids: string[] = [];
  for (let before: string | null = null; ; ) {
    const query = before ? `?limit=100&before=${before}` : "?limit=100";
    const response = await fetch(`${url}/api/v1/messages/${channelId}${query}`, { headers: { authorization: `Bearer ${token}` } });
    if (response.status !== 200) throw new Error(`reading the channel back: ${response.status} ${await response.text()}`);
    const page = (await response.json()) as { id: string }[];
    ids.push(...page.map((m) => m.id));
    if (page.length < 100) return ids;
    before = page.at(-1)!.id;
  }
}

/** The `p`-quantile (0..1) of `values` in milliseconds, rounded to 0.1 ms; NaN for none. */
export function quantile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]! * 10) / 10;
}

/** Rate limits raised for the scenarios' senders (the limits are not what they test). */
export const UNLIMITED_SENDS = {
  REST_RATE_SENDS: "1000000000/60s",
  REST_RATE_USER_SENDS: "1000000000/60s",
  REST_RATE_READS: "1000000000/60s",
  AUTH_RATE_LIMIT_PER_MINUTE: "100000",
};
