/** What message text is parsed into (web/lib/content.ts, web/lib/emphasis.ts) and the app renders. */

/** A piece of stored content: text, a mention, a custom emoji, `@everyone`/`@here` or a link. */
export type ContentToken =
  | { kind: "text"; text: string }
  | { kind: "user"; id: string }
  | { kind: "role"; id: string }
  | { kind: "channel"; id: string }
  | { kind: "emoji"; name: string; id: string; animated: boolean }
  | { kind: "everyone"; text: "@everyone" | "@here" }
  | { kind: "link"; url: string };

/**
 * Message text with Discord's inline markdown: ``` code blocks ```, `code`, **bold**,
 * *italic* or _italic_, __underline__ and ~~strike~~, around the tokens of `parseContent`
 * (mentions, emoji and links are never split by a marker).
 */
export type RichNode =
  | ContentToken
  | { kind: "bold" | "italic" | "underline" | "strike"; children: RichNode[] }
  | { kind: "code"; text: string }
  | { kind: "codeblock"; text: string; language: string | null };
