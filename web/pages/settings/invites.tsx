/**
 * Invites (MANAGE_SERVER): create one with a use limit and an expiry, the active invites with
 * their uses, copying a link, deleting one, and regenerating the primary invite's code
 * (docs/invites.md). No event tells of invites, so the list is asked again after each change.
 */
import { useState } from "preact/hooks";
import type { ServerInvite } from "../../lib/wire-types.ts";
import { ConfirmDialog } from "../../components/confirm-dialog.tsx";
import { CopyButton } from "../../components/copy-button.tsx";
import { ErrorAlert } from "../../components/error-alert.tsx";
import { formatFullTime } from "../../lib/format.ts";
import { rest } from "../../state/app-state.ts";
import type { SectionProps } from "./context.ts";
import { useAction, useLoad } from "../../components/use-async.ts";

const MAX_USES = [0, 1, 5, 10, 25, 50, 100];
const EXPIRY: { seconds: number; label: string }[] = [
  { seconds: 30 * 60, label: "30 minutes" },
  { seconds: 3600, label: "1 hour" },
  { seconds: 6 * 3600, label: "6 hours" },
  { seconds: 12 * 3600, label: "12 hours" },
  { seconds: 86400, label: "1 day" },
  { seconds: 7 * 86400, label: "7 days" },
  { seconds: 30 * 86400, label: "30 days" },
  { seconds: 0, label: "Never" },
];

const inviteLink = (code: string) => `${location.origin}/invite/${code}`;

export function InvitesSection({ server, state }: SectionProps) {
  const invites = useLoad(() => rest.request("listInvites", { params: { id: server.id } }), [server.id]);
  const [maxUses, setMaxUses] = useState(0);
  const [expiresIn, setExpiresIn] = useState(7 * 86400);
  const [created, setCreated] = useState<ServerInvite | null>(null);
  const [confirm, setConfirm] = useState<{ kind: "delete"; invite: ServerInvite } | { kind: "regenerate" } | null>(null);
  const create = useAction();
  // Looked up when the app does not know them yet (a large server); "a former member" once known to be gone.
  const nameOf = (id: string | null) => (id ? (state.members.lookup(id)?.username ?? "a former member") : "a deleted account");
  return (
    <div class="settings-stack">
      <form
        class="form settings-card"
        aria-labelledby="invite-create"
        onSubmit={async (event) => {
          event.preventDefault();
          const ok = await create.run(async () => setCreated(await rest.request("createInvite", { params: { id: server.id }, body: { max_uses: maxUses, expires_in: expiresIn } })));
          if (ok) void invites.reload();
        }}
      >
        <h2 id="invite-create">Create an invite</h2>
        <div class="field-row">
          <label class="field">
            <span>Expire after</span>
            <select value={expiresIn} onChange={(e) => setExpiresIn(Number(e.currentTarget.value))}>
              {EXPIRY.map((o) => (
                <option key={o.seconds} value={o.seconds}>
                  {o.label}
                </option>
              ))}
            </select>
          </label>
          <label class="field">
            <span>Max number of uses</span>
            <select value={maxUses} onChange={(e) => setMaxUses(Number(e.currentTarget.value))}>
              {MAX_USES.map((n) => (
                <option key={n} value={n}>
                  {n === 0 ? "No limit" : `${n} ${n === 1 ? "use" : "uses"}`}
                </option>
              ))}
            </select>
          </label>
        </div>
        <ErrorAlert message={create.error} />
        {created && (
          <div class="copy-row" role="status">
            <input readOnly aria-label="New invite link" value={inviteLink(created.code)} onFocus={(e) => e.currentTarget.select()} />
            <CopyButton class="secondary small" text={inviteLink(created.code)} label="Copy link" />
          </div>
        )}
        <div class="actions">
          <button type="submit" class="primary" disabled={create.busy}>
            Create invite
          </button>
        </div>
      </form>

      <section class="settings-card" aria-labelledby="invite-list">
        <div class="section-head">
          <h2 id="invite-list">Active invites</h2>
          <button type="button" class="secondary small" onClick={() => setConfirm({ kind: "regenerate" })}>
            Regenerate the primary invite
          </button>
        </div>
        <ErrorAlert message={invites.error} />
        {invites.data === null && !invites.error && <p class="muted" role="status">Loading invites…</p>}
        {invites.data && (
          <table class="settings-table">
            <caption class="sr-only">Active invites, the primary one first</caption>
            <thead>
              <tr>
                <th scope="col">Code</th>
                <th scope="col">Uses</th>
                <th scope="col">Expires</th>
                <th scope="col">Created by</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {invites.data.map((invite) => (
                <tr key={invite.id}>
                  <th scope="row">
                    <code>{invite.code}</code> {invite.is_primary && <span class="badge primary-badge">PRIMARY</span>}
                  </th>
                  <td data-label="Uses">{invite.max_uses === null ? `${invite.uses}` : `${invite.uses} of ${invite.max_uses}`}</td>
                  <td data-label="Expires">{invite.expires_at === null ? "Never" : formatFullTime(invite.expires_at)}</td>
                  <td data-label="Created by">{nameOf(invite.created_by)}</td>
                  <td>
                    <div class="row-actions">
                      <CopyButton class="secondary small" text={inviteLink(invite.code)} label="Copy link" name={`Copy link of invite ${invite.code}`} />
                      {!invite.is_primary && (
                        <button type="button" class="danger small" aria-label={`Delete invite ${invite.code}`} onClick={() => setConfirm({ kind: "delete", invite })}>
                          Delete
                        </button>
                      )}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      {confirm?.kind === "delete" && (
        <ConfirmDialog
          title={`Delete invite ${confirm.invite.code}?`}
          confirm="Delete invite"
          onClose={() => setConfirm(null)}
          onConfirm={async () => {
            await rest.request("deleteInvite", { params: { id: server.id, inviteId: confirm.invite.id } });
            await invites.reload();
          }}
        >
          <p>Its link stops working at once.</p>
        </ConfirmDialog>
      )}
      {confirm?.kind === "regenerate" && (
        <ConfirmDialog
          title="Regenerate the primary invite?"
          confirm="Regenerate"
          onClose={() => setConfirm(null)}
          onConfirm={async () => {
            await rest.request("regeneratePrimaryInvite", { params: { id: server.id } });
            await invites.reload();
          }}
        >
          <p>The primary invite gets a new code; links with the old code stop working at once. Its use count is kept.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}
