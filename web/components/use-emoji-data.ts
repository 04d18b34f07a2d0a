import { useEffect, useState } from "preact/hooks";
import { loadEmojiData, loadedEmojiData, type EmojiData } from "../lib/emoji-data.ts";

/**
 * The Unicode emoji, loaded (its own chunk) once `wanted` is first true: the picker wants it when
 * it opens, the composer when `:` and two letters are typed. `failed` when the chunk could not
 * be fetched; wanting it again tries again.
 */
export function useEmojiData(wanted: boolean): { data: EmojiData | null; failed: boolean } {
  const [data, setData] = useState(loadedEmojiData);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    if (!wanted || data) return;
    let live = true;
    setFailed(false);
    loadEmojiData().then(
      (loaded) => live && setData(loaded),
      () => live && setFailed(true),
    );
    return () => {
      live = false;
    };
  }, [wanted, data]);
  return { data, failed };
}
