/** `/developers`: the reader's applications, and "New application". */
import { useEffect, useRef, useState } from "preact/hooks";
import { useLocation } from "preact-iso/router";
import { errorMessage, isRefusal } from "../../lib/api-errors.ts";
import { rest, session } from "../../state/app-state.ts";
import { Avatar } from "../../components/avatar.tsx";
import { Dialog } from "../../components/dialog.tsx";
import { ErrorAlert } from "../../components/error-alert.tsx";
import { TwoFactorField } from "../../components/two-factor-field.tsx";
import { useLoad } from "../../components/use-async.ts";
import { DescriptionField } from "./description-field.tsx";
import { freshToken } from "./fresh-token.ts";
import { LIMITS } from "../../lib/shared-rules.ts";

export function ApplicationsList() {
  const { data: list, error } = useLoad(() => rest.request("listApplications"), []);
  const [creating, setCreating] = useState(false);
  return (
    <>
      <div class="portal-heading">
        <div>
          <h1>Applications</h1>
          <p class="muted">An application gives you a bot: a user that your program connects as, adds to servers and answers slash commands with.</p>
        </div>
        <button type="button" class="primary" onClick={() => setCreating(true)}>
          New application
        </button>
      </div>
      <ErrorAlert message={error} />
      {list === null && !error && (
        <p class="muted" role="status">
          Loading your applications…
        </p>
      )}
      {list?.length === 0 && (
        <div class="portal-empty">
          <h2>No applications yet</h2>
          <p class="muted">Create one to get a bot token, then invite the bot to a server you manage.</p>
          <button type="button" class="primary" onClick={() => setCreating(true)}>
            Create your first application
          </button>
        </div>
      )}
      {list && list.length > 0 && (
        <ul class="app-grid" aria-label="Your applications">
          {list.map((app) => (
            <li key={app.id}>
              <a class="app-tile" href={`/developers/applications/${app.id}`}>
                <Avatar name={app.name} src={app.avatar} size={56} />
                <span class="app-tile-text">
                  <strong class="app-tile-name">{app.name}</strong>
                  <span class="muted small app-tile-description">{app.description || "No description"}</span>
                </span>
              </a>
            </li>
          ))}
        </ul>
      )}
      {creating && <NewApplicationDialog onClose={() => setCreating(false)} />}
    </>
  );
}

/** The platform may ask for a two-factor code to create applications (docs/applications.md). */
const CODE_NEEDED = /two-factor code/i;

function NewApplicationDialog({ onClose }: { onClose: () => void }) {
  const { route } = useLocation();
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [code, setCode] = useState("");
  const [needsCode, setNeedsCode] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const codeField = useRef<HTMLInputElement>(null);

  // Ask for the code up front when the platform requires it and the account can give one.
  useEffect(() => {
    rest.request("getPlatformConfig").then(
      (config) => setNeedsCode(config.features.two_factor_required_for_applications && !!session.value?.user.two_factor_enabled),
      () => {},
    );
  }, []);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const created = await rest.request("createApplication", {
        body: { name: name.trim(), description: description.trim() },
        headers: needsCode && code.trim() ? { "x-2fa-code": code.trim() } : {},
      });
      freshToken.value = { appId: created.application.id, token: created.bot_token };
      onClose();
      route(`/developers/applications/${created.application.id}`);
    } catch (failure) {
      if (isRefusal(failure, 403, CODE_NEEDED) && !needsCode) {
        setNeedsCode(true);
        setError("Enter the code from your authenticator app to create an application.");
        setTimeout(() => codeField.current?.focus());
      } else {
        setError(errorMessage(failure));
      }
      setBusy(false);
    }
  }

  return (
    <Dialog title="New application" onClose={onClose}>
      <form class="form" onSubmit={submit}>
        <label class="field">
          <span>Name</span>
          <input required autoFocus maxLength={LIMITS.bot.applicationNameLength} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <DescriptionField id="new-app-description" value={description} onChange={setDescription} hint="Optional. Shown on the bot's invite card." />
        {needsCode && <TwoFactorField inputRef={codeField} value={code} onChange={setCode} />}
        <ErrorAlert message={error} />
        <div class="actions">
          <button type="button" class="secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" class="primary" disabled={busy}>
            {busy ? "Creating…" : "Create"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
