/**
 * The start of stored content for a short preview (a reply's quote), cut where no markup is
 * broken: a cut inside a mention or a custom emoji (`<@id>`, `<#id>`, `<:name:id>`) moves to
 * before it, so the preview never shows half of one as text. Pure.
 */
const MARKUP = /<(?:@[!&]?|#|a?:[\w-]{1,32}:)[0-9a-fA-F-]{36}>/g;

export function contentPreview(content: string, max: number): string {
  if (content.length <= max) return content;
  let cut = max;
  for (const match of content.matchAll(MARKUP)) {
    const start = match.index!;
    if (start >= max) break;
    if (start + match[0].length > max) cut = start;
  }
  return content.slice(0, cut);
}
