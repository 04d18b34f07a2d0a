/**
 * Soundboard sounds (MANAGE_SERVER): upload with a preview to listen to, rename (name and
 * icon), delete, and the limits (docs/soundboard.md: 50 per server, 8 MB, MP3, OGG, WAV, WEBM,
 * FLAC or M4A, names of 1-40 characters, one emoji as the icon).
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { Sound } from "../../lib/wire-types.ts";
import { ConfirmDialog } from "../../components/confirm-dialog.tsx";
import { ErrorAlert } from "../../components/error-alert.tsx";
import { formatFileSize } from "../../lib/format.ts";
import { LIMITS } from "../../lib/shared-rules.ts";
import { rest } from "../../state/app-state.ts";
import type { SectionProps } from "./context.ts";
import { useAction, useLoad } from "../../components/use-async.ts";
import { UploadForm } from "./upload-form.tsx";

const AUDIO_TYPES = "audio/mpeg,audio/ogg,audio/wav,audio/x-wav,audio/webm,audio/flac,audio/mp4,audio/x-m4a,.mp3,.ogg,.wav,.webm,.flac,.m4a";
const SOUNDS_PER_SERVER = LIMITS.soundboard.soundsPerServer;

export function SoundboardSection({ server }: SectionProps) {
  const sounds = useLoad(() => rest.request("listSounds", { params: { id: server.id } }), [server.id]);
  const [deleting, setDeleting] = useState<Sound | null>(null);
  const list = sounds.data ?? [];
  const full = list.length >= SOUNDS_PER_SERVER;
  return (
    <div class="settings-stack">
      <p class="muted">
        <strong>
          {sounds.data ? list.length : "…"} of {SOUNDS_PER_SERVER}
        </strong>{" "}
        sounds. MP3, OGG, WAV, WEBM, FLAC or M4A, up to {formatFileSize(LIMITS.soundboardBytes)}; names of 1-{LIMITS.soundboardNameLength} characters.
        Members with Use Soundboard play them in voice channels.
      </p>
      {full ? <p class="notice">This server has {SOUNDS_PER_SERVER} sounds, the most it can have. Delete one to upload another.</p> : <SoundUpload serverId={server.id} onUploaded={sounds.reload} />}
      <ErrorAlert message={sounds.error} />
      {sounds.data === null && !sounds.error && <p class="muted" role="status">Loading sounds…</p>}
      {sounds.data?.length === 0 && <p class="empty">No sounds yet.</p>}
      {list.length > 0 && (
        <ul class="settings-list" aria-label="Sounds">
          {list.map((sound) => (
            <SoundRow key={sound.id} sound={sound} serverId={server.id} onSaved={(saved) => sounds.set((l) => l.map((s) => (s.id === saved.id ? saved : s)))} onDelete={() => setDeleting(sound)} />
          ))}
        </ul>
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete the sound ${deleting.name}?`}
          confirm="Delete sound"
          onClose={() => setDeleting(null)}
          onConfirm={async () => {
            await rest.request("deleteSound", { params: { id: server.id, soundId: deleting.id } });
            await sounds.reload();
          }}
        />
      )}
    </div>
  );
}

function SoundUpload({ serverId, onUploaded }: { serverId: string; onUploaded: () => Promise<void> }) {
  const [name, setName] = useState("");
  const [icon, setIcon] = useState("");
  return (
    <UploadForm
      id="sound-upload"
      title="Upload a sound"
      fileLabel="Audio file"
      accept={AUDIO_TYPES}
      limit={LIMITS.soundboardBytes}
      what="file"
      preview={(file, url) => (
        <div class="field">
          <span class="field-label">Preview</span>
          <audio controls src={url} aria-label={`Preview of ${file.name}`} />
        </div>
      )}
      hint="Leave the name empty to name the sound after its file, and the icon empty for 🎵."
      submit="Upload sound"
      upload={async (file) => {
        await rest.request("uploadSound", { params: { id: serverId }, body: { sound: file, ...(name.trim() && { name: name.trim() }), ...(icon.trim() && { icon: icon.trim() }) } });
        await onUploaded();
      }}
      onDone={() => {
        setName("");
        setIcon("");
      }}
    >
      <div class="field-row">
        <label class="field grow">
          <span>Sound name</span>
          <input value={name} maxLength={LIMITS.soundboardNameLength} placeholder="From the file name" aria-describedby="sound-upload-hint" onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label class="field">
          <span>Icon (one emoji)</span>
          <input class="icon-input" value={icon} placeholder="🎵" onInput={(e) => setIcon(e.currentTarget.value)} />
        </label>
      </div>
    </UploadForm>
  );
}

function SoundRow({ sound, serverId, onSaved, onDelete }: { sound: Sound; serverId: string; onSaved: (sound: Sound) => void; onDelete: () => void }) {
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(sound.name);
  const [icon, setIcon] = useState(sound.icon);
  const [playing, setPlaying] = useState(false);
  const audio = useRef<HTMLAudioElement | null>(null);
  const action = useAction();
  useEffect(() => () => audio.current?.pause(), []);
  const play = () => {
    if (playing) {
      audio.current?.pause();
      setPlaying(false);
      return;
    }
    const element = new Audio(sound.file_path);
    audio.current = element;
    element.onended = () => setPlaying(false);
    element.play().then(
      () => setPlaying(true),
      () => setPlaying(false),
    );
  };
  return (
    <li class="settings-row" aria-label={sound.name}>
      <span class="sound-icon" aria-hidden="true">
        {sound.icon}
      </span>
      <div class="row-main">
        {editing ? (
          <form
            class="inline-form"
            onSubmit={async (event) => {
              event.preventDefault();
              const changes: { name?: string; icon?: string } = {};
              if (name.trim() !== sound.name) changes.name = name.trim();
              if (icon.trim() !== sound.icon) changes.icon = icon.trim();
              if (Object.keys(changes).length === 0) return setEditing(false);
              const ok = await action.run(async () => onSaved(await rest.request("updateSound", { params: { id: serverId, soundId: sound.id }, body: changes })));
              if (ok) setEditing(false);
            }}
          >
            <input class="icon-input" aria-label={`Icon of ${sound.name}`} value={icon} onInput={(e) => setIcon(e.currentTarget.value)} />
            <input aria-label={`New name for ${sound.name}`} value={name} autoFocus required maxLength={LIMITS.soundboardNameLength} onInput={(e) => setName(e.currentTarget.value)} />
            <button type="submit" class="primary small" disabled={action.busy}>
              Save
            </button>
            <button
              type="button"
              class="secondary small"
              onClick={() => {
                setEditing(false);
                setName(sound.name);
                setIcon(sound.icon);
                action.reset();
              }}
            >
              Cancel
            </button>
          </form>
        ) : (
          <div class="row-title">
            <span class="row-name">{sound.name}</span>
          </div>
        )}
        <div class="row-detail muted small">
          {formatFileSize(sound.size)} · uploaded by {sound.uploaded_by_username ?? "a deleted account"}
        </div>
        <ErrorAlert message={action.error} />
      </div>
      {!editing && (
        <div class="row-actions">
          <button type="button" class="secondary small" aria-label={`${playing ? "Stop" : "Play"} ${sound.name}`} onClick={play}>
            {playing ? "Stop" : "Play"}
          </button>
          <button type="button" class="secondary small" aria-label={`Rename ${sound.name}`} onClick={() => setEditing(true)}>
            Rename
          </button>
          <button type="button" class="danger small" aria-label={`Delete ${sound.name}`} onClick={onDelete}>
            Delete
          </button>
        </div>
      )}
    </li>
  );
}
