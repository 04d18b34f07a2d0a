import { useState } from "preact/hooks";
import { useLocation, useRoute } from "preact-iso/router";
import { errorMessage } from "../lib/api-errors.ts";
import type { InvitePreview } from "../lib/wire-types.ts";
import { rest, store } from "../state/app-state.ts";
import { AuthLayout } from "./auth-layout.tsx";
import { Avatar } from "../components/avatar.tsx";
import { ErrorAlert } from "../components/error-alert.tsx";
import { useLoad } from "../components/use-async.ts";

/** Counts in the reader's locale. */
const count = new Intl.NumberFormat();

/**
 * `/invite/<code>`: a server invite link. The server is shown first (`GET /invites/:code`: its
 * icon, name, description, member and online counts, who invited), then "Accept invite" joins it
 * and opens it; a member already in it gets "Open server"; an invite that is unknown, expired or
 * used up gets a page that says so.
 */
export function InviteCodePage() {
  const { params } = useRoute();
  const code = params.code ?? "";
  const preview = useLoad(() => rest.request("getInvitePreview", { params: { code } }), [code]);
  if (preview.error) {
    return (
      <AuthLayout title="This invite cannot be used">
        <p role="alert">{preview.error}</p>
        <p class="muted">Ask whoever sent it for a new link.</p>
        <div class="actions">
          <a class="button primary" href="/channels/@me">
            Go home
          </a>
        </div>
      </AuthLayout>
    );
  }
  if (!preview.data) {
    return (
      <AuthLayout title="You've been invited to a server">
        <p class="muted" role="status">
          Looking the invite up…
        </p>
      </AuthLayout>
    );
  }
  return <InviteCard code={code} invite={preview.data} />;
}

function InviteCard({ code, invite }: { code: string; invite: InvitePreview }) {
  const { route } = useLocation();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const { server } = invite;

  async function accept() {
    setBusy(true);
    setError(null);
    try {
      const joined = await rest.request("joinServer", { params: { inviteCode: code } });
      store.addServer(joined);
      route(`/channels/${joined.id}`, true);
    } catch (failure) {
      setError(errorMessage(failure));
      setBusy(false);
    }
  }

  return (
    <AuthLayout class="invite-card">
      <p class="muted">{invite.inviter ? `${invite.inviter.username} invited you to join` : "You've been invited to join"}</p>
      <div class="invite-server">
        <Avatar name={server.name} src={server.icon} size={64} />
        <h1 id="auth-title">{server.name}</h1>
      </div>
      {server.description && <p class="invite-description">{server.description}</p>}
      <p class="invite-counts">
        {server.online_count !== null && (
          <span>
            <span class="count-dot online" aria-hidden="true" /> {count.format(server.online_count)} online
          </span>
        )}
        <span>
          <span class="count-dot" aria-hidden="true" /> {count.format(server.member_count)} {server.member_count === 1 ? "member" : "members"}
        </span>
      </p>
      <ErrorAlert message={error} />
      {invite.is_member ? (
        <div class="actions">
          <p class="muted">You are already a member.</p>
          <a class="button primary" href={`/channels/${server.id}`}>
            Open server
          </a>
        </div>
      ) : (
        <div class="actions">
          <a class="button" href="/channels/@me">
            No thanks
          </a>
          <button class="primary" type="button" onClick={accept} disabled={busy} autoFocus>
            {busy ? "Joining…" : "Accept invite"}
          </button>
        </div>
      )}
    </AuthLayout>
  );
}
