/**
 * The two ways a page talks to the API: loading something when it opens (`useLoad`) and running
 * an action the person asked for (`useAction`), each with its error as the server worded it.
 */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { errorMessage } from "../lib/api-errors.ts";

export interface Loaded<T> {
  data: T | null;
  error: string | null;
  /** Asks again (after a change that has no event); the data stays until the answer comes. */
  reload: () => Promise<void>;
  /** Replaces the data in place (after a change the server answered). */
  set: (update: (current: T) => T) => void;
}

/** Loads once per change of `deps`; an answer that arrives after `deps` changed (or the page left) is dropped. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Bumped when `deps` change or the component goes: answers asked for before are stale.
  const generation = useRef(0);
  const reload = useCallback(async () => {
    const asked = generation.current;
    try {
      const value = await load();
      if (asked !== generation.current) return;
      setData(value);
      setError(null);
    } catch (failure) {
      if (asked === generation.current) setError(errorMessage(failure));
    }
  }, deps);
  useEffect(() => {
    setData(null);
    setError(null);
    void reload();
    return () => {
      generation.current++;
    };
  }, deps);
  const set = useCallback((update: (current: T) => T) => setData((current) => (current === null ? current : update(current))), []);
  return { data, error, reload, set };
}

export interface Action {
  busy: boolean;
  error: string | null;
  /** What the last success said ("Saved."). */
  status: string;
  /** Runs `work` unless one is running; a refusal becomes `error` (shown by the caller's ErrorAlert). True when it succeeded. */
  run: (work: () => Promise<unknown>, done?: string) => Promise<boolean>;
  /** Forgets the last error and status. */
  reset: () => void;
}

export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState("");
  const running = useRef(false);
  const reset = useCallback(() => {
    setError(null);
    setStatus("");
  }, []);
  const run = useCallback(async (work: () => Promise<unknown>, done = "") => {
    if (running.current) return false;
    running.current = true;
    setBusy(true);
    reset();
    try {
      await work();
      setStatus(done);
      return true;
    } catch (failure) {
      setError(errorMessage(failure));
      return false;
    } finally {
      running.current = false;
      setBusy(false);
    }
  }, []);
  return { busy, error, status, run, reset };
}
