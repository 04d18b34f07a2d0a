/**
 * Who may add the bot and with what: the public-bot switch, the default permissions (checkboxes
 * with the bitfield), the lock on invite permissions, and the invite link for the permissions
 * checked here (saved or not), with "Copy link".
 */
import { useEffect, useState } from "preact/hooks";
import type { Application } from "../../lib/wire-types.ts";
import { botInviteUrl } from "../../lib/bot-invite.ts";
import { rest } from "../../state/app-state.ts";
import { CopyButton } from "../../components/copy-button.tsx";
import { ErrorAlert } from "../../components/error-alert.tsx";
import { PermissionCheckboxes } from "../../components/permission-checkboxes.tsx";
import { Switch } from "../../components/switch.tsx";
import { useAction } from "../../components/use-async.ts";
import { Section } from "./portal-layout.tsx";

export function InstallSection({ app, onChange }: { app: Application; onChange: (app: Application) => void }) {
  const [bits, setBits] = useState(app.default_permissions);
  // Each part says how its last change went where it was made. The switches stay enabled while
  // saving (a disabled control loses the keyboard focus); a press during a save is ignored.
  const switches = useAction();
  const saving = useAction();
  const busy = switches.busy || saving.busy;
  useEffect(() => setBits(app.default_permissions), [app.default_permissions]);
  const changed = bits !== app.default_permissions;
  const link = botInviteUrl(location.origin, app.bot_user_id, bits);

  const setLock = (locked: boolean) =>
    switches.run(async () => {
      const saved = await rest.request("setApplicationPermissions", { params: { appId: app.id }, body: { default_permissions: app.default_permissions, invite_permission_locked: locked } });
      onChange({ ...app, invite_permission_locked: saved.invite_permission_locked });
    }, locked ? "Invite permissions are locked." : "Invite permissions are unlocked.");
  const setPublic = (on: boolean) =>
    switches.run(async () => onChange(await rest.request("setApplicationPublicInvite", { params: { appId: app.id }, body: { public_invite: on } })), on ? "The bot is public." : "The bot is private.");
  const savePermissions = () =>
    saving.run(async () => {
      const saved = await rest.request("setApplicationPermissions", { params: { appId: app.id }, body: { default_permissions: bits, invite_permission_locked: app.invite_permission_locked } });
      // The server may keep other bits than sent (Administrator is stored alone): show what it kept.
      setBits(saved.default_permissions);
      onChange({ ...app, default_permissions: saved.default_permissions });
    }, "Default permissions saved.");

  return (
    <Section id="install-heading" title="Installation" intro="Who may add the bot to a server, and the permissions its role gets there.">
      <Switch
        label="Public bot"
        checked={app.public_invite}
        onChange={setPublic}
      >
        When on, any server owner or admin can add the bot with its invite link. When off, only you can.
      </Switch>
      <Switch
        label="Lock invite permissions"
        checked={app.invite_permission_locked}
        onChange={setLock}
      >
        When on, the bot can only be added with exactly its default permissions: people adding it cannot uncheck any.
      </Switch>
      <ErrorAlert message={switches.error} />
      <p class="muted small switch-status" role="status">
        {switches.status}
      </p>
      <form
        class="form"
        onSubmit={(e) => {
          e.preventDefault();
          void savePermissions();
        }}
      >
        <PermissionCheckboxes
          bitfield
          legend="Default permissions"
          value={bits}
          onChange={setBits}
          note="Checked in advance on the invite page. Changing them changes new invites only: the bot's role in servers it is already in stays as it is."
        />
        <ErrorAlert message={saving.error} />
        <div class="actions">
          <span class="muted small" role="status">
            {changed ? "" : saving.status}
          </span>
          <button type="button" class="secondary" disabled={!changed || busy} onClick={() => setBits(app.default_permissions)}>
            Undo changes
          </button>
          <button type="submit" class="primary" disabled={!changed || busy}>
            Save permissions
          </button>
        </div>
      </form>
      <div class="field invite-link">
        <label for="invite-link">Invite link</label>
        <div class="copy-row">
          <input id="invite-link" readOnly value={link} spellcheck={false} onFocus={(e) => e.currentTarget.select()} />
          <CopyButton text={link} label="Copy link" />
          <a class="button" href={link}>
            Open
          </a>
        </div>
        <small class="muted">
          {changed && app.invite_permission_locked
            ? "These permissions are not saved: while the lock is on, this link is refused until you save them."
            : changed
              ? "For the permissions checked above (not saved yet)."
              : "Anyone who may add the bot opens this link, picks a server and authorizes it."}
        </small>
      </div>
    </Section>
  );
}
