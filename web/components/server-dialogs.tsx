import { useEffect, useState } from "preact/hooks";
import { useLocation } from "preact-iso/router";
import { errorMessage } from "../api/client.ts";
import { inviteCodeFrom } from "../lib/format.ts";
import { api, store } from "../state/app-state.ts";
import { Dialog } from "./dialog.tsx";

export function CreateServerDialog({ onClose }: { onClose: () => void }) {
  const { route } = useLocation();
  const [name, setName] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function create(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const server = await api.createServer(name.trim());
      store.addServer(server);
      onClose();
      route(`/channels/${server.id}`);
    } catch (failure) {
      setError(errorMessage(failure));
      setBusy(false);
    }
  }
  return (
    <Dialog title="Create a server" onClose={onClose}>
      <p class="muted">Your server is where you and your friends hang out. It starts with a #general channel.</p>
      <form class="form" onSubmit={create}>
        <label class="field">
          <span>Server name</span>
          <input required maxLength={100} autoFocus value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        {error && <p class="error" role="alert">{error}</p>}
        <div class="actions">
          <button type="button" class="secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" class="primary" disabled={busy}>
            Create
          </button>
        </div>
      </form>
    </Dialog>
  );
}

export function JoinServerDialog({ onClose }: { onClose: () => void }) {
  const { route } = useLocation();
  const [input, setInput] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function join(event: Event) {
    event.preventDefault();
    const code = inviteCodeFrom(input);
    if (!code) {
      setError("Enter an invite code, or an invite link ending in /invite/<code>.");
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const server = await api.joinServer(code);
      store.addServer(server);
      onClose();
      route(`/channels/${server.id}`);
    } catch (failure) {
      setError(errorMessage(failure));
      setBusy(false);
    }
  }
  return (
    <Dialog title="Join a server" onClose={onClose}>
      <form class="form" onSubmit={join}>
        <label class="field">
          <span>Invite code or link</span>
          <input required autoFocus placeholder="hTKzmak9Qx or http://…/invite/hTKzmak9Qx" value={input} onInput={(e) => setInput(e.currentTarget.value)} />
        </label>
        {error && <p class="error" role="alert">{error}</p>}
        <div class="actions">
          <button type="button" class="secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" class="primary" disabled={busy}>
            Join
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** A fresh invite to the server, as a link to copy. */
export function InviteDialog({ serverId, serverName, onClose }: { serverId: string; serverName: string; onClose: () => void }) {
  const [link, setLink] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    api.createInvite(serverId).then(
      (invite) => setLink(`${location.origin}/invite/${invite.code}`),
      (failure) => setError(errorMessage(failure)),
    );
  }, [serverId]);
  return (
    <Dialog title={`Invite people to ${serverName}`} onClose={onClose}>
      <p class="muted">Share this link. Anyone with an account who opens it can join.</p>
      {error && <p class="error" role="alert">{error}</p>}
      <div class="copy-row">
        <input readOnly aria-label="Invite link" value={link ?? "Creating an invite…"} onFocus={(e) => e.currentTarget.select()} />
        <button
          type="button"
          class="primary"
          disabled={!link}
          onClick={async () => {
            try {
              await navigator.clipboard.writeText(link!);
              setCopied(true);
            } catch {
              setError("Copying is not allowed here: select the link and copy it.");
            }
          }}
        >
          {copied ? "Copied" : "Copy"}
        </button>
      </div>
      <form method="dialog" class="actions">
        <button type="submit" class="secondary">
          Done
        </button>
      </form>
    </Dialog>
  );
}
