/**
 * Prefix searches over a stored, lowered name (`server_members.username_lower`, migration 21):
 * the name with A-Z lowered and nothing else changed (`Dialect.asciiLower` in SQL, `asciiLower`
 * here), compared byte by byte (SQLite's BINARY, PostgreSQL's COLLATE "C"). A prefix is then one
 * index range, `from <= key < to`, with plain parameters: no LIKE pattern to escape, and a plan
 * that stays an index range when PostgreSQL switches a prepared statement to its generic plan.
 */

/** `text` with the letters A-Z lowered, every other character kept (SQLite's lower() without ICU). */
export const asciiLower = (text: string): string => text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());

const MAX_CODE_POINT = 0x10ffff;

/**
 * The keys that start with `prefix` (already lowered) are exactly those in `[from, to)`, in
 * code point order, which is UTF-8's byte order: `to` is the prefix with its last code point
 * raised by one (past the surrogates, which no string stores), a last U+10FFFF dropped first.
 * A prefix made of U+10FFFF alone has no such bound: `to` is null, no upper limit.
 */
export function prefixRange(prefix: string): { from: string; to: string | null } {
  const points = Array.from(prefix, (c) => c.codePointAt(0)!);
  while (points.length > 0 && points.at(-1) === MAX_CODE_POINT) points.pop();
  if (points.length === 0) return { from: prefix, to: null };
  let last = points.pop()! + 1;
  if (last === 0xd800) last = 0xe000;
  return { from: prefix, to: String.fromCodePoint(...points, last) };
}
