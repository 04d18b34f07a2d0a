/**
 * How well a typed query names something, for every search that ranks names as it types (the
 * quick switcher, emoji). Lower is better: the whole name, its start, a word's start, anywhere;
 * null when it does not match. `query` is already lower case. Pure.
 */
export function nameRank(name: string, query: string): number | null {
  const lower = name.toLocaleLowerCase();
  if (lower === query) return 0;
  if (lower.startsWith(query)) return 1;
  const at = lower.indexOf(query);
  if (at < 0) return null;
  return /[\s\-_.]/.test(lower[at - 1]!) ? 2 : 3;
}
