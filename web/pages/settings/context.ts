/** What every settings section gets. */
import type { Server } from "../../lib/wire-types.ts";
import { store } from "../../state/app-state.ts";
import type { ServerState } from "../../state/server-state.ts";
import type { SettingsAccess } from "./access.ts";

export interface SectionProps {
  server: Server;
  state: ServerState;
  access: SettingsAccess;
  meId: string;
}

/** The server as the server answered it after a change: the rail and the settings show it at once. */
export function replaceServer(server: Server): void {
  const list = store.servers.value;
  if (list) store.servers.value = list.map((s) => (s.id === server.id ? server : s));
}
