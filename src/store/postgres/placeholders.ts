/**
 * The repositories write statements with SQLite's placeholders (`?`, `?1`, `$name`); PostgreSQL
 * takes `$1..$n`. This rewrites a statement once, when it is prepared, and says how to order a
 * call's parameters: `names` for `$name` statements (their values come in one object), null for
 * positional ones. Quoted strings, quoted identifiers and comments are left as they are.
 */
interface PostgresText {
  text: string;
  names: string[] | null;
}

export function toPostgresPlaceholders(sql: string): PostgresText {
  let out = "";
  let next = 0;
  let positional = false;
  const names: string[] = [];
  for (let i = 0; i < sql.length; ) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      const end = closing(sql, i, c);
      out += sql.slice(i, end);
      i = end;
    } else if (c === "-" && sql[i + 1] === "-") {
      const end = sql.indexOf("\n", i);
      const stop = end < 0 ? sql.length : end;
      out += sql.slice(i, stop);
      i = stop;
    } else if (c === "?") {
      const digits = /^\d+/.exec(sql.slice(i + 1))?.[0];
      positional = true;
      out += `$${digits ?? ++next}`;
      i += 1 + (digits?.length ?? 0);
    } else if (c === "$" && /[A-Za-z_]/.test(sql[i + 1] ?? "")) {
      const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(sql.slice(i + 1))![0];
      let index = names.indexOf(name);
      if (index < 0) index = names.push(name) - 1;
      out += `$${index + 1}`;
      i += 1 + name.length;
    } else {
      out += c;
      i++;
    }
  }
  if (positional && names.length) throw new Error(`A statement mixes ? and $name placeholders: ${sql}`);
  return { text: out, names: names.length ? names : null };
}

/** The index just past the quote that closes the one at `start` (a doubled quote is part of the text). */
function closing(sql: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === quote) {
      if (sql[i + 1] === quote) i += 2;
      else return i + 1;
    } else i++;
  }
  return i;
}

/** A call's parameters in `$1..$n` order: an object's values by `names`, or the positional values. */
export function orderedParams(names: string[] | null, params: unknown[], sql: string): unknown[] {
  if (names === null) return params;
  const values = params[0] as Record<string, unknown> | undefined;
  return names.map((name) => {
    const value = values?.[name];
    // bun:sqlite (strict) refuses a missing named parameter; so does this side.
    if (value === undefined) throw new Error(`Missing parameter $${name} for: ${sql}`);
    return value;
  });
}
