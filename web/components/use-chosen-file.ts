/** A file chosen in a file input, shown before (or while) it is uploaded. */
import { useEffect, useMemo, useState } from "preact/hooks";

/**
 * A preview URL for a chosen file, revoked when the file changes or the component goes. It is
 * made during the render, so the first paint already shows the preview (an effect would paint
 * the file's icon first, and a slow machine would show it for a while).
 */
export function useObjectUrl(file: File | null): string | null {
  const url = useMemo(() => (file ? URL.createObjectURL(file) : null), [file]);
  useEffect(() => (url ? () => URL.revokeObjectURL(url) : undefined), [url]);
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
    preview,
    tooBig: file !== null && file.size > limit,
    inputKey,
    choose: setFile,
    reset: () => {
      setFile(null);
      setInputKey((k) => k + 1);
    },
  };
}
