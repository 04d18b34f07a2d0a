/**
 * Managing a server's channels and categories (MANAGE_CHANNELS, docs/channels.md): creating,
 * editing and deleting each. The server's refusal is shown in the dialog, which stays open; what
 * it answers is put in the server's state at once (its events bring it to everyone else).
 */
import { useId, useState } from "preact/hooks";
import type { Category, Channel } from "../lib/wire-types.ts";
import { rest } from "../state/app-state.ts";
import type { ServerState } from "../state/server-state.ts";
import { ConfirmDialog } from "./confirm-dialog.tsx";
import { Dialog } from "./dialog.tsx";
import { ErrorAlert } from "./error-alert.tsx";
import { Switch } from "./switch.tsx";
import { useAction } from "./use-async.ts";


const NAME_MAX = 100;
const TOPIC_MAX = 1024;

function VoiceSwitches({ meeting, chat, onMeeting, onChat }: { meeting: boolean; chat: boolean; onMeeting: (on: boolean) => void; onChat: (on: boolean) => void }) {
  return (
    <>
      <Switch label="Meeting" checked={meeting} onChange={onMeeting}>
        Speakers talk, everyone else listens and asks to speak.
      </Switch>
      <Switch label="Text chat" checked={chat} onChange={onChat}>
        A text chat beside the voice channel.
      </Switch>
    </>
  );
}

/** A dialog's buttons: a deletion at the start when there is one (it asks first), Cancel and the submit button. */
function Actions({ busy, submit, remove, onDelete, onClose }: { busy: boolean; submit: string; remove?: string; onDelete?: () => void; onClose: () => void }) {
  return (
    <div class="actions">
      {remove && onDelete && (
        <button type="button" class="danger subtle-left" onClick={onDelete}>
          {remove}
        </button>
      )}
      <button type="button" class="secondary" onClick={onClose}>
        Cancel
      </button>
      <button type="submit" class="primary" disabled={busy}>
        {submit}
      </button>
    </div>
  );
}

