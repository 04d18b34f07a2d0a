import type { ComponentChildren } from "preact";
import { ErrorAlert } from "../../components/error-alert.tsx";
import { formatFileSize } from "../../lib/format.ts";
import { useAction } from "../../components/use-async.ts";
import { useChosenFile } from "../../components/use-chosen-file.ts";

/**
 * A card that uploads one file: the file input, a preview of the chosen file, the caller's own
 * fields, the size limit checked before sending, and the server's refusal. After a success the
 * form empties (`onDone`, for the caller's fields).
 */
export function UploadForm({ id, title, fileLabel, accept, limit, what, preview, children, hint, submit, upload, onDone }: {
  id: string;
  title: string;
  fileLabel: string;
  accept: string;
  limit: number;
  /** "image", "file": said when the file is too large. */
  what: string;
  preview: (file: File, url: string) => ComponentChildren;
  children?: ComponentChildren;
  hint: string;
  submit: string;
  upload: (file: File) => Promise<unknown>;
  onDone: () => void;
}) {
  const chosen = useChosenFile(limit);
  const action = useAction();
  const { file } = chosen;
  return (
    <form
      class="form settings-card"
      aria-labelledby={id}
      onSubmit={async (event) => {
        event.preventDefault();
        if (!file) return;
        if (await action.run(() => upload(file))) {
          chosen.reset();
          onDone();
        }
      }}
    >
      <h2 id={id}>{title}</h2>
      <label class="field">
        <span>{fileLabel}</span>
        <input
          key={chosen.inputKey}
          type="file"
          accept={accept}
          required
          onChange={(e) => {
            chosen.choose(e.currentTarget.files?.[0] ?? null);
            action.reset();
          }}
        />
      </label>
      {file && chosen.preview && preview(file, chosen.preview)}
      {children}
      <p id={`${id}-hint`} class="hint">
        {file ? `${file.name}, ${formatFileSize(file.size)}. ` : ""}
        {hint}
      </p>
      {chosen.tooBig && (
        <p class="error">
          This {what} is larger than {formatFileSize(limit)}.
        </p>
      )}
      <ErrorAlert message={action.error} />
      <div class="actions">
        <button type="submit" class="primary" disabled={!file || chosen.tooBig || action.busy}>
          {action.busy ? "Uploading…" : submit}
        </button>
      </div>
    </form>
  );
}
