/**
 * Webhooks (MANAGE_CHANNELS): every channel's webhooks, creating one, copying its secret URL,
 * regenerating the URL (the old one stops working) and deleting it (docs/webhooks.md). A
 * channel whose overrides take the bit away answers 403, shown under that channel.
 */
import { useState } from "preact/hooks";
import type { Channel, Webhook } from "../../lib/wire-types.ts";
import { errorMessage } from "../../lib/api-errors.ts";
import { ConfirmDialog } from "../../components/confirm-dialog.tsx";
import { Avatar } from "../../components/avatar.tsx";
import { CopyButton } from "../../components/copy-button.tsx";
import { ErrorAlert } from "../../components/error-alert.tsx";
import { channelTree } from "../../lib/channel-tree.ts";
import { formatFullTime } from "../../lib/format.ts";
import { LIMITS } from "../../lib/shared-rules.ts";
import { rest } from "../../state/app-state.ts";
import type { SectionProps } from "./context.ts";
import { useAction, useLoad } from "../../components/use-async.ts";

type ChannelHooks = { channel: Channel; webhooks: Webhook[] | null; error: string | null };

export const webhookUrl = (webhook: Webhook) => `${location.origin}${webhook.url}`;

export function WebhooksSection({ state }: SectionProps) {
  const channels = channelTree(state.channels.value ?? [], state.categories.value).flatMap((g) => g.channels);
  const key = channels.map((c) => c.id).join(",");
  const all = useLoad<ChannelHooks[]>(
    () =>
      Promise.all(
        channels.map(async (channel) => {
          try {
            return { channel, webhooks: await rest.request("listChannelWebhooks", { params: { id: channel.id } }), error: null };
          } catch (failure) {
            return { channel, webhooks: null, error: errorMessage(failure) };
          }
        }),
      ),
    [key],
  );
  const [confirm, setConfirm] = useState<{ kind: "regenerate" | "delete"; webhook: Webhook } | null>(null);
  const [fresh, setFresh] = useState<string | null>(null);
  const replace = (channelId: string, update: (list: Webhook[]) => Webhook[]) =>
    all.set((groups) => groups.map((g) => (g.channel.id === channelId && g.webhooks ? { ...g, webhooks: update(g.webhooks) } : g)));
  const total = all.data?.reduce((n, g) => n + (g.webhooks?.length ?? 0), 0) ?? 0;
  return (
    <div class="settings-stack">
      <p class="muted">A webhook posts into one channel from another service, with a secret URL. Anyone who has the URL can post, so share it with care.</p>
      {channels.length > 0 ? (
        <CreateWebhook
          channels={channels}
          onCreated={(webhook) => {
            replace(webhook.channel_id, (list) => [...list, webhook]);
            setFresh(webhook.id);
          }}
        />
      ) : (
        <p class="empty">There are no channels to add a webhook to.</p>
      )}
      <ErrorAlert message={all.error} />
      {all.data === null && !all.error && <p class="muted" role="status">Loading webhooks…</p>}
      {all.data && total === 0 && all.data.every((g) => !g.error) && <p class="empty">No webhooks yet.</p>}
      {all.data
        ?.filter((g) => g.error || (g.webhooks?.length ?? 0) > 0)
        .map((group) => {
          const name = channels.find((c) => c.id === group.channel.id)?.name ?? group.channel.name;
          return (
            <section key={group.channel.id} class="settings-card" aria-label={`Webhooks of #${name}`}>
              <h2 class="subhead">#{name}</h2>
              <ErrorAlert message={group.error} />
              <ul class="settings-list compact">
                {group.webhooks?.map((webhook) => (
                  <li key={webhook.id} class={`settings-row${fresh === webhook.id ? " fresh" : ""}`} aria-label={webhook.name}>
                    <Avatar name={webhook.name} src={webhook.avatar} size={32} />
                    <div class="row-main">
                      <div class="row-title">
                        <span class="row-name">{webhook.name}</span>
                      </div>
                      <div class="row-detail muted small">Created {formatFullTime(webhook.created_at)}</div>
                    </div>
                    <div class="row-actions">
                      <CopyButton class="secondary small" text={webhookUrl(webhook)} label="Copy URL" name={`Copy URL of ${webhook.name}`} />
                      <button type="button" class="secondary small" aria-label={`Regenerate URL of ${webhook.name}`} onClick={() => setConfirm({ kind: "regenerate", webhook })}>
                        Regenerate URL
                      </button>
                      <button type="button" class="danger small" aria-label={`Delete ${webhook.name}`} onClick={() => setConfirm({ kind: "delete", webhook })}>
                        Delete
                      </button>
                    </div>
                  </li>
                ))}
              </ul>
            </section>
          );
        })}
      {confirm?.kind === "regenerate" && (
        <ConfirmDialog
          title={`Regenerate the URL of ${confirm.webhook.name}?`}
          confirm="Regenerate URL"
          onClose={() => setConfirm(null)}
          onConfirm={async () => {
            const updated = await rest.request("regenerateWebhookToken", { params: { id: confirm.webhook.id } });
            replace(updated.channel_id, (list) => list.map((w) => (w.id === updated.id ? updated : w)));
          }}
        >
          <p>The current URL stops working at once; services that use it need the new one.</p>
        </ConfirmDialog>
      )}
      {confirm?.kind === "delete" && (
        <ConfirmDialog
          title={`Delete the webhook ${confirm.webhook.name}?`}
          confirm="Delete webhook"
          onClose={() => setConfirm(null)}
          onConfirm={async () => {
            await rest.request("deleteWebhook", { params: { id: confirm.webhook.id } });
            replace(confirm.webhook.channel_id, (list) => list.filter((w) => w.id !== confirm.webhook.id));
          }}
        >
          <p>Its URL stops working. Messages it posted stay.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}

function CreateWebhook({ channels, onCreated }: { channels: Channel[]; onCreated: (webhook: Webhook) => void }) {
  const [name, setName] = useState("");
  const [channelId, setChannelId] = useState(channels.find((c) => c.type === "text")?.id ?? channels[0]!.id);
  const action = useAction();
  return (
    <form
      class="form settings-card"
      aria-labelledby="webhook-create"
      onSubmit={async (event) => {
        event.preventDefault();
        const ok = await action.run(async () => onCreated(await rest.request("createChannelWebhook", { params: { id: channelId }, body: { name: name.trim() } })));
        if (ok) setName("");
      }}
    >
      <h2 id="webhook-create">Create a webhook</h2>
      <div class="field-row">
        <label class="field grow">
          <span>Webhook name</span>
          <input value={name} required maxLength={LIMITS.webhook.nameLength} placeholder="Deploy bot" onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label class="field">
          <span>Channel</span>
          <select value={channelId} onChange={(e) => setChannelId(e.currentTarget.value)}>
            {channels.map((c) => (
              <option key={c.id} value={c.id}>
                {c.type === "voice" ? "🔊 " : "#"}
                {c.name}
              </option>
            ))}
          </select>
        </label>
      </div>
      <ErrorAlert message={action.error} />
      <div class="actions">
        <button type="submit" class="primary" disabled={action.busy || !name.trim()}>
          Create webhook
        </button>
      </div>
    </form>
  );
}
