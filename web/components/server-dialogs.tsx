import { useEffect, useState } from "preact/hooks";
import { useLocation } from "preact-iso/router";
import { errorMessage } from "../lib/api-errors.ts";
import { inviteCodeFrom } from "../lib/format.ts";
import type { Server } from "../lib/wire-types.ts";
import { DEFAULT_INVITE_SECONDS, expiryText, INVITE_EXPIRY_CHOICES, INVITE_USE_CHOICES, stillUsable, type OwnInvite } from "../lib/invite-options.ts";
import { rest, store } from "../state/app-state.ts";
import { useAction } from "./use-async.ts";
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

/**
 * "Invite people": the reader's own newest link to the server that still admits people, from any
 * device (`GET /servers/:id/invites/me`: deleted, expired and used-up links are not answered),
 * else a new one that expires in 7 days; "Edit invite link" makes a new one with another expiry
 * and use limit.
 */
export function InviteDialog({ serverId, serverName, onClose }: { serverId: string; serverName: string; onClose: () => void }) {
  const [invite, setInvite] = useState<OwnInvite | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);
  const [expiry, setExpiry] = useState(DEFAULT_INVITE_SECONDS);
  const [uses, setUses] = useState(0);
  const action = useAction();
  const make = async (expiresIn: number, maxUses: number) => {
    const created = await rest.request("createInvite", { params: { id: serverId }, body: { expires_in: expiresIn, max_uses: maxUses } });
    setInvite({ code: created.code, expires_at: created.expires_at });
  };
  useEffect(() => {
    let live = true;
    (async () => {
      const mine = await rest.request("listMyInvites", { params: { id: serverId } });
      const usable = mine.find((own) => stillUsable(own, Date.now() / 1000));
      if (!live) return;
      if (usable) setInvite({ code: usable.code, expires_at: usable.expires_at });
      else await make(DEFAULT_INVITE_SECONDS, 0);
    })().catch((failure) => live && setError(errorMessage(failure)));
    return () => {
      live = false;
    };
  }, [serverId]);
  const link = invite ? `${location.origin}/invite/${invite.code}` : null;
  return (
    <Dialog title={`Invite people to ${serverName}`} onClose={onClose}>
      <p class="muted">Share this link. Anyone with an account who opens it can join.</p>
      <ErrorAlert message={error} />
      <div class="copy-row">
        <input readOnly aria-label="Invite link" value={link ?? "Creating an invite…"} onFocus={(e) => e.currentTarget.select()} />
        <CopyButton text={link} />
      </div>
      {invite && <p class="muted small">{expiryText(invite.expires_at, Date.now() / 1000)}</p>}
      {editing ? (
        <form
          class="form invite-options"
          aria-label="Invite link settings"
          onSubmit={async (event) => {
            event.preventDefault();
            if (await action.run(() => make(expiry, uses), "A new link is ready.")) setEditing(false);
          }}
        >
          <label class="field">
            <span>Expire after</span>
            <select value={expiry} onChange={(e) => setExpiry(Number(e.currentTarget.value))}>
              {INVITE_EXPIRY_CHOICES.map((choice) => (
                <option key={choice.seconds} value={choice.seconds}>
                  {choice.label}
                </option>
              ))}
            </select>
          </label>
          <label class="field">
            <span>Max number of uses</span>
            <select value={uses} onChange={(e) => setUses(Number(e.currentTarget.value))}>
              {INVITE_USE_CHOICES.map((choice) => (
                <option key={choice.uses} value={choice.uses}>
                  {choice.label}
                </option>
              ))}
            </select>
          </label>
          <ErrorAlert message={action.error} />
          <div class="actions">
            <button type="button" class="secondary" onClick={() => setEditing(false)}>
              Cancel
            </button>
            <button type="submit" class="primary" disabled={action.busy}>
              Generate a new link
            </button>
          </div>
        </form>
      ) : (
        <form method="dialog" class="actions">
          <p class="sr-only" role="status">
            {action.status}
          </p>
          <button type="button" class="secondary" onClick={() => setEditing(true)} disabled={!invite}>
            Edit invite link
          </button>
          <button type="submit" class="primary">
            Done
          </button>
        </form>
      )}
    </Dialog>
  );
}
