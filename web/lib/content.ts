/**
 * Message text as the app shows it and sends it. `parseContent` splits stored content into
 * text, mentions (`<@id>`, `<@!id>`, `<@&id>`, `<#id>`), custom emoji (`<:name:id>`),
 * `@everyone`/`@here`, links and timestamps (`<t:unix>`, `<t:unix:R>`); `encodeMentions` turns
 * what a person types (`@alice`, `#general`) into the stored markup. Pure but for `plainText`'s
 * timestamps, in the reader's locale. The markdown around these tokens: web/lib/markdown.ts.
 */

import { formatTimestamp } from "./format.ts";
import type { ContentToken, TimestampStyle } from "./rich-node.ts";

/**
 * The one rule of what becomes a link: an http or https address (never `javascript:`, `data:`
 * or any other scheme), with a host. A regular expression's source, for the patterns that find
 * addresses in text (here and the masked links of web/lib/markdown.ts).
 */
export const SAFE_URL_START = "https?:\\/\\/";
const SAFE_URL = new RegExp(`^${SAFE_URL_START}`);

/** The host a safe address leads to (what a link's confirmation names), or null when it has none. */
export function safeUrlHost(url: string): string | null {
  if (!SAFE_URL.test(url)) return null;
  try {
    return new URL(url).host || null;
  } catch {
    return null;
  }
}

/** The seconds a Date can hold (±8.64e15 ms): a larger `<t:…>` stays text. */
const MAX_TIMESTAMP = 8.64e12;

const UUID = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}";

const TOKEN_RE = new RegExp(
  [
    `<@!?(?<user>${UUID})>`,
    `<@&(?<role>${UUID})>`,
    `<#(?<channel>${UUID})>`,
    `<(?<animated>a?):(?<emojiName>[\\w-]{1,32}):(?<emojiId>${UUID})>`,
    `(?<![\\w])(?<everyone>@everyone|@here)\\b`,
    `(?<url>${SAFE_URL_START}[^\\s<>]+)`,
    `<t:(?<unix>-?\\d{1,13})(?::(?<style>[tTdDfFR]))?>`,
  ].join("|"),
  "g",
);

/** Trailing punctuation that ends a sentence rather than a URL (a closing parenthesis only when unbalanced). */
function trimUrl(url: string): string {
  // Parentheses are counted once: trimming the others never changes the balance.
  let opens = 0;
  let closes = 0;
  for (let i = 0; i < url.length; i++) {
    const ch = url.charCodeAt(i);
    if (ch === 0x28) opens++;
    else if (ch === 0x29) closes++;
  }
  let end = url.length;
  while (end > 0) {
    const ch = url[end - 1]!;
    if (".,;:!?'\"".includes(ch)) end--;
    else if (ch === ")" && opens < closes) {
      end--;
      closes--;
    } else break;
  }
  return url.slice(0, end);
}

export function parseContent(content: string): ContentToken[] {
  const tokens: ContentToken[] = [];
  let last = 0;
  const pushText = (text: string) => {
    if (!text) return;
    const previous = tokens[tokens.length - 1];
    if (previous?.kind === "text") previous.text += text;
    else tokens.push({ kind: "text", text });
  };
  for (const match of content.matchAll(TOKEN_RE)) {
    const groups = match.groups!;
    const start = match.index!;
    let length = match[0].length;
    pushText(content.slice(last, start));
    if (groups.user) tokens.push({ kind: "user", id: groups.user.toLowerCase() });
    else if (groups.role) tokens.push({ kind: "role", id: groups.role.toLowerCase() });
    else if (groups.channel) tokens.push({ kind: "channel", id: groups.channel.toLowerCase() });
    else if (groups.emojiId) {
      tokens.push({ kind: "emoji", name: groups.emojiName!, id: groups.emojiId.toLowerCase(), animated: groups.animated === "a" });
    } else if (groups.everyone) tokens.push({ kind: "everyone", text: groups.everyone as "@everyone" | "@here" });
    else if (groups.unix) {
      const unix = Number(groups.unix);
      if (Math.abs(unix) <= MAX_TIMESTAMP) tokens.push({ kind: "timestamp", unix, style: (groups.style ?? "f") as TimestampStyle });
      else pushText(match[0]);
    } else {
      const url = trimUrl(groups.url!);
      length = url.length;
      tokens.push({ kind: "link", url });
    }
    last = start + length;
  }
  pushText(content.slice(last));
  return tokens;
}

/** Names for the mentions of `plainText`; an unknown one reads as a generic name. */
export interface MentionNames {
  user?: (id: string) => string | undefined;
  role?: (id: string) => string | undefined;
  channel?: (id: string) => string | undefined;
}

/** A message as plain text (a notification's body): mentions by name, custom emoji as `:name:`. */
export function plainText(content: string, names: MentionNames = {}): string {
  return parseContent(content)
    .map((token) => {
      switch (token.kind) {
        case "text":
          return token.text;
        case "user":
          return `@${names.user?.(token.id) ?? "someone"}`;
        case "role":
          return `@${names.role?.(token.id) ?? "role"}`;
        case "channel":
          return `#${names.channel?.(token.id) ?? "channel"}`;
        case "emoji":
          return `:${token.name}:`;
        case "everyone":
          return token.text;
        case "link":
          return token.url;
        case "timestamp":
          return formatTimestamp(token.unix, token.style);
      }
    })
    .join("");
}

/** The ids of the users a message mentions (to highlight a message that mentions the reader). */
export function mentionedUserIds(content: string): string[] {
  return parseContent(content).flatMap((token) => (token.kind === "user" ? [token.id] : []));
}

/**
 * `@name` of a member becomes `<@id>` and `#name` of a text channel `<#id>`, when the word
 * stands on its own (start of text or after a space) and the name matches exactly (usernames
 * ignoring case, as the server does). Anything else is left as typed.
 */
export function encodeMentions(
  text: string,
  lookup: { users: { id: string; username: string }[]; channels: { id: string; name: string }[] },
): string {
  const users = new Map(lookup.users.map((u) => [u.username.toLowerCase(), u.id]));
  const channels = new Map(lookup.channels.map((c) => [c.name, c.id]));
  return text.replace(/(^|\s)([@#])([\w.-]+)/g, (whole, lead: string, sigil: string, name: string) => {
    // A sentence may end right after the name: "thanks @bob." keeps its full stop.
    // Trimmed by a loop: `/[.-]+$/` retries from every dot of a long run, in quadratic time.
    let end = name.length;
    while (end > 0 && (name[end - 1] === "." || name[end - 1] === "-")) end--;
    const bare = name.slice(0, end);
    const rest = name.slice(bare.length);
    const id = sigil === "@" ? users.get(bare.toLowerCase()) : channels.get(bare);
    if (!id) return whole;
    return `${lead}${sigil === "@" ? `<@${id}>` : `<#${id}>`}${rest}`;
  });
}