export function CreateChannelDialog({ serverId, state, categoryId = null, onClose, onCreated }: {
  serverId: string;
  state: ServerState;
  categoryId?: string | null;
  onClose: () => void;
  onCreated: (channel: Channel) => void;
}) {
  const [name, setName] = useState("");
  const [type, setType] = useState<"text" | "voice">("text");
  const [category, setCategory] = useState(categoryId ?? "");
  const [meeting, setMeeting] = useState(false);
  const [chat, setChat] = useState(false);
  const action = useAction();
  const formId = useId();
  const categories = [...state.categories.value].sort((a, b) => a.position - b.position);
  return (
    <Dialog title="Create channel" onClose={onClose}>
      <form
        class="form"
        onSubmit={async (event) => {
          event.preventDefault();
          let created: Channel | null = null;
          const voice = type === "voice" ? { is_meeting: meeting, chat_enabled: chat } : {};
          const ok = await action.run(async () => {
            created = await rest.request("createChannel", { params: { id: serverId }, body: { name, type, category_id: category || null, ...voice } });
            state.upsertChannel(created);
          });
          if (ok && created) onCreated(created);
        }}
      >
        <fieldset class="channel-type" role="radiogroup">
          <legend class="field-label">Channel type</legend>
          {(["text", "voice"] as const).map((t) => (
            // The whole card picks the type; the radio is named by its type alone, the line under it describes it.
            <div key={t} class={`channel-type-option${type === t ? " chosen" : ""}`} onClick={() => setType(t)}>
              <input id={`${formId}-${t}`} type="radio" name="channel-type" value={t} checked={type === t} aria-describedby={`${formId}-${t}-about`} onChange={() => setType(t)} />
              <label for={`${formId}-${t}`}>{t === "text" ? "Text" : "Voice"}</label>
              <span id={`${formId}-${t}-about`} class="muted small">
                {t === "text" ? "Messages, images, links" : "Talk together, share the screen"}
              </span>
            </div>
          ))}
        </fieldset>
        <label class="field">
          <span>Channel name</span>
          <input required autoFocus maxLength={NAME_MAX} value={name} placeholder={type === "text" ? "new-channel" : "Lounge"} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label class="field">
          <span>Category</span>
          <select value={category} onChange={(e) => setCategory(e.currentTarget.value)}>
            <option value="">No category</option>
            {categories.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
        </label>
        {type === "voice" && (
          <VoiceSwitches
            meeting={meeting}
            chat={chat}
            onMeeting={(on) => {
              setMeeting(on);
              // A meeting has its chat on unless asked otherwise, as the server does.
              if (on) setChat(true);
            }}
            onChat={setChat}
          />
        )}
        <ErrorAlert message={action.error} />
        <Actions busy={action.busy} submit="Create" onClose={onClose} />
      </form>
    </Dialog>
  );
}

export function EditChannelDialog({ channel, state, onClose, onDelete }: { channel: Channel; state: ServerState; onClose: () => void; onDelete: () => void }) {
  const [name, setName] = useState(channel.name);
  const [topic, setTopic] = useState(channel.topic ?? "");
  const [meeting, setMeeting] = useState(channel.is_meeting);
  const [chat, setChat] = useState(channel.chat_enabled);
  const action = useAction();
  const voice = channel.type === "voice";
  return (
    <Dialog title="Edit channel" onClose={onClose}>
      <p class="muted">{voice ? `Voice channel ${channel.name}` : `Text channel #${channel.name}`}</p>
      <form
        class="form"
        onSubmit={async (event) => {
          event.preventDefault();
          const body = voice ? { name, is_meeting: meeting, chat_enabled: chat } : { name, topic };
          if (await action.run(async () => state.upsertChannel(await rest.request("updateChannel", { params: { id: channel.id }, body })))) onClose();
        }}
      >
        <label class="field">
          <span>Channel name</span>
          <input required autoFocus maxLength={NAME_MAX} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        {!voice && (
          <label class="field">
            <span>Topic</span>
            <textarea rows={3} maxLength={TOPIC_MAX} value={topic} onInput={(e) => setTopic(e.currentTarget.value)} />
          </label>
        )}
        {voice && <VoiceSwitches meeting={meeting} chat={chat} onMeeting={setMeeting} onChat={setChat} />}
        <ErrorAlert message={action.error} />
        <Actions busy={action.busy} submit="Save" remove="Delete channel" onDelete={onDelete} onClose={onClose} />
      </form>
    </Dialog>
  );
}

export const channelLabel = (channel: Pick<Channel, "name" | "type">) => (channel.type === "text" ? `#${channel.name}` : channel.name);

export function DeleteChannelDialog({ channel, state, onClose, onDeleted }: { channel: Channel; state: ServerState; onClose: () => void; onDeleted: () => void }) {
  return (
    <ConfirmDialog
      title={`Delete ${channelLabel(channel)}?`}
      confirm="Delete channel"
      onClose={onClose}
      onConfirm={async () => {
        await rest.request("deleteChannel", { params: { id: channel.id } });
        state.removeChannel(channel.id);
        onDeleted();
      }}
    >
      <p>Its messages, pins and files go with it, for everyone. This cannot be undone.</p>
    </ConfirmDialog>
  );
}

/** Creating a category (no `category`) or renaming one. */
export function CategoryDialog({ serverId, state, category, onClose, onDelete }: {
  serverId: string;
  state: ServerState;
  category?: Category;
  onClose: () => void;
  onDelete?: () => void;
}) {
  const [name, setName] = useState(category?.name ?? "");
  const action = useAction();
  return (
    <Dialog title={category ? "Edit category" : "Create category"} onClose={onClose}>
      <form
        class="form"
        onSubmit={async (event) => {
          event.preventDefault();
          const ok = await action.run(async () => {
            if (category) await rest.request("renameCategory", { params: { id: category.id }, body: { name } });
            else await rest.request("createCategory", { params: { id: serverId }, body: { name } });
            await state.reloadChannels();
          });
          if (ok) onClose();
        }}
      >
        <label class="field">
          <span>Category name</span>
          <input required autoFocus maxLength={NAME_MAX} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <ErrorAlert message={action.error} />
        <Actions busy={action.busy} submit={category ? "Save" : "Create"} remove={category ? "Delete category" : undefined} onDelete={onDelete} onClose={onClose} />
      </form>
    </Dialog>
  );
}

export function DeleteCategoryDialog({ category, state, onClose }: { category: Category; state: ServerState; onClose: () => void }) {
  return (
    <ConfirmDialog
      title={`Delete the category ${category.name}?`}
      confirm="Delete category"
      onClose={onClose}
      onConfirm={async () => {
        await rest.request("deleteCategory", { params: { id: category.id } });
        await state.reloadChannels();
      }}
    >
      <p>Its channels stay, without a category.</p>
    </ConfirmDialog>
  );
}
