import { useState } from "preact/hooks";
import { useLocation } from "preact-iso/router";
import { errorMessage } from "../lib/api-errors.ts";
import { Redirect } from "../app.tsx";
import { rest, session, signIn } from "../state/app-state.ts";
import { AuthLayout, nextPath } from "./auth-layout.tsx";
import { ErrorAlert } from "../components/error-alert.tsx";

export function RegisterPage() {
  const { query } = useLocation();
  const [username, setUsername] = useState("");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // Read once, as on the login page: a page loaded on demand keeps this one on screen under its address.
  const [next] = useState(() => nextPath(query));

  if (session.value) return <Redirect to={next} />;

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      signIn(await rest.request("register", { body: { username: username.trim(), email: email.trim(), password } }));
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
    }
  }

  return (
    <AuthLayout title="Create an account" subtitle="Pick a username others will see.">
      <form class="form" onSubmit={submit}>
        <div class="field">
          <label for="register-username">Username</label>
          <input
            id="register-username"
            name="username"
            autocomplete="username"
            required
            minLength={2}
            maxLength={32}
            autoFocus
            aria-describedby="register-username-hint"
            value={username}
            onInput={(e) => setUsername(e.currentTarget.value)}
          />
          <small id="register-username-hint" class="muted">
            2-32 letters, digits, _ . or -
          </small>
        </div>
        <label class="field">
          <span>Email</span>
          <input name="email" type="email" autocomplete="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </label>
        <div class="field">
          <label for="register-password">Password</label>
          <input
            id="register-password"
            name="password"
            type="password"
            autocomplete="new-password"
            required
            minLength={8}
            aria-describedby="register-password-hint"
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
          <small id="register-password-hint" class="muted">
            At least 8 characters
          </small>
        </div>
        <ErrorAlert message={error} />
        <button class="primary" type="submit" disabled={busy}>
          {busy ? "Creating…" : "Create account"}
        </button>
      </form>
      <p class="muted">
        Already have an account? <a href={`/login${query.next ? `?next=${encodeURIComponent(query.next)}` : ""}`}>Log in</a>
      </p>
    </AuthLayout>
  );
}
