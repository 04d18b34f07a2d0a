/**
 * Idempotent sends (the server's docs/messages.md, "Idempotent sends"): every message the SDK
 * sends carries a nonce with `enforce_nonce: true`, so a retry after a lost answer answers the
 * message the first try stored instead of storing a second one.
 */
import { HearthAckError } from "./errors.js";
import { NOT_CONNECTED, NO_ANSWER } from "./gateway.js";
import { LIMITS } from "./generated/constants.js";

/** A fresh nonce: a random UUID's hex digits, cut to the server's 25 characters (100 random bits). */
export function newNonce(): string {
  return crypto.randomUUID().replace(/-/g, "").slice(0, LIMITS.message.nonceLength);
}

/** `message` with a nonce (its own, or a new one) and `enforce_nonce: true`. */
export function withNonce<M extends { nonce?: string | number }>(message: M): M & { nonce: string | number; enforce_nonce: true } {
  return { ...message, nonce: message.nonce ?? newNonce(), enforce_nonce: true };
}

/** How many times an idempotent send is tried again after a network error or a 5xx. */
export const SEND_RETRIES = 3;

/** The wait before retry `attempt` (0-based): 250 ms, 500 ms, 1 s, with jitter so many clients do not retry in step. */
export function sendBackoffMs(attempt: number): number {
  return 250 * 2 ** attempt * (0.75 + Math.random() * 0.5);
}

/** An ack error after which a send may be tried again: no answer, not connected, or the server briefly without its database or Redis (a 503 over REST). */
const isTransient = (error: HearthAckError) =>
  error.error === NO_ANSWER || error.error === NOT_CONNECTED || error.error === "Database unavailable" || error.error === "Redis unavailable";

/**
 * Runs a gateway send whose payload carries a nonce with `enforce_nonce` (`bot:send_message`,
 * `interaction:response`), trying it again after a transient failure, with backoff: the server
 * answers a retry with the message the first try stored.
 */
export async function retryingSend<T>(emit: () => Promise<T>): Promise<T> {
  for (let failures = 0; ; failures++) {
    try {
      return await emit();
    } catch (error) {
      if (!(error instanceof HearthAckError) || !isTransient(error) || failures >= SEND_RETRIES) throw error;
      await new Promise((resolve) => setTimeout(resolve, sendBackoffMs(failures)));
    }
  }
}
