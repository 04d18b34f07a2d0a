/**
 * Waiting for one thing that is about to happen (a press on the button just sent, a user's next
 * message): `Bot.awaitComponent()` and `Bot.awaitMessage()` are built on this. Each wait is a
 * promise that resolves with the first value offered that passes its test, or rejects with
 * `HearthTimeoutError` after `timeout` ms, with the signal's reason when `signal` aborts, or when
 * the bot stops; whichever comes first removes the wait, its timer and its abort listener.
 */
import { HearthError, HearthTimeoutError } from "./errors.js";

export interface AwaitOptions<T> {
  /** Only values this accepts resolve the wait (a filter that throws rejects it with its error). */
  filter?: (value: T) => boolean;
  /** Milliseconds to wait (default 60 000; `Infinity`: no limit). */
  timeout?: number;
  /** Ends the wait early: it rejects with the signal's reason. */
  signal?: AbortSignal;
}

export const DEFAULT_AWAIT_TIMEOUT_MS = 60_000;

interface Waiter<T> {
  test(value: T): boolean;
  resolve(value: T): void;
  reject(error: unknown): void;
}

/** @internal Pending waits for values of one kind. */
export class Waiters<T> {
  private readonly pending = new Set<Waiter<T>>();

  /** How many waits are pending. */
  get size(): number {
    return this.pending.size;
  }

  /** A wait for the first value for which `match` (the caller's rule) and `options.filter` hold. */
  wait(what: string, detail: string, match: (value: T) => boolean, options: AwaitOptions<T>): Promise<T> {
    const { filter, timeout = DEFAULT_AWAIT_TIMEOUT_MS, signal } = options;
    if (typeof timeout !== "number" || Number.isNaN(timeout) || timeout < 0) return Promise.reject(new HearthError(`${what}: timeout must be a number of milliseconds`));
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<T>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | null = null;
      const onAbort = () => done(() => reject(signal!.reason));
      const done = (settle: () => void) => {
        if (!this.pending.delete(waiter)) return;
        if (timer) clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        settle();
      };
      const waiter: Waiter<T> = {
        test: (value) => {
          if (!match(value)) return false;
          try {
            return filter ? filter(value) === true : true;
          } catch (error) {
            done(() => reject(error));
            return false;
          }
        },
        resolve: (value) => done(() => resolve(value)),
        reject: (error) => done(() => reject(error)),
      };
      this.pending.add(waiter);
      if (Number.isFinite(timeout)) timer = setTimeout(() => done(() => reject(new HearthTimeoutError(what, timeout, detail))), timeout);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Gives `value` to the first wait it satisfies; whether one took it. */
  offer(value: T): boolean {
    for (const waiter of [...this.pending]) {
      if (waiter.test(value)) {
        waiter.resolve(value);
        return true;
      }
    }
    return false;
  }

  /** Rejects every pending wait. */
  rejectAll(error: unknown): void {
    for (const waiter of [...this.pending]) waiter.reject(error);
  }
}
