/**
 * An application's avatar or banner: the picture as it is (or the file being sent, shown at
 * once), a button to choose a new one, which is uploaded right away, and the server's refusal.
 */
import { useState } from "preact/hooks";
import type { Application } from "../../lib/wire-types.ts";
import { rest } from "../../state/app-state.ts";
import { Avatar } from "../../components/avatar.tsx";
import { ErrorAlert } from "../../components/error-alert.tsx";
import { useAction } from "../../components/use-async.ts";
import { useObjectUrl } from "../../components/use-chosen-file.ts";
import { formatFileSize } from "../../lib/format.ts";
import { LIMITS } from "../../lib/shared-rules.ts";

const TYPES = "image/png,image/jpeg,image/gif,image/webp";

/** The avatar and the banner are two operations of the reference, each with its own field. */
function uploadApplicationImage(appId: string, kind: "avatar" | "banner", file: File): Promise<Application> {
  return kind === "avatar"
    ? rest.request("setApplicationAvatar", { params: { appId }, body: { avatar: file } })
    : rest.request("setApplicationBanner", { params: { appId }, body: { banner: file } });
}

export function ImagePicker({ app, kind, onChange }: { app: Application; kind: "avatar" | "banner"; onChange: (app: Application) => void }) {
  const [sending, setSending] = useState<File | null>(null);
  const preview = useObjectUrl(sending);
  const upload = useAction();
  const busy = upload.busy;
  const current = (sending ? preview : null) ?? app[kind];
  const label = kind === "avatar" ? "Avatar" : "Banner";

  async function choose(input: HTMLInputElement) {
    const file = input.files?.[0];
    input.value = "";
    if (!file) return;
    setSending(file);
    await upload.run(async () => onChange(await uploadApplicationImage(app.id, kind, file)));
    setSending(null);
  }

  return (
    <div class={`image-picker image-picker-${kind}`}>
      <span class="image-picker-title">{label}</span>
      {kind === "avatar" ? (
        <Avatar name={app.name} src={current} size={96} />
      ) : current ? (
        <img class="banner-preview" src={current} alt="" style={{ objectPosition: `50% ${app.banner_offset}%` }} />
      ) : (
        <div class="banner-preview empty-banner">No banner</div>
      )}
      <label class={`button file-button${busy ? " busy" : ""}`}>
        {busy ? "Uploading…" : `Upload ${kind}`}
        <input type="file" class="visually-hidden" accept={TYPES} disabled={busy} aria-describedby={`${kind}-hint`} onChange={(e) => choose(e.currentTarget)} />
      </label>
      <small id={`${kind}-hint`} class="muted">
        PNG, JPEG, GIF or WEBP, at most {formatFileSize(kind === "avatar" ? LIMITS.userAvatarBytes : LIMITS.userBannerBytes)}.{kind === "avatar" ? " Also the bot's avatar." : ""}
      </small>
      <ErrorAlert message={upload.error} />
    </div>
  );
}
