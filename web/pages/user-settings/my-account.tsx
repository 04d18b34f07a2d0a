/**
 * My account: the username (renamed with `PUT /users/me/profile`), the email (Hearth has no email
 * change), "Change password" (every other session ends; this one continues with the fresh token
 * the server answers) and "Log out everywhere" (asked first).
 */
import { useEffect, useState } from "preact/hooks";
import { Avatar } from "../../components/avatar.tsx";
import { ConfirmDialog } from "../../components/confirm-dialog.tsx";
import { ErrorAlert } from "../../components/error-alert.tsx";
import { useAction } from "../../components/use-async.ts";
import { LIMITS } from "../../lib/shared-rules.ts";
import { changePassword, logOutEverywhere, rest, session, updateUser } from "../../state/app-state.ts";

export function MyAccountSection() {
  const user = session.value?.user;
  if (!user) return null;
  return (
    <div class="settings-stack">
      <section class="settings-card account-card" aria-labelledby="account-who">
        <Avatar name={user.username} src={user.avatar} size={64} />
        <div>
          <h2 id="account-who">{user.username}</h2>
          <p class="muted">{user.email || "No email"}</p>
        </div>
      </section>
      <UsernameForm username={user.username} />
      <section class="settings-card" aria-labelledby="account-email">
        <h2 id="account-email">Email</h2>
        <p>
          <span class="sr-only">Your email: </span>
          {user.email || "This account has no email."}
        </p>
        <p class="muted small">You log in with it or with your username. Hearth has no way to change an account's email yet.</p>
      </section>
      <PasswordForm />
      <LogOutEverywhereCard username={user.username} />
    </div>
  );
}

function UsernameForm({ username }: { username: string }) {
  const [name, setName] = useState(username);
  useEffect(() => setName(username), [username]);
  const action = useAction();
  const changed = name.trim() !== username;
  return (
    <form
      class="form settings-card"
      aria-labelledby="account-username"
      onSubmit={async (event) => {
        event.preventDefault();
        await action.run(async () => updateUser(await rest.request("updateMyProfile", { body: { username: name.trim() } })), "Username changed.");
      }}
    >
      <h2 id="account-username">Username</h2>
      <label class="field">
        <span>Username</span>
        <input
          name="username"
          autocomplete="username"
          required
          minLength={LIMITS.account.usernameMin}
          maxLength={LIMITS.account.usernameMax}
          value={name}
          onInput={(e) => {
            setName(e.currentTarget.value);
            action.reset();
          }}
        />
      </label>
      <p class="hint">
        {LIMITS.account.usernameMin}-{LIMITS.account.usernameMax} letters, digits, _ . and -. Others see the new name at once; your
        friends find you by it.
      </p>
      <ErrorAlert message={action.error} />
      <div class="actions">
        <span class="muted small" role="status">
          {action.status}
        </span>
        <button type="submit" class="primary" disabled={!changed || action.busy}>
          Save username
        </button>
      </div>
    </form>
  );
}

function PasswordForm() {
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const action = useAction();
  return (
    <form
      class="form settings-card"
      aria-labelledby="account-password"
      onSubmit={async (event) => {
        event.preventDefault();
        const ok = await action.run(() => changePassword(current, next), "Password changed. Every other device was logged out; this one stays logged in.");
        if (ok) {
          setCurrent("");
          setNext("");
        }
      }}
    >
      <h2 id="account-password">Change password</h2>
      <label class="field">
        <span>Current password</span>
        <input
          type="password"
          name="current-password"
          autocomplete="current-password"
          required
          maxLength={LIMITS.account.passwordMax}
          value={current}
          onInput={(e) => setCurrent(e.currentTarget.value)}
        />
      </label>
      <label class="field">
        <span>New password</span>
        <input
          type="password"
          name="new-password"
          autocomplete="new-password"
          required
          minLength={LIMITS.account.passwordMin}
          maxLength={LIMITS.account.passwordMax}
          aria-describedby="account-password-hint"
          value={next}
          onInput={(e) => setNext(e.currentTarget.value)}
        />
      </label>
      <p class="hint" id="account-password-hint">
        At least {LIMITS.account.passwordMin} characters. Changing it logs out every other browser, device and app; your bots keep their
        tokens.
      </p>
      <ErrorAlert message={action.error} />
      <div class="actions">
        <span class="muted small" role="status">
          {action.status}
        </span>
        <button type="submit" class="primary" disabled={action.busy || !current || next.length < LIMITS.account.passwordMin}>
          Change password
        </button>
      </div>
    </form>
  );
}

function LogOutEverywhereCard({ username }: { username: string }) {
  const [confirming, setConfirming] = useState(false);
  return (
    <section class="settings-card danger-zone" aria-labelledby="account-sessions">
      <h2 id="account-sessions">Sessions</h2>
      <p class="muted">
        Logged in somewhere you no longer use, or lost a device? Log out everywhere ends every session of this account. Your bots keep their
        tokens.
      </p>
      <div class="actions">
        <button type="button" class="danger" onClick={() => setConfirming(true)}>
          Log out everywhere
        </button>
      </div>
      {confirming && (
        <ConfirmDialog title="Log out everywhere?" confirm="Log out everywhere" onConfirm={logOutEverywhere} onClose={() => setConfirming(false)}>
          <p>
            Every browser, device and app logged in as <strong>{username}</strong> is logged out, this one included. Logging in again needs
            your password.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
