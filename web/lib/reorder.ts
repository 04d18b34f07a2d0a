/**
 * Moving items of a list by the keyboard or by dragging (the role list, the channel list): the
 * keys a picked-up item answers and the moves themselves. Pure; the state lives in
 * web/components/use-reorder.ts.
 */

/** What a key does to a reorderable item: Space or Enter picks it up or drops it, the arrows move it, Escape puts it back. */
export type ReorderKey = "toggle" | "up" | "down" | "cancel";

export function reorderKey(key: string, holding: boolean): ReorderKey | null {
  if (key === " " || key === "Enter") return "toggle";
  if (!holding) return null;
  if (key === "ArrowUp") return "up";
  if (key === "ArrowDown") return "down";
  if (key === "Escape") return "cancel";
  return null;
}

/** `ids` with `id` moved to `index` (clamped to the list). */
export function moveTo(ids: string[], id: string, index: number): string[] {
  const rest = ids.filter((x) => x !== id);
  const at = Math.max(0, Math.min(index, rest.length));
  return [...rest.slice(0, at), id, ...rest.slice(at)];
}

/** Whether two lists of ids hold the same ids (in any order): a draft still fits the live list. */
export function sameIds(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const set = new Set(a);
  return b.every((id) => set.has(id));
}
