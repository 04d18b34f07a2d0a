import { useRef, useState } from "preact/hooks";
import { useLocation } from "preact-iso/router";
import { errorMessage, isRefusal } from "../lib/api-errors.ts";
import { Redirect } from "../app.tsx";
import { rest, session, signedOutReason, signIn } from "../state/app-state.ts";
import { AuthLayout, nextPath } from "./auth-layout.tsx";
import { ErrorAlert } from "../components/error-alert.tsx";
import { TwoFactorField } from "../components/two-factor-field.tsx";

export function LoginPage() {
  const { query } = useLocation();
  const [login, setLogin] = useState("");
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  const [needsCode, setNeedsCode] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const codeField = useRef<HTMLInputElement>(null);
  // Read once: while a page loaded on demand (the developer portal) loads, this page stays on
  // screen under the new address, whose query has no `next`.
  const [next] = useState(() => nextPath(query));

  if (session.value) return <Redirect to={next} />;

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = needsCode && code.trim() ? { login: login.trim(), password, code: code.trim() } : { login: login.trim(), password };
      signIn(await rest.request("login", { body }));
      // The router follows the session: the Redirect above takes over.
    } catch (failure) {
      if (isRefusal(failure, 401, "Two-factor code required")) {
        setNeedsCode(true);
        setError(null);
        setTimeout(() => codeField.current?.focus());
      } else {
        setError(errorMessage(failure));
      }
    } finally {
      setBusy(false);
    }
  }

  return (
    <AuthLayout title={needsCode ? "Two-factor authentication" : "Welcome back"} subtitle={needsCode ? "Enter the 6-digit code from your authenticator app, or one of your recovery codes." : "Log in to chat with your servers."}>
      {signedOutReason.value && !error && <p class="notice" role="status">{signedOutReason.value}</p>}
      <form class="form" onSubmit={submit}>
        <label class="field">
          <span>Email or username</span>
          <input name="login" autocomplete="username" required autoFocus value={login} readOnly={needsCode} onInput={(e) => setLogin(e.currentTarget.value)} />
        </label>
        <label class="field">
          <span>Password</span>
          <input name="password" type="password" autocomplete="current-password" required value={password} readOnly={needsCode} onInput={(e) => setPassword(e.currentTarget.value)} />
        </label>
        {needsCode && <TwoFactorField inputRef={codeField} value={code} onChange={setCode} recovery />}
        <ErrorAlert message={error} />
        <button class="primary" type="submit" disabled={busy}>
          {busy ? "Logging in…" : "Log in"}
        </button>
      </form>
      <p class="muted">
        Need an account? <a href={`/register${query.next ? `?next=${encodeURIComponent(query.next)}` : ""}`}>Create an account</a>
      </p>
    </AuthLayout>
  );
}
