/**
 * Profile: avatar and banner (the chosen file previewed before it is uploaded, "Remove"), the
 * banner's position, the bio (the spec's 500 characters, counted as the server counts them: UTF-16
 * code units) and a preview card that shows the profile as others will see it, unsaved changes
 * included, and the custom status with "Edit". Each change is its own request (docs/users.md); the answer replaces the reader's user.
 */
import { useEffect, useState } from "preact/hooks";
import { Avatar } from "../../components/avatar.tsx";
import { ErrorAlert } from "../../components/error-alert.tsx";
import { useAction } from "../../components/use-async.ts";
import { ImageFileField } from "../../components/image-file-field.tsx";
import { useChosenFile } from "../../components/use-chosen-file.ts";
import { LIMITS } from "../../lib/shared-rules.ts";
import type { CustomStatus, MeUser } from "../../lib/wire-types.ts";
import { CustomStatusDialog, CustomStatusLine, useUnexpired } from "../../components/custom-status.tsx";
import { rest, session, updateUser } from "../../state/app-state.ts";


type Kind = "avatar" | "banner";

function upload(kind: Kind, file: File): Promise<MeUser> {
  return kind === "avatar" ? rest.request("setMyAvatar", { body: { avatar: file } }) : rest.request("setMyBanner", { body: { banner: file } });
}

function remove(kind: Kind): Promise<MeUser> {
  return kind === "avatar" ? rest.request("removeMyAvatar") : rest.request("removeMyBanner");
}

export function ProfileSection() {
  const user = session.value?.user;
  const avatar = useChosenFile(LIMITS.userAvatarBytes);
  const banner = useChosenFile(LIMITS.userBannerBytes);
  const [bio, setBio] = useState(user?.bio ?? "");
  const [offset, setOffset] = useState(user?.banner_offset ?? 0);
  useEffect(() => setOffset(user?.banner_offset ?? 0), [user?.banner_offset]);
  if (!user) return null;
  return (
    <div class="profile-layout">
      <div class="settings-stack">
        <ImageCard kind="avatar" current={user.avatar} chosen={avatar} />
        <ImageCard kind="banner" current={user.banner} chosen={banner} offset={offset} onOffset={setOffset} savedOffset={user.banner_offset} />
        <BioForm saved={user.bio} bio={bio} onBio={setBio} />
        <CustomStatusCard status={user.custom_status} />
      </div>
      <ProfileCard user={user} avatar={avatar.preview ?? user.avatar} banner={banner.preview ?? user.banner} offset={offset} bio={bio} />
    </div>
  );
}

/** The custom status (the same dialog as "Set status" → "Set custom status" edits it). */
function CustomStatusCard({ status }: { status: CustomStatus | null }) {
  const [editing, setEditing] = useState(false);
  const shown = useUnexpired(status);
  return (
    <section class="settings-card" aria-labelledby="profile-custom-status">
      <h2 id="profile-custom-status">Custom status</h2>
      {shown ? (
        <p>
          <CustomStatusLine status={shown} />
          {shown.expires_at && (
            <span class="muted small"> · clears {new Date(shown.expires_at).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })}</span>
          )}
        </p>
      ) : (
        <p class="muted">No custom status. Others see it under your name while you are online, idle or in Do Not Disturb.</p>
      )}
      <div class="actions">
        <button type="button" class="secondary" onClick={() => setEditing(true)}>
          Edit
        </button>
      </div>
      {editing && <CustomStatusDialog onClose={() => setEditing(false)} />}
    </section>
  );
}

/** How others see the profile, with what is chosen or typed and not saved yet. */
function ProfileCard({ user, avatar, banner, offset, bio }: { user: MeUser; avatar: string | null; banner: string | null; offset: number; bio: string }) {
  return (
    <aside class="profile-preview" aria-labelledby="profile-preview-title">
      <h2 id="profile-preview-title" class="profile-preview-title">
        Preview
      </h2>
      <div class="profile-card" role="group" aria-label={`${user.username}'s profile as others see it`}>
        <div class="profile-card-banner">{banner && <img src={banner} alt="" style={{ objectPosition: `center ${offset}%` }} />}</div>
        <div class="profile-card-avatar">
          <Avatar name={user.username} src={avatar} size={72} />
        </div>
        <div class="profile-card-body">
          <strong class="profile-card-name">{user.username}</strong>
          {bio ? (
            <>
              <h3 class="profile-card-label">About me</h3>
              <p class="profile-card-bio">{bio}</p>
            </>
          ) : (
            <p class="muted small">No bio yet.</p>
          )}
          <p class="muted small">Member since {new Date(user.created_at * 1000).toLocaleDateString(undefined, { year: "numeric", month: "long", day: "numeric" })}</p>
        </div>
      </div>
    </aside>
  );
}

