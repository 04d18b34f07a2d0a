/** The servers the bot is in (read only), with the permissions of its role there. */
import type { Application } from "../../lib/wire-types.ts";
import { rest, store } from "../../state/app-state.ts";
import { Avatar } from "../../components/avatar.tsx";
import { ErrorAlert } from "../../components/error-alert.tsx";
import { useLoad } from "../../components/use-async.ts";
import { Section } from "./portal-layout.tsx";

export function ServersSection({ app }: { app: Application }) {
  const { data: servers, error } = useLoad(() => rest.request("listApplicationServers", { params: { appId: app.id } }), [app.id]);
  const mine = new Set(store.servers.value?.map((s) => s.id) ?? []);

  return (
    <Section id="servers-heading" title="Servers" intro="Where the bot is a member. Its permissions there are its role's, which only that server's admins change.">
      <ErrorAlert message={error} />
      {servers === null && !error && (
        <p class="muted" role="status">
          Loading servers…
        </p>
      )}
      {servers?.length === 0 && <p class="empty">The bot is in no server yet. Open the invite link above to add it to one you manage.</p>}
      {servers && servers.length > 0 && (
        <ul class="bot-servers" aria-label="Servers the bot is in">
          {servers.map((server) => (
            <li key={server.id} class="bot-server">
              <Avatar name={server.name} src={server.icon} size={36} />
              <div class="bot-server-text">
                <strong>{server.name}</strong>
                <span class="muted small">
                  {server.role_id === null
                    ? "Its role was deleted: no permissions of its own."
                    : server.permission_labels.length
                      ? `${server.permission_labels.join(", ")} (${server.bot_permissions})`
                      : "No permissions of its own (0)"}
                </span>
              </div>
              {mine.has(server.id) && (
                <a class="button" href={`/channels/${server.id}`} aria-label={`Open ${server.name}`}>
                  Open
                </a>
              )}
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}
