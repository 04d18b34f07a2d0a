/**
 * Custom emojis (MANAGE_SERVER): upload with a preview, rename, delete, and the server's limits
 * (docs/emojis.md: 50 per server, 256 KB, PNG/JPEG/GIF/WEBP, names of 1-32 letters, digits, _ or -).
 * No event tells of emoji changes, so the list (and the app's emoji picker) is asked again.
 */
import { useState } from "preact/hooks";
import type { ServerEmoji } from "../../lib/wire-types.ts";
import { ConfirmDialog } from "../../components/confirm-dialog.tsx";
import { ErrorAlert } from "../../components/error-alert.tsx";
import { formatFileSize } from "../../lib/format.ts";
import { LIMITS } from "../../lib/shared-rules.ts";
import { rest } from "../../state/app-state.ts";
import type { SectionProps } from "./context.ts";
import { useAction, useLoad } from "../../components/use-async.ts";
import { UploadForm } from "./upload-form.tsx";

const NAME_PATTERN = "[A-Za-z0-9_\\-]{1,32}";

export function EmojisSection({ server, state }: SectionProps) {
  const emojis = useLoad(async () => (await rest.request("listServerEmojis", { params: { id: server.id } })).emojis, [server.id]);
  const [deleting, setDeleting] = useState<ServerEmoji | null>(null);
  const list = emojis.data ?? [];
  const full = list.length >= LIMITS.emojisPerServer;
  const changed = async () => {
    await emojis.reload();
    void state.reloadEmojis();
  };
  return (
    <div class="settings-stack">
      <p class="muted">
        <strong>
          {emojis.data ? list.length : "…"} of {LIMITS.emojisPerServer}
        </strong>{" "}
        emojis. PNG, JPEG, GIF or WEBP, up to {formatFileSize(LIMITS.emojiBytes)}; names of 1-{LIMITS.emojiNameLength} letters, digits, _ or -.
        Members use them as <code>:name:</code>.
      </p>
      {full ? <p class="notice">This server has {LIMITS.emojisPerServer} emojis, the most it can have. Delete one to upload another.</p> : <EmojiUpload serverId={server.id} onUploaded={changed} />}
      <ErrorAlert message={emojis.error} />
      {emojis.data === null && !emojis.error && <p class="muted" role="status">Loading emojis…</p>}
      {emojis.data?.length === 0 && <p class="empty">No custom emojis yet.</p>}
      {list.length > 0 && (
        <ul class="settings-list" aria-label="Emojis">
          {list.map((emoji) => (
            <EmojiRow key={emoji.id} emoji={emoji} serverId={server.id} onRenamed={changed} onDelete={() => setDeleting(emoji)} />
          ))}
        </ul>
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete :${deleting.name}:?`}
          confirm="Delete emoji"
          onClose={() => setDeleting(null)}
          onConfirm={async () => {
            await rest.request("deleteEmoji", { params: { id: server.id, emojiId: deleting.id } });
            await changed();
          }}
        >
          <p>Messages that used it keep their text; it can no longer be used.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}

function EmojiUpload({ serverId, onUploaded }: { serverId: string; onUploaded: () => Promise<void> }) {
  const [name, setName] = useState("");
  return (
    <UploadForm
      id="emoji-upload"
      title="Upload an emoji"
      fileLabel="Image"
      accept="image/png,image/jpeg,image/gif,image/webp"
      limit={LIMITS.emojiBytes}
      what="image"
      preview={(file, url) => (
        <div class="emoji-preview">
          <img src={url} alt={`Preview of ${file.name}`} />
        </div>
      )}
      hint="Leave the name empty to name the emoji after its file."
      submit="Upload emoji"
      upload={async (file) => {
        await rest.request("uploadEmoji", { params: { id: serverId }, body: name.trim() ? { emoji: file, name: name.trim() } : { emoji: file } });
        await onUploaded();
      }}
      onDone={() => setName("")}
    >
      <label class="field">
        <span>Emoji name</span>
        <input
          value={name}
          pattern={NAME_PATTERN}
          maxLength={LIMITS.emojiNameLength}
          placeholder="From the file name"
          aria-describedby="emoji-upload-hint"
          onInput={(e) => setName(e.currentTarget.value)}
        />
      </label>
    </UploadForm>
  );
}

function EmojiRow({ emoji, serverId, onRenamed, onDelete }: { emoji: ServerEmoji; serverId: string; onRenamed: () => Promise<void>; onDelete: () => void }) {
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(emoji.name);
  const action = useAction();
  return (
    <li class="settings-row" aria-label={`:${emoji.name}:`}>
      <img class="emoji-image" src={emoji.file_path} alt="" width={32} height={32} />
      <div class="row-main">
        {editing ? (
          <form
            class="inline-form"
            onSubmit={async (event) => {
              event.preventDefault();
              const ok = await action.run(async () => {
                await rest.request("renameEmoji", { params: { id: serverId, emojiId: emoji.id }, body: { name: name.trim() } });
                await onRenamed();
              });
              if (ok) setEditing(false);
            }}
          >
            <input aria-label={`New name for :${emoji.name}:`} value={name} autoFocus required pattern={NAME_PATTERN} maxLength={LIMITS.emojiNameLength} onInput={(e) => setName(e.currentTarget.value)} />
            <button type="submit" class="primary small" disabled={action.busy}>
              Save
            </button>
            <button
              type="button"
              class="secondary small"
              onClick={() => {
                setEditing(false);
                setName(emoji.name);
                action.reset();
              }}
            >
              Cancel
            </button>
          </form>
        ) : (
          <div class="row-title">
            <span class="row-name">:{emoji.name}:</span>
          </div>
        )}
        <div class="row-detail muted small">
          {formatFileSize(emoji.size)} · uploaded by {emoji.uploaded_by_username ?? "a deleted account"}
        </div>
        <ErrorAlert message={action.error} />
      </div>
      {!editing && (
        <div class="row-actions">
          <button type="button" class="secondary small" aria-label={`Rename :${emoji.name}:`} onClick={() => setEditing(true)}>
            Rename
          </button>
          <button type="button" class="danger small" aria-label={`Delete :${emoji.name}:`} onClick={onDelete}>
            Delete
          </button>
        </div>
      )}
    </li>
  );
}
