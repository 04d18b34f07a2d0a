/** What message text is parsed into (web/lib/content.ts, web/lib/markdown.ts, web/lib/emphasis.ts) and the app renders. */

/** Discord's timestamp styles: short and long time, short and long date, date and time short and long, relative. */
export type TimestampStyle = "t" | "T" | "d" | "D" | "f" | "F" | "R";

/** A piece of stored content: text, a mention, a custom emoji, `@everyone`/`@here`, a link or a timestamp `<t:unix:style>`. */
export type ContentToken =
  | { kind: "text"; text: string }
  | { kind: "user"; id: string }
  | { kind: "role"; id: string }
  | { kind: "channel"; id: string }
  | { kind: "emoji"; name: string; id: string; animated: boolean }
  | { kind: "everyone"; text: "@everyone" | "@here" }
  | { kind: "link"; url: string }
  | { kind: "timestamp"; unix: number; style: TimestampStyle };

/**
 * Message text with Discord's markdown. Blocks, at line starts: quotes (`> `, `>>> `), headings
 * (`# `, `## `, `### `), subtext (`-# `) and lists (`- `, `* `, `1. `, one level of nesting).
 * Inline, inside blocks: ``` code blocks ```, `code`, **bold**, *italic* or _italic_,
 * __underline__, ~~strike~~, ||spoilers|| and masked links [text](https://...), around the
 * tokens of `parseContent` (mentions, emoji, links and timestamps are never split by a marker).
 */
export type RichNode =
  | ContentToken
  | { kind: "bold" | "italic" | "underline" | "strike" | "spoiler"; children: RichNode[] }
  | { kind: "maskedLink"; url: string; children: RichNode[] }
  | { kind: "code"; text: string }
  | { kind: "codeblock"; text: string; language: string | null }
  | { kind: "quote"; children: RichNode[] }
  | { kind: "heading"; level: 1 | 2 | 3; children: RichNode[] }
  | { kind: "subtext"; children: RichNode[] }
  /** Each item's nodes; an item's nested list, if any, is its last node. */
  | { kind: "list"; ordered: boolean; start: number; items: RichNode[][] };
