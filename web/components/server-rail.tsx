import { useState } from "preact/hooks";
import { store } from "../state/app-state.ts";
import { Avatar } from "./avatar.tsx";
import { CreateServerDialog, JoinServerDialog } from "./server-dialogs.tsx";
import { Icon } from "./icons.tsx";

/** The left rail: direct messages, the reader's servers, and the buttons to create or join one. */
export function ServerRail({ activeServerId }: { activeServerId: string }) {
  const [dialog, setDialog] = useState<"create" | "join" | null>(null);
  const servers = store.servers.value;
  return (
    <nav class="rail" aria-label="Servers">
      <a class={`rail-item home${activeServerId === "@me" ? " active" : ""}`} href="/channels/@me" aria-label="Direct messages" title="Direct messages" aria-current={activeServerId === "@me" ? "page" : undefined}>
        <Icon name="chat" size={24} />
      </a>
      <hr />
      <ul>
        {servers?.map((server) => (
          <li key={server.id}>
            <a
              class={`rail-item${server.id === activeServerId ? " active" : ""}`}
              href={`/channels/${server.id}`}
              aria-label={server.name}
              title={server.name}
              aria-current={server.id === activeServerId ? "page" : undefined}
            >
              <Avatar name={server.name} src={server.icon} size={48} />
            </a>
          </li>
        ))}
      </ul>
      {store.serversError.value && <p class="error small" role="alert">{store.serversError.value}</p>}
      <button type="button" class="rail-item add" aria-label="Create a server" title="Create a server" onClick={() => setDialog("create")}>
        <Icon name="plus" size={24} />
      </button>
      <button type="button" class="rail-item add" aria-label="Join a server" title="Join a server" onClick={() => setDialog("join")}>
        <Icon name="join" size={22} />
      </button>
      {dialog === "create" && <CreateServerDialog onClose={() => setDialog(null)} />}
      {dialog === "join" && <JoinServerDialog onClose={() => setDialog(null)} />}
    </nav>
  );
}
