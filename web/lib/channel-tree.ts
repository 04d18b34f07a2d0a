/** The channel list as the sidebar shows it: uncategorized channels first, then each category with its channels. Pure. */
import type { Category, Channel } from "./wire-types.ts";

interface ChannelGroup {
  category: Category | null;
  channels: Channel[];
}

/** Position, then creation order (ids are time-ordered UUIDv7), as the server sorts. */
const byPosition = <T extends { position: number; id: string }>(a: T, b: T) => a.position - b.position || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export function channelTree(channels: Channel[], categories: Category[]): ChannelGroup[] {
  const known = new Set(categories.map((c) => c.id));
  const groups: ChannelGroup[] = [];
  const loose = channels.filter((c) => c.category_id === null || !known.has(c.category_id)).sort(byPosition);
  if (loose.length) groups.push({ category: null, channels: loose });
  for (const category of [...categories].sort(byPosition)) {
    groups.push({ category, channels: channels.filter((c) => c.category_id === category.id).sort(byPosition) });
  }
  return groups;
}

/** The channel a server opens on: its first text channel in sidebar order. */
export function firstTextChannel(channels: Channel[], categories: Category[]): Channel | undefined {
  for (const group of channelTree(channels, categories)) {
    const text = group.channels.find((c) => c.type === "text");
    if (text) return text;
  }
  return undefined;
}

/**
 * The channel before (`step` -1) or after (+1) `currentId` in sidebar order (Alt+Up/Down), or
 * undefined at either end or when `currentId` is not listed.
 */
export function adjacentChannel(channels: Channel[], categories: Category[], currentId: string, step: -1 | 1): Channel | undefined {
  const ordered = channelTree(channels, categories).flatMap((group) => group.channels);
  const at = ordered.findIndex((c) => c.id === currentId);
  return at < 0 ? undefined : ordered[at + step];
}
