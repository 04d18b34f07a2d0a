/**
 * Privacy: who may reach the reader (`/users/me/privacy`, docs/users.md#privacy): who may send
 * direct messages and who may send friend requests, each saved as soon as it is picked, the
 * server's refusal shown beside it; and the muted users (`/users/me/muted-users`): listed with
 * "Unmute", and "Mute" by username (the exact-name search of docs/friends.md). A muted user's
 * messages are still delivered and shown, but never notify, and they are not told.
 */
import { useState } from "preact/hooks";
import { Avatar } from "../../components/avatar.tsx";
import { ErrorAlert } from "../../components/error-alert.tsx";
import { useAction, useLoad } from "../../components/use-async.ts";
import type { MutedUser, PrivacySettings } from "../../lib/wire-types.ts";
import { rest, store } from "../../state/app-state.ts";

interface Choice<T extends string> {
  value: T;
  label: string;
  about: string;
}

const DMS_FROM: Choice<PrivacySettings["dms_from"]>[] = [
  {
    value: "server_members",
    label: "Friends and server members",
    about: "Your friends and anyone who shares a server with you, bots of those servers included.",
  },
  {
    value: "friends",
    label: "Friends only",
    about: "Only your friends. Others, and bots, cannot message you or add you to a group, even in a conversation you already had.",
  },
];

const FRIEND_REQUESTS_FROM: Choice<PrivacySettings["friend_requests_from"]>[] = [
  { value: "everyone", label: "Everyone", about: "Anyone who knows your exact username." },
  { value: "mutual", label: "Friends of friends and server members", about: "People who share a server or a friend with you." },
  { value: "nobody", label: "Nobody", about: "No one can send you a request. You can still send your own, and accept requests already sent." },
];

export function PrivacySection() {
  const settings = useLoad(() => rest.request("getPrivacySettings"), []);
  const save = useAction();
  // The choice shows at once while it is saved; a refusal puts back what the server holds.
  const [picked, setPicked] = useState<Partial<PrivacySettings>>({});
  const change = (fields: Partial<PrivacySettings>) => {
    setPicked((p) => ({ ...p, ...fields }));
    void save
      .run(async () => {
        const saved = await rest.request("updatePrivacySettings", { body: fields });
        settings.set(() => saved);
      }, "Saved.")
      .finally(() => setPicked({}));
  };
  return (
    <div class="settings-stack">
      {!settings.data && !settings.error && (
        <p class="muted" role="status">
          Loading your privacy settings…
        </p>
      )}
      <ErrorAlert message={save.error ?? settings.error} />
      <Choices
        legend="Direct messages"
        name="dms-from"
        choices={DMS_FROM}
        current={picked.dms_from ?? settings.data?.dms_from}
        disabled={!settings.data || save.busy}
        onPick={(dms_from) => change({ dms_from })}
      />
      <Choices
        legend="Friend requests"
        name="friend-requests-from"
        choices={FRIEND_REQUESTS_FROM}
        current={picked.friend_requests_from ?? settings.data?.friend_requests_from}
        disabled={!settings.data || save.busy}
        onPick={(friend_requests_from) => change({ friend_requests_from })}
      />
      <p class="muted small" role="status">
        {save.busy ? "" : save.status}
      </p>
      <StatusVisibility />
      <MutedUsers />
    </div>
  );
}

/** One setting as a group of radio buttons; the checked one is the choice being saved, else what the server last answered. */
function Choices<T extends string>(props: {
  legend: string;
  name: string;
  choices: Choice<T>[];
  current: T | undefined;
  disabled: boolean;
  onPick: (value: T) => void;
}) {
  return (
    <fieldset class="settings-card level-choices" disabled={props.disabled}>
      <legend>{props.legend}</legend>
      {props.choices.map((choice) => (
        <label key={choice.value} class="level-choice">
          <input
            type="radio"
            name={props.name}
            value={choice.value}
            aria-label={choice.label}
            aria-describedby={`${props.name}-${choice.value}-about`}
            checked={props.current === choice.value}
            onChange={() => props.onPick(choice.value)}
          />
          <span>
            <strong>{choice.label}</strong>
            <span class="muted small" id={`${props.name}-${choice.value}-about`}>
              {choice.about}
            </span>
          </span>
        </label>
      ))}
    </fieldset>
  );
}

/** Presence has no setting of its own: who sees it follows from friendships and servers. */
function StatusVisibility() {
  return (
    <section class="settings-card" aria-labelledby="privacy-status">
      <h2 id="privacy-status">Your status</h2>
      <p class="muted">
        Shown to your friends and to people who share a server with you; everyone else sees you offline. Invisible hides it from all. To
        stop someone's messages from notifying you, mute them below.
      </p>
    </section>
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
