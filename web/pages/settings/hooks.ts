/** Small hooks the settings sections share: a list loaded from the API, and an action with its error. */
import { useCallback, useEffect, useState } from "preact/hooks";
import { errorMessage } from "../../api/client.ts";

export interface Loaded<T> {
  data: T | null;
  error: string | null;
  reload: () => Promise<void>;
  /** Replaces the data in place (after a change the server answered). */
  set: (update: (current: T) => T) => void;
}

/** Loads `load()` when the keys change; `reload` asks again. */
export function useLoaded<T>(load: () => Promise<T>, keys: unknown[]): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const reload = useCallback(async () => {
    try {
      const value = await load();
      setData(value);
      setError(null);
    } catch (failure) {
      setError(errorMessage(failure));
    }
  }, keys);
  useEffect(() => {
    setData(null);
    setError(null);
    void reload();
  }, keys);
  const set = useCallback((update: (current: T) => T) => setData((current) => (current === null ? current : update(current))), []);
  return { data, error, reload, set };
}

export interface Action {
  busy: boolean;
  error: string | null;
  /** Runs `work`; a refusal becomes `error` (shown by the caller's ErrorAlert). Resolves true on success. */
  run: (work: () => Promise<unknown>) => Promise<boolean>;
  clear: () => void;
}

export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(async (work: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
      return true;
    } catch (failure) {
      setError(errorMessage(failure));
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, clear: useCallback(() => setError(null), []) };
}

/** A preview URL for a chosen file, revoked when the file changes or the component goes. */
export function useObjectUrl(file: File | null): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!file) {
      setUrl(null);
      return;
    }
    const next = URL.createObjectURL(file);
    setUrl(next);
    return () => URL.revokeObjectURL(next);
  }, [file]);
  return url;
}

export interface ChosenFile {
  file: File | null;
  /** A URL to show the chosen file before it is uploaded. */
  preview: string | null;
  tooBig: boolean;
  /** Changes when the file input must be emptied (give it as the input's `key`). */
  inputKey: number;
  choose: (file: File | null) => void;
  reset: () => void;
}

/** The file chosen in a file input, its preview and whether it is over `limit` bytes. */
export function useChosenFile(limit: number): ChosenFile {
  const [file, setFile] = useState<File | null>(null);
  const [inputKey, setInputKey] = useState(0);
  const preview = useObjectUrl(file);
  return {
    file,
    preview: file ? preview : null,
    tooBig: file !== null && file.size > limit,
    inputKey,
    choose: setFile,
    reset: () => {
      setFile(null);
      setInputKey((k) => k + 1);
    },
  };
}
