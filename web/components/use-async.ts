/**
 * The two ways a page talks to the API: loading something when it opens (`useLoad`) and running
 * an action the person asked for (`useAction`), each with its error as the server worded it.
 */
import { useCallback, useEffect, useState } from "preact/hooks";
import { errorMessage } from "../api/client.ts";

/** Loads once per change of `deps`; an answer that arrives after `deps` changed is dropped. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): { data: T | null; error: string | null } {
  const [state, setState] = useState<{ data: T | null; error: string | null }>({ data: null, error: null });
  useEffect(() => {
    let current = true;
    setState({ data: null, error: null });
    load().then(
      (data) => current && setState({ data, error: null }),
      (failure) => current && setState({ data: null, error: errorMessage(failure) }),
    );
    return () => {
      current = false;
    };
  }, deps);
  return state;
}

export interface Action {
  busy: boolean;
  error: string | null;
  /** What the last success said ("Saved."). */
  status: string;
  /** Runs `work` unless one is running; true when it succeeded. */
  run: (work: () => Promise<unknown>, done?: string) => Promise<boolean>;
  /** Forgets the last error and status. */
  reset: () => void;
}

export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState("");
  const reset = useCallback(() => {
    setError(null);
    setStatus("");
  }, []);
  const run = async (work: () => Promise<unknown>, done = "") => {
    if (busy) return false;
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
      setBusy(false);
    }
  };
  return { busy, error, status, run, reset };
}
