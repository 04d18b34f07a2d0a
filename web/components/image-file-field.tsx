/**
 * The file field of an image upload (avatar, banner, server icon): "Choose <what>", the types and
 * size the server takes, the chosen file, and a too-large warning before anything is sent.
 */
import { formatFileSize } from "../lib/format.ts";
import type { useChosenFile } from "./use-chosen-file.ts";

/** What the server accepts as an image (checked there by magic bytes). */
const IMAGE_TYPES = "image/png,image/jpeg,image/webp,image/gif";

export function ImageFileField({ what, limit, chosen, onChosen }: {
  /** "an avatar", "a banner", "an icon". */
  what: string;
  limit: number;
  chosen: ReturnType<typeof useChosenFile>;
  /** A file was chosen (the form clears its last answer). */
  onChosen: () => void;
}) {
  const { file, tooBig } = chosen;
  return (
    <>
      <label class="field">
        <span>Choose {what}</span>
        <input
          key={chosen.inputKey}
          type="file"
          accept={IMAGE_TYPES}
          onChange={(e) => {
            chosen.choose(e.currentTarget.files?.[0] ?? null);
            onChosen();
          }}
        />
      </label>
      <p class="hint">
        PNG, JPEG, WEBP or GIF (animations play), up to {formatFileSize(limit)}.{file ? ` Chosen: ${file.name} (${formatFileSize(file.size)}).` : ""}
      </p>
      {tooBig && <p class="error">This file is larger than {formatFileSize(limit)}.</p>}
    </>
  );
}
