import { useEffect, useState } from "preact/hooks";
import { useLocation } from "preact-iso/router";
import { errorMessage } from "../lib/api-errors.ts";
import { inviteCodeFrom } from "../lib/format.ts";
import type { Server } from "../lib/wire-types.ts";
import { rest, store } from "../state/app-state.ts";
import { CopyButton } from "./copy-button.tsx";
import { Dialog } from "./dialog.tsx";
import { ErrorAlert } from "./error-alert.tsx";

/**
 * A dialog that asks for one value and then opens a server: creating one, or joining one. The
 * server's refusal is shown in it; success adds the server to the rail and opens it.
 */
function ServerFormDialog(props: {
  title: string;
  intro?: string;
  label: string;
  placeholder?: string;
  maxLength?: number;
  submit: string;
  onClose: () => void;
  /** The server to open, or a message saying what is wrong with the value. */
  run: (value: string) => Promise<Server | string>;
}) {
  const { route } = useLocation();
  const [value, setValue] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const result = await props.run(value);
      if (typeof result === "string") {
        setError(result);
        setBusy(false);
        return;
      }
      store.addServer(result);
      props.onClose();
      route(`/channels/${result.id}`);
    } catch (failure) {
      setError(errorMessage(failure));
      setBusy(false);
    }
  }
  return (
    <Dialog title={props.title} onClose={props.onClose}>
      {props.intro && <p class="muted">{props.intro}</p>}
      <form class="form" onSubmit={submit}>
        <label class="field">
          <span>{props.label}</span>
          <input required autoFocus maxLength={props.maxLength} placeholder={props.placeholder} value={value} onInput={(e) => setValue(e.currentTarget.value)} />
        </label>
        <ErrorAlert message={error} />
        <div class="actions">
          <button type="button" class="secondary" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" class="primary" disabled={busy}>
            {props.submit}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

export function CreateServerDialog({ onClose }: { onClose: () => void }) {
  return (
    <ServerFormDialog
      title="Create a server"
      intro="Your server is where you and your friends hang out. It starts with a #general channel."
      label="Server name"
      maxLength={100}
      submit="Create"
      onClose={onClose}
      run={(name) => rest.request("createServer", { body: { name: name.trim() } })}
    />
  );
}

export function JoinServerDialog({ onClose }: { onClose: () => void }) {
  return (
    <ServerFormDialog
      title="Join a server"
      label="Invite code or link"
      placeholder="hTKzmak9Qx or http://…/invite/hTKzmak9Qx"
      submit="Join"
      onClose={onClose}
      run={async (input) => {
        const code = inviteCodeFrom(input);
        return code ? rest.request("joinServer", { params: { inviteCode: code } }) : "Enter an invite code, or an invite link ending in /invite/<code>.";
      }}
    />
  );
}

/** A fresh invite to the server, as a link to copy. */
export function InviteDialog({ serverId, serverName, onClose }: { serverId: string; serverName: string; onClose: () => void }) {
  const [link, setLink] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    rest.request("createInvite", { params: { id: serverId }, body: {} }).then(
      (invite) => setLink(`${location.origin}/invite/${invite.code}`),
      (failure) => setError(errorMessage(failure)),
    );
  }, [serverId]);
  return (
    <Dialog title={`Invite people to ${serverName}`} onClose={onClose}>
      <p class="muted">Share this link. Anyone with an account who opens it can join.</p>
      <ErrorAlert message={error} />
      <div class="copy-row">
        <input readOnly aria-label="Invite link" value={link ?? "Creating an invite…"} onFocus={(e) => e.currentTarget.select()} />
        <CopyButton text={link} />
      </div>
      <form method="dialog" class="actions">
        <button type="submit" class="secondary">
          Done
        </button>
      </form>
    </Dialog>
  );
}
