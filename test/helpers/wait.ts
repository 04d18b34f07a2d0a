/**
 * Waiting in tests by condition, not by the clock. A fixed sleep is either too short on a loaded
 * machine (a flake) or longer than needed everywhere else (a slow suite); these helpers end as soon
 * as the condition holds and fail with a message naming what never came.
 *
 * Two kinds of plain waiting remain, each through a named helper so the intent shows at the call:
 * `quietWindow` (something must NOT happen within a short window) and `letTimePass` (real time
 * passing is what the test is about: a rate-limit window, a token expiry). A negative check that
 * follows a positive one on the same socket needs no window: events arrive in order, so assert on
 * the recorded events once the later one is in.
 *
 * No imports from the app or the API reference: the cluster and browser suites use this too.
 */
import type { Socket as ClientSocket } from "socket.io-client";

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** What `eventually` resolves with: its check's value, never a falsy one. */
type Truthy<T> = Exclude<T, false | 0 | "" | null | undefined>;

interface EventuallyOptions {
  /** Fail after this long; generous, since passing returns at once and only a failure pays it. */
  timeoutMs?: number;
  intervalMs?: number;
}

/**
 * Polls `check` until it returns a truthy value (returned), or fails after the deadline naming
 * `what`. A `check` that throws counts as not yet; if it was still throwing at the deadline, that
 * error is the failure, so an `expect(...)` inside `check` reports what it saw.
 */
export async function eventually<T>(
  check: () => T | Promise<T>,
  what: string | (() => string),
  { timeoutMs = 5000, intervalMs = 10 }: EventuallyOptions = {},
): Promise<Truthy<T>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as Truthy<T>;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      if (lastError !== undefined) throw lastError;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === "string" ? what : what()}`);
    }
    await sleep(intervalMs);
  }
}

/** `eventually` with a boolean check and a positional timeout, the shape most suites call. */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeout = 5000): Promise<void> {
  await eventually(check, what, { timeoutMs: timeout });
}

/** Resolves once `socket` is disconnected, with the reason. */
export function waitForDisconnect(socket: ClientSocket, timeout = 3000): Promise<string> {
  if (socket.disconnected) return Promise.resolve("already disconnected");
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("timed out waiting for disconnect")), timeout);
    socket.once("disconnect", (reason) => {
      clearTimeout(timer);
      resolve(reason);
    });
  });
}

/**
 * A bounded window in which something must not happen; the caller asserts after it. Nothing can
 * prove an absence sooner, so keep it short (the default) and use it only for negative checks.
 * On a loaded machine a too-short window makes the check weaker, never flaky.
 */
export const quietWindow = (ms = 100) => sleep(ms);

/**
 * Waits for real time to pass where the time itself is under test (a rate-limit window refilling,
 * a token expiring, a server-side timeout running out). `why` is there to be read at the call.
 */
export const letTimePass = (ms: number, _why: string) => sleep(ms);
