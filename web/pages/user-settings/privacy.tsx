/**
 * Privacy: who may reach the reader (the server's rules, docs/dms.md and docs/friends.md, which
 * have no setting of their own on Hearth), and the muted users (`/users/me/muted-users`): listed
 * with "Unmute", and "Mute" by username (the exact-name search of docs/friends.md). A muted user's
 * messages are still delivered and shown, but never notify, and they are not told.
 */
import { useState } from "preact/hooks";
import { Avatar } from "../../components/avatar.tsx";
import { ErrorAlert } from "../../components/error-alert.tsx";
import { useAction, useLoad } from "../../components/use-async.ts";
import type { MutedUser } from "../../lib/wire-types.ts";
import { rest, store } from "../../state/app-state.ts";

export function PrivacySection() {
  return (
    <div class="settings-stack">
      <section class="settings-card" aria-labelledby="privacy-who">
        <h2 id="privacy-who">Who can reach you</h2>
        <dl class="privacy-rules">
          <dt>Direct messages</dt>
          <dd>People who share a server with you and your friends may message you; nobody else can. Bots only through a server you share.</dd>
          <dt>Friend requests</dt>
          <dd>Anyone who knows your exact username may send you one; you accept or ignore it. Bots cannot.</dd>
          <dt>Your status</dt>
          <dd>Shown to your friends and to people who share a server with you; everyone else sees you offline. Invisible hides it from all.</dd>
        </dl>
        <p class="muted small">
          These are this Hearth server's rules: it has no setting to narrow them yet. To stop someone's messages from notifying you, mute
          them below.
        </p>
      </section>
      <MutedUsers />
    </div>
  );
}

function MutedUsers() {
  const muted = useLoad(() => rest.request("listMutedUsers"), []);
  const [name, setName] = useState("");
  const [notice, setNotice] = useState("");
  const mute = useAction();
  const unmute = useAction();
  const show = (list: MutedUser[]) => {
    muted.set(() => list);
    store.notifications.mutedUsers.value = new Set(list.map((m) => m.user_id));
  };
  return (
    <section class="settings-card form" aria-labelledby="privacy-muted">
      <h2 id="privacy-muted">Muted users</h2>
      <p class="muted">Their messages are still delivered and shown, but never notify you. They are not told.</p>
      <form
        class="inline-form"
        onSubmit={async (event) => {
          event.preventDefault();
          const wanted = name.trim();
          let mutedName = wanted;
          const ok = await mute.run(async () => {
            const [found] = await rest.request("searchUsers", { query: { q: wanted } });
            if (!found) throw new Error(`Nobody is called ${wanted}.`);
            const entry = await rest.request("muteUser", { params: { targetId: found.id } });
            mutedName = entry.username;
            const list = muted.data ?? [];
            show(list.some((m) => m.user_id === entry.user_id) ? list : [...list, entry]);
          });
          if (ok) {
            unmute.reset();
            setName("");
            setNotice(`${mutedName} is muted.`);
          }
        }}
      >
        <label class="field">
          <span>Mute someone by username</span>
          <input name="mute-username" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <button type="submit" class="secondary" disabled={mute.busy || !name.trim()}>
          Mute
        </button>
      </form>
      <ErrorAlert message={mute.error ?? unmute.error ?? muted.error} />
      <p class="muted small" role="status">
        {mute.busy || unmute.busy ? "" : unmute.status || notice}
      </p>
      {muted.data === null ? (
        !muted.error && <p class="muted">Loading…</p>
      ) : muted.data.length === 0 ? (
        <p class="empty">You have muted nobody.</p>
      ) : (
        <ul class="settings-list" aria-label="Muted users">
          {muted.data.map((entry) => (
            <li key={entry.user_id} class="settings-row">
              <Avatar name={entry.username} src={entry.avatar} size={32} />
              <span class="muted-name">
                <strong>{entry.username}</strong>
                {entry.is_bot ? <span class="badge">BOT</span> : null}
                <span class="muted small"> muted {new Date(entry.created_at * 1000).toLocaleDateString()}</span>
              </span>
              <button
                type="button"
                class="secondary small"
                aria-label={`Unmute ${entry.username}`}
                disabled={unmute.busy}
                onClick={() => {
                  setNotice("");
                  void unmute.run(async () => {
                    await rest.request("unmuteUser", { params: { targetId: entry.user_id } });
                    show((muted.data ?? []).filter((m) => m.user_id !== entry.user_id));
                  }, `${entry.username} is no longer muted.`);
                }}
              >
                Unmute
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
