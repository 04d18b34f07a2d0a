import { useState } from "preact/hooks";
import { useLocation, useRoute } from "preact-iso/router";
import { errorMessage } from "../lib/api-errors.ts";
import { rest, store } from "../state/app-state.ts";
import { AuthLayout } from "./auth-layout.tsx";
import { ErrorAlert } from "../components/error-alert.tsx";

/** `/invite/<code>`: a server invite link. Accepting joins the server and opens it. */
export function InviteCodePage() {
  const { params } = useRoute();
  const { route } = useLocation();
  const code = params.code ?? "";
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function accept() {
    setBusy(true);
    setError(null);
    try {
      const server = await rest.request("joinServer", { params: { inviteCode: code } });
      store.addServer(server);
      route(`/channels/${server.id}`, true);
    } catch (failure) {
      setError(errorMessage(failure));
      setBusy(false);
    }
  }

  return (
    <AuthLayout title="You've been invited to a server" subtitle={`Invite code ${code}`}>
      <ErrorAlert message={error} />
      <div class="actions">
        <button class="primary" type="button" onClick={accept} disabled={busy} autoFocus>
          {busy ? "Joining…" : "Accept invite"}
        </button>
        <a class="button" href="/channels/@me">
          No thanks
        </a>
      </div>
    </AuthLayout>
  );
}
