/** Overview: the server's name, description, icon, banner and the banner's offset (MANAGE_SERVER); for the owner, deleting it. */
import { useEffect, useState } from "preact/hooks";
import { Avatar } from "../../components/avatar.tsx";
import { ErrorAlert } from "../../components/error-alert.tsx";
import { DeleteServerDialog } from "../../components/server-exit-dialogs.tsx";
import { LIMITS } from "../../lib/shared-rules.ts";
import { rest } from "../../state/app-state.ts";
import { replaceServer, type SectionProps } from "./context.ts";
import { useAction } from "../../components/use-async.ts";
import { ImageFileField } from "../../components/image-file-field.tsx";
import { useChosenFile } from "../../components/use-chosen-file.ts";


/** The icon and the banner are two operations of the reference, each with its own field. */
function uploadServerImage(serverId: string, kind: "icon" | "banner", file: File) {
  return kind === "icon"
    ? rest.request("setServerIcon", { params: { id: serverId }, body: { icon: file } })
    : rest.request("setServerBanner", { params: { id: serverId }, body: { banner: file } });
}

export function OverviewSection({ server, meId }: SectionProps) {
  return (
    <div class="settings-stack">
      <NameForm key={server.id} server={server} />
      <ImageForm server={server} kind="icon" />
      <ImageForm server={server} kind="banner" />
      {server.owner_id === meId && <DeleteServerCard server={server} />}
    </div>
  );
}

/** The owner's "Delete server" (a confirmation that asks for the name, and the two-factor code when on). */
function DeleteServerCard({ server }: { server: SectionProps["server"] }) {
  const [open, setOpen] = useState(false);
  return (
    <section class="settings-card danger-zone" aria-labelledby="overview-delete">
      <h2 id="overview-delete">Delete server</h2>
      <p class="muted">Everything of {server.name} goes for everyone: channels, messages, roles and members.</p>
      <div class="actions">
        <button type="button" class="danger" onClick={() => setOpen(true)}>
          Delete server
        </button>
      </div>
      {open && <DeleteServerDialog server={server} onClose={() => setOpen(false)} />}
    </section>
  );
}

function NameForm({ server }: { server: SectionProps["server"] }) {
  const [name, setName] = useState(server.name);
  const [description, setDescription] = useState(server.description);
  const [saved, setSaved] = useState(false);
  const action = useAction();
  const changed = name.trim() !== server.name || description !== server.description;
  return (
    <form
      class="form settings-card"
      aria-labelledby="overview-profile"
      onSubmit={async (event) => {
        event.preventDefault();
        setSaved(false);
        const changes: { name?: string; description?: string } = {};
        if (name.trim() !== server.name) changes.name = name.trim();
        if (description !== server.description) changes.description = description;
        if (await action.run(async () => replaceServer(await rest.request("updateServer", { params: { id: server.id }, body: changes })))) setSaved(true);
      }}
    >
      <h2 id="overview-profile">Server profile</h2>
      <label class="field">
        <span>Server name</span>
        <input value={name} required maxLength={LIMITS.server.nameLength} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <label class="field">
        <span>Description</span>
        <textarea rows={3} maxLength={LIMITS.server.descriptionLength} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
      </label>
      <ErrorAlert message={action.error} />
      <div class="actions">
        <span class="muted small" role="status">
          {saved && !changed ? "Saved." : ""}
        </span>
        <button type="submit" class="primary" disabled={!changed || action.busy}>
          Save changes
        </button>
      </div>
    </form>
  );
}

/** The icon or the banner: the current image, a preview of the chosen file, and for the banner its offset. */
function ImageForm({ server, kind }: { server: SectionProps["server"]; kind: "icon" | "banner" }) {
  const limit = kind === "icon" ? LIMITS.serverIconBytes : LIMITS.serverBannerBytes;
  const chosen = useChosenFile(limit);
  const { file, preview, tooBig } = chosen;
  const [offset, setOffset] = useState(server.banner_offset);
  useEffect(() => setOffset(server.banner_offset), [server.banner_offset]);
  const upload = useAction();
  const saveOffset = useAction();
  const label = kind === "icon" ? "Server icon" : "Server banner";
  const current = kind === "icon" ? server.icon : server.banner;
  const shown = preview ?? current;
  return (
    <section class="settings-card form" aria-labelledby={`overview-${kind}`}>
      <h2 id={`overview-${kind}`}>{label}</h2>
      {kind === "icon" ? (
        <div class="image-row">
          <Avatar name={server.name} src={shown} size={88} />
          <p class="muted small">{preview ? "Preview of the chosen image (not uploaded yet)." : current ? "The current icon." : "No icon yet: the server's initials are shown."}</p>
        </div>
      ) : (
        <div class="banner-preview" role="img" aria-label={shown ? (preview ? "Preview of the chosen banner" : "The current banner") : "No banner yet"}>
          {shown ? <img src={shown} alt="" style={{ objectPosition: `center ${offset}%` }} /> : <span class="muted">No banner yet</span>}
        </div>
      )}
      <ImageFileField what={kind === "icon" ? "an icon" : "a banner"} limit={limit} chosen={chosen} onChosen={upload.reset} />
      <ErrorAlert message={upload.error} />
      <div class="actions">
        <button
          type="button"
          class="primary"
          disabled={!file || tooBig || upload.busy}
          onClick={async () => {
            const ok = await upload.run(async () => replaceServer(await uploadServerImage(server.id, kind, file!)));
            if (ok) chosen.reset();
          }}
        >
          {upload.busy ? "Uploading…" : `Upload ${kind}`}
        </button>
      </div>
      {kind === "banner" && (
        <>
          <label class="field">
            <span>Banner position</span>
            <input
              type="range"
              min={LIMITS.bannerOffsetMin}
              max={LIMITS.bannerOffsetMax}
              value={offset}
              aria-valuetext={`${offset}% from the top`}
              onInput={(e) => setOffset(Number(e.currentTarget.value))}
            />
          </label>
          <p class="hint">The part of the image {offset}% from its top is shown.</p>
          <ErrorAlert message={saveOffset.error} />
          <div class="actions">
            <button
              type="button"
              class="secondary"
              disabled={offset === server.banner_offset || saveOffset.busy}
              onClick={() => saveOffset.run(async () => replaceServer(await rest.request("setServerBannerOffset", { params: { id: server.id }, body: { banner_offset: offset } })))}
            >
              Save position
            </button>
          </div>
        </>
      )}
    </section>
  );
}
