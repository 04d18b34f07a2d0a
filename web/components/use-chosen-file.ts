/** A file chosen in a file input, shown before (or while) it is uploaded. */
import { useEffect, useState } from "preact/hooks";

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

interface ChosenFile {
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
