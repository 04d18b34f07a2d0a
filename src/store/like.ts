/** A LIKE pattern matching `text` anywhere, with `%`, `_` and `\` taken literally (use `ESCAPE '\'`). */
export const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
