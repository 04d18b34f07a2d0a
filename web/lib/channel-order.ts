/**
 * Moving channels within and across categories, and categories among themselves, as the
 * channel list shows them (web/lib/channel-tree.ts): the layout, one step up or down, where an
 * item is (said aloud), and the bodies of the reorder routes (docs/channels.md). Pure.
 */
import type { Category, Channel } from "./wire-types.ts";
import { channelTree } from "./channel-tree.ts";
import { sameIds } from "./reorder.ts";

/** The channel list's groups in order: uncategorized channels first (`category: null`, kept even when empty), then each category. */
export type ChannelLayout = { category: string | null; ids: string[] }[];

export function channelLayout(channels: Channel[], categories: Category[]): ChannelLayout {
  const groups = channelTree(channels, categories);
  const layout: ChannelLayout = groups.map((g) => ({ category: g.category?.id ?? null, ids: g.channels.map((c) => c.id) }));
  if (layout[0]?.category !== null) layout.unshift({ category: null, ids: [] });
  return layout;
}

/** Whether a draft layout still holds exactly the live channels and categories. */
export function layoutFits(draft: ChannelLayout, live: ChannelLayout): boolean {
  return (
    sameIds(
      draft.map((g) => g.category ?? ""),
      live.map((g) => g.category ?? ""),
    ) && sameIds(draft.flatMap((g) => g.ids), live.flatMap((g) => g.ids))
  );
}

function locate(layout: ChannelLayout, id: string): { group: number; index: number } | null {
  for (const [group, g] of layout.entries()) {
    const index = g.ids.indexOf(id);
    if (index !== -1) return { group, index };
  }
  return null;
}

/** `layout` with `id` put in the group of `category` at `index` (clamped). */
export function placeChannel(layout: ChannelLayout, id: string, category: string | null, index: number): ChannelLayout {
  return layout.map((g) => {
    const ids = g.ids.filter((x) => x !== id);
    if (g.category !== category) return { ...g, ids };
    const at = Math.max(0, Math.min(index, ids.length));
    return { ...g, ids: [...ids.slice(0, at), id, ...ids.slice(at)] };
  });
}

/**
 * One step up or down in the list as read: within its group, else to the end of the group
 * above or the start of the group below; null at the very top or bottom.
 */
export function stepChannel(layout: ChannelLayout, id: string, by: -1 | 1): ChannelLayout | null {
  const at = locate(layout, id);
  if (!at) return null;
  const group = layout[at.group]!;
  const index = at.index + by;
  if (index >= 0 && index < group.ids.length) return placeChannel(layout, id, group.category, index);
  const next = layout[at.group + by];
  if (!next) return null;
  return placeChannel(layout, id, next.category, by === -1 ? next.ids.length : 0);
}

/** "in Voice, position 2 of 3" or "without a category, position 1 of 1". */
export function channelWhere(layout: ChannelLayout, id: string, categoryName: (id: string) => string): string {
  const at = locate(layout, id);
  if (!at) return "";
  const group = layout[at.group]!;
  const place = group.category === null ? "without a category" : `in ${categoryName(group.category)}`;
  return `${place}, position ${at.index + 1} of ${group.ids.length}`;
}

/**
 * The reorder body that puts `id` where `layout` has it: its group's channels numbered 0, 1, ...
 * in order (positions order channels within a group only), the moved one with its category.
 * Null when it is where it already was.
 */
export function channelPlacement(
  layout: ChannelLayout,
  live: ChannelLayout,
  id: string,
): { id: string; position: number; category_id?: string | null }[] | null {
  const at = locate(layout, id);
  const was = locate(live, id);
  if (!at || !was) return null;
  const group = layout[at.group]!;
  if (group.category === live[was.group]!.category && at.index === was.index) return null;
  return group.ids.map((x, position) => (x === id ? { id: x, position, category_id: group.category } : { id: x, position }));
}

/** Categories in the order shown (the uncategorized group is not one). */
export const categoryOrder = (layout: ChannelLayout): string[] => layout.flatMap((g) => (g.category === null ? [] : [g.category]));

/** `layout` with the categories in `order` (the uncategorized group stays first). */
export function withCategoryOrder(layout: ChannelLayout, order: string[]): ChannelLayout {
  const byId = new Map(layout.map((g) => [g.category, g]));
  return [byId.get(null) ?? { category: null, ids: [] }, ...order.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []))];
}
