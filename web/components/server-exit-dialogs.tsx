/**
 * Leaving a server and deleting one (docs/web.md, "Servers"). Leaving asks first; the owner, who
 * cannot leave, is told what to do instead. Deleting (the owner, from Server settings > Overview)
 * asks for the server's name typed out and, when the account has two-factor, the "Two-factor
 * code" (`X-2FA-Code`). Both take the reader to their next server, or home.
 */
import { useState } from "preact/hooks";
import { useLocation } from "preact-iso/router";
import type { Server } from "../lib/wire-types.ts";
import { rest, session, store } from "../state/app-state.ts";
import { ConfirmDialog } from "./confirm-dialog.tsx";
import { Dialog } from "./dialog.tsx";
import { ErrorAlert } from "./error-alert.tsx";
import { TwoFactorField } from "./two-factor-field.tsx";
import { useAction } from "./use-async.ts";

export function LeaveServerDialog({ server, onClose }: { server: Server; onClose: () => void }) {
  const { route } = useLocation();
  const owner = server.owner_id === session.value?.user.id;
  if (owner) {
    return (
      <Dialog title={`You own ${server.name}`} onClose={onClose}>
        <p>
          An owner cannot leave their server. Delete it in Server settings, Overview, if it should go; Hearth has no transfer of
          ownership yet.
        </p>
        <div class="actions">
          <a class="button secondary" href={`/servers/${server.id}/settings/overview`} onClick={onClose}>
            Server settings
          </a>
          <button type="button" class="primary" onClick={onClose}>
            Close
          </button>
        </div>
      </Dialog>
    );
  }
  return (
    <ConfirmDialog
      title={`Leave ${server.name}`}
      confirm="Leave server"
      onClose={onClose}
      onConfirm={async () => {
        await rest.request("leaveServer", { params: { id: server.id } });
        route(store.serverGone(server.id));
      }}
    >
      <p>Leave {server.name}? You will not be able to rejoin it without a new invite.</p>
    </ConfirmDialog>
  );
}

export function DeleteServerDialog({ server, onClose }: { server: Server; onClose: () => void }) {
  const { route } = useLocation();
  const [name, setName] = useState("");
  const [code, setCode] = useState("");
  const action = useAction();
  const twoFactor = session.value?.user.two_factor_enabled === true;
  const matches = name.trim() === server.name;
  return (
    <Dialog title={`Delete ${server.name}`} onClose={onClose}>
      <form
        class="form"
        onSubmit={async (event) => {
          event.preventDefault();
          if (!matches) return;
          const deleted = await action.run(() => rest.request("deleteServer", { params: { id: server.id }, headers: twoFactor ? { "x-2fa-code": code.trim() } : {} }));
          if (deleted) route(store.serverGone(server.id));
        }}
      >
        <p>
          Delete <strong>{server.name}</strong>, its channels, messages, roles and members? This cannot be undone.
        </p>
        {/* The hint outside the label: inside, it would be read as part of the field's name. */}
        <div class="field">
          <label for="delete-server-name">Server name</label>
          <input id="delete-server-name" required autoFocus value={name} onInput={(e) => setName(e.currentTarget.value)} aria-describedby="delete-server-hint" />
          <small id="delete-server-hint" class="muted">
            Type the server's name to confirm.
          </small>
        </div>
        {twoFactor && <TwoFactorField value={code} onChange={setCode} />}
        <ErrorAlert message={action.error} />
        <div class="actions">
          <button type="button" class="secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" class="danger" disabled={!matches || action.busy}>
            Delete server
          </button>
        </div>
      </form>
    </Dialog>
  );
}