function ImageCard({ kind, current, chosen, offset = 0, onOffset, savedOffset = 0 }: {
  kind: Kind;
  current: string | null;
  chosen: ReturnType<typeof useChosenFile>;
  offset?: number;
  onOffset?: (offset: number) => void;
  savedOffset?: number;
}) {
  const limit = kind === "avatar" ? LIMITS.userAvatarBytes : LIMITS.userBannerBytes;
  const { file, preview, tooBig } = chosen;
  const action = useAction();
  const position = useAction();
  const label = kind === "avatar" ? "Avatar" : "Banner";
  const shown = preview ?? current;
  const user = session.value!.user;
  return (
    <section class="settings-card form" aria-labelledby={`profile-${kind}`}>
      <h2 id={`profile-${kind}`}>{label}</h2>
      {kind === "avatar" ? (
        <div class="image-row">
          <Avatar name={user.username} src={shown} size={88} />
          <p class="muted small">{preview ? "Preview of the chosen image (not uploaded yet)." : current ? "Your current avatar." : "No avatar yet: your initials are shown."}</p>
        </div>
      ) : (
        <div class="banner-preview" role="img" aria-label={shown ? (preview ? "Preview of the chosen banner" : "Your current banner") : "No banner yet"}>
          {shown ? <img src={shown} alt="" style={{ objectPosition: `center ${offset}%` }} /> : <span class="muted">No banner yet</span>}
        </div>
      )}
      <ImageFileField what={kind === "avatar" ? "an avatar" : "a banner"} limit={limit} chosen={chosen} onChosen={action.reset} />
      <ErrorAlert message={action.error} />
      <div class="actions">
        <span class="muted small" role="status">
          {action.status}
        </span>
        {file && (
          <button type="button" class="secondary" disabled={action.busy} onClick={() => chosen.reset()}>
            Cancel
          </button>
        )}
        {!file && current && (
          <button type="button" class="secondary" disabled={action.busy} onClick={() => action.run(async () => updateUser(await remove(kind)), `${label} removed.`)}>
            Remove {kind}
          </button>
        )}
        <button
          type="button"
          class="primary"
          disabled={!file || tooBig || action.busy}
          onClick={async () => {
            const ok = await action.run(async () => updateUser(await upload(kind, file!)), `${label} saved.`);
            if (ok) chosen.reset();
          }}
        >
          {action.busy && file ? "Uploading…" : `Upload ${kind}`}
        </button>
      </div>
      {kind === "banner" && onOffset && (shown || savedOffset !== offset) && (
        <>
          <label class="field">
            <span>Banner position</span>
            <input
              type="range"
              min={LIMITS.bannerOffsetMin}
              max={LIMITS.bannerOffsetMax}
              value={offset}
              aria-valuetext={`${offset}% from the top`}
              onInput={(e) => onOffset(Number(e.currentTarget.value))}
            />
          </label>
          <p class="hint">The part of the image {offset}% from its top is shown.</p>
          <ErrorAlert message={position.error} />
          <div class="actions">
            <button
              type="button"
              class="secondary"
              disabled={offset === savedOffset || position.busy}
              onClick={() => position.run(async () => updateUser(await rest.request("updateMyProfile", { body: { banner_offset: offset } })))}
            >
              Save position
            </button>
          </div>
        </>
      )}
    </section>
  );
}

function BioForm({ saved, bio, onBio }: { saved: string; bio: string; onBio: (bio: string) => void }) {
  const action = useAction();
  const max = LIMITS.bioLength;
  const over = bio.length > max;
  return (
    <form
      class="form settings-card"
      aria-labelledby="profile-bio"
      onSubmit={async (event) => {
        event.preventDefault();
        await action.run(async () => updateUser(await rest.request("updateMyProfile", { body: { bio } })), "Bio saved.");
      }}
    >
      <h2 id="profile-bio">About me</h2>
      <label class="field">
        <span>Bio</span>
        <textarea
          name="bio"
          rows={4}
          value={bio}
          aria-describedby="profile-bio-count"
          aria-invalid={over || undefined}
          onInput={(e) => {
            onBio(e.currentTarget.value);
            action.reset();
          }}
        />
      </label>
      <p id="profile-bio-count" class={over ? "hint error" : "hint"}>
        {bio.length} of {max} characters{over ? `: ${bio.length - max} too many` : ""}
      </p>
      <ErrorAlert message={action.error} />
      <div class="actions">
        <span class="muted small" role="status">
          {action.status}
        </span>
        <button type="button" class="secondary" disabled={bio === saved || action.busy} onClick={() => onBio(saved)}>
          Undo changes
        </button>
        <button type="submit" class="primary" disabled={bio === saved || over || action.busy}>
          Save bio
        </button>
      </div>
    </form>
  );
}
