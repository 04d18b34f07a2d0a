/** The application's public face: avatar, banner, name and description (the bot's name follows the application's). */
import { useEffect, useState } from "preact/hooks";
import type { Application } from "../../lib/wire-types.ts";
import { LIMITS } from "../../lib/shared-rules.ts";
import { rest } from "../../state/app-state.ts";
import { ErrorAlert } from "../../components/error-alert.tsx";
import { useAction } from "../../components/use-async.ts";
import { DescriptionField } from "./description-field.tsx";
import { ImagePicker } from "./image-picker.tsx";
import { Section } from "./portal-layout.tsx";

export function GeneralSection({ app, onChange }: { app: Application; onChange: (app: Application) => void }) {
  const [name, setName] = useState(app.name);
  const [description, setDescription] = useState(app.description);
  const save = useAction();
  useEffect(() => {
    setName(app.name);
    setDescription(app.description);
  }, [app.name, app.description]);
  const changed = name !== app.name || description !== app.description;

  function submit(event: Event) {
    event.preventDefault();
    void save.run(async () => onChange(await rest.request("updateApplication", { params: { appId: app.id }, body: { name: name.trim(), description: description.trim() } })), "Saved.");
  }

  return (
    <Section id="general-heading" title="General information" intro="What people see on the bot's invite card. Renaming the application renames its bot and the bot's role in every server.">
      <div class="image-pickers">
        <ImagePicker app={app} kind="avatar" onChange={onChange} />
        <ImagePicker app={app} kind="banner" onChange={onChange} />
      </div>
      <form class="form" onSubmit={submit}>
        <label class="field">
          <span>Name</span>
          <input required maxLength={LIMITS.bot.applicationNameLength} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <DescriptionField id="app-description" value={description} onChange={setDescription} />
        <ErrorAlert message={save.error} />
        <div class="actions">
          <span class="muted small" role="status">
            {changed ? "" : save.status}
          </span>
          <button
            type="button"
            class="secondary"
            disabled={!changed || save.busy}
            onClick={() => {
              setName(app.name);
              setDescription(app.description);
              save.reset();
            }}
          >
            Undo changes
          </button>
          <button type="submit" class="primary" disabled={!changed || save.busy}>
            {save.busy ? "Saving…" : "Save changes"}
          </button>
        </div>
      </form>
      <dl class="app-ids">
        <div>
          <dt>Application ID</dt>
          <dd>
            <code>{app.id}</code>
          </dd>
        </div>
        <div>
          <dt>Bot user ID</dt>
          <dd>
            <code>{app.bot_user_id}</code>
          </dd>
        </div>
      </dl>
    </Section>
  );
}
