/**
 * The quick switcher's answers (Ctrl+K, docs/web.md "Keyboard"): servers, channels and DMs whose
 * name matches what was typed, best first. Pure.
 */
import { channelTree } from "./channel-tree.ts";
import type { Category, Channel } from "./wire-types.ts";

export interface SwitchTarget {
  kind: "server" | "channel" | "dm";
  id: string;
  /** The name searched and shown. */
  name: string;
  /** Where it is: the server of a channel. */
  detail?: string;
  url: string;
}

export interface SwitchSources {
  servers: { id: string; name: string; channels: Channel[]; categories: Category[] }[];
  dms: { id: string; name: string }[];
}

/** The most answers shown at once; more typing narrows them. */
export const MAX_SWITCH_RESULTS = 20;

/** Every place the reader can open, in the order the app shows them: DMs, then each server and its channels. */
export function switchTargets(sources: SwitchSources): SwitchTarget[] {
  const targets: SwitchTarget[] = sources.dms.map((dm) => ({ kind: "dm", id: dm.id, name: dm.name, url: `/channels/@me/${dm.id}` }));
  for (const server of sources.servers) {
    targets.push({ kind: "server", id: server.id, name: server.name, url: `/channels/${server.id}` });
    for (const group of channelTree(server.channels, server.categories)) {
      for (const channel of group.channels) {
        targets.push({ kind: "channel", id: channel.id, name: channel.name, detail: server.name, url: `/channels/${server.id}/${channel.id}` });
      }
    }
  }
  return targets;
}

/** Lower is better: the whole name, its start, a word's start, anywhere; null when it does not match. */
function rank(name: string, query: string): number | null {
  const lower = name.toLocaleLowerCase();
  if (lower === query) return 0;
  if (lower.startsWith(query)) return 1;
  const at = lower.indexOf(query);
  if (at < 0) return null;
  return /[\s\-_.]/.test(lower[at - 1]!) ? 2 : 3;
}

/**
 * The targets matching `query` (case-insensitive; a leading `#` asks for channels only, `@` for
 * DMs only, `*` for servers only, as Discord's switcher does), best first and, within a rank, in
 * the app's order; at most MAX_SWITCH_RESULTS. An empty query answers the first ones as shown.
 */
export function quickSwitch(targets: SwitchTarget[], typed: string): SwitchTarget[] {
  let query = typed.trim().toLocaleLowerCase();
  const only = ({ "#": "channel", "@": "dm", "*": "server" } as const)[query[0] as "#" | "@" | "*"];
  if (only) query = query.slice(1).trimStart();
  const pool = only ? targets.filter((t) => t.kind === only) : targets;
  if (!query) return pool.slice(0, MAX_SWITCH_RESULTS);
  const ranked: { target: SwitchTarget; rank: number; order: number }[] = [];
  pool.forEach((target, order) => {
    const r = rank(target.name, query);
    if (r !== null) ranked.push({ target, rank: r, order });
  });
  ranked.sort((a, b) => a.rank - b.rank || a.order - b.order);
  return ranked.slice(0, MAX_SWITCH_RESULTS).map((r) => r.target);
}
