/**
 * Discord's markdown over stored content, as the app shows it (`parseRich`). Pure.
 *
 * Blocks, only at line starts: `> ` quotes one line (consecutive lines make one quote), `>>> `
 * quotes everything after it; quotes do not nest. `# `, `## `, `### ` headings and `-# ` subtext
 * (the space is needed, and some text after it); `- `, `* ` and `1. ` list items, two spaces or
 * more of indent nesting an item one level under the one before. A block line's own newline is
 * its end, and so is the newline after a code block's closing fence; other lines stay text with
 * their newlines (the log shows them with `pre-wrap`).
 * Inside every block: ``` code blocks ``` (found first, over the whole text, so a block's
 * syntax never reaches inside one and a line that opens one ends after it closes), then code
 * spans, which stop all other parsing inside them, then masked links `[text](https://...)`, the
 * tokens of `parseContent` (mentions, emoji, links, timestamps) and emphasis (web/lib/emphasis.ts).
 *
 * Every step is linear: each line is classified once from its first characters; fences and
 * masked links are regular expressions whose attempts cannot overlap (a fence pairs with the
 * next one, a masked link's text and address stop at the next bracket), and the emphasis has
 * its own tables. bench/web-parser.ts times crafted 4,000-character messages of every form.
 */
import { parseContent, SAFE_URL_START } from "./content.ts";
import { emphasize, type Placeholders } from "./emphasis.ts";
import type { RichNode } from "./rich-node.ts";

export type { RichNode } from "./rich-node.ts";

type ListNode = Extract<RichNode, { kind: "list" }>;

const FENCE_RE = /```(?:([\w+-]+)\n)?([\s\S]*?)```/g;
const CODE_SPAN_RE = /`([^`\n]+)`/g;
/**
 * `[text](address)`: text without brackets, a safe address that names a host (its first
 * character after `//` is not `/`, `?` or `#`) and whose parentheses pair up one level deep
 * (`https://en.wikipedia.org/wiki/Fire_(disambiguation)`); brackets end both, so no two attempts
 * read the same characters. The host itself is read when the link is shown
 * (web/components/masked-link.tsx): parsing a URL costs Chromium microseconds a link.
 */
const MASKED_LINK_RE = new RegExp(`\\[([^\\[\\]]+)\\]\\((${SAFE_URL_START}[^\\s/?#()<>\\[\\]](?:\\([^\\s()<>\\[\\]]*\\)|[^\\s()<>\\[\\]])*)\\)`, "g");

/** A character that starts a token (`<`, `@`, the `:` of `https://`), a marker or a masked link. */
const MAY_FORMAT = /[<@:*_~|[]/;

/** A character every token of `parseContent` holds: `<` (mentions, emoji, timestamps), `@` or the `:` of an address. */
const MAY_HOLD_TOKEN = /[<@:]/;

/** What stands in for a token while emphasis is parsed: neither white space, a word character nor a marker. */
const PLACEHOLDER = "\ufffc";

const SPACE = 0x20;
const HASH = 0x23;
const STAR = 0x2a;
const DASH = 0x2d;
const DOT = 0x2e;
const GT = 0x3e;

/** Inline code spans and, around them, the text's masked links, tokens and emphasis. */
function inline(text: string, out: RichNode[]): void {
  if (!text.includes("`")) return formatted(text, out, true);
  let last = 0;
  for (const match of text.matchAll(CODE_SPAN_RE)) {
    formatted(text.slice(last, match.index), out, true);
    out.push({ kind: "code", text: match[1]! });
    last = match.index! + match[0].length;
  }
  formatted(text.slice(last), out, true);
}

/**
 * A segment's masked links and tokens, each standing as one placeholder character while emphasis
 * is parsed around them; `links` is false inside a masked link's text.
 */
function formatted(text: string, out: RichNode[], links: boolean): void {
  if (!text) return;
  // Most lines of a long message hold none of it; the tokens' and emphasis' tables cost more than this look.
  if (!MAY_FORMAT.test(text)) {
    out.push({ kind: "text", text });
    return;
  }
  const parts: string[] = [];
  const placeholders: Placeholders = { at: [], tokens: [] };
  let length = 0;
  const add = (node: RichNode) => {
    if (node.kind === "text") {
      parts.push(node.text);
      length += node.text.length;
    } else {
      parts.push(PLACEHOLDER);
      placeholders.at.push(length);
      placeholders.tokens.push(node);
      length += 1;
    }
  };
  // A link inside a masked link's text would be a link inside a link: it stays text.
  const tokens = (piece: string) => {
    if (!MAY_HOLD_TOKEN.test(piece)) return add({ kind: "text", text: piece });
    for (const token of parseContent(piece)) add(!links && token.kind === "link" ? { kind: "text", text: token.url } : token);
  };
  let last = 0;
  if (links && text.includes("](")) {
    for (const match of text.matchAll(MASKED_LINK_RE)) {
      const [whole, label, url] = match as unknown as [string, string, string];
      // Text that shows nothing would hide where the link goes.
      if (!label.trim()) continue;
      tokens(text.slice(last, match.index));
      const children: RichNode[] = [];
      formatted(label, children, false);
      add({ kind: "maskedLink", url, children });
      last = match.index! + whole.length;
    }
  }
  tokens(text.slice(last));
  for (const node of emphasize(parts.join(""), placeholders)) out.push(node);
}

interface Fence {
  start: number;
  end: number;
  node: RichNode;
}

function fencesIn(text: string): Fence[] {
  if (!text.includes("```")) return [];
  return [...text.matchAll(FENCE_RE)].map((match) => ({
    start: match.index!,
    end: match.index! + match[0].length,
    node: { kind: "codeblock", text: match[2]!.replace(/^\n|\n$/g, ""), language: match[1] ?? null },
  }));
}

/** What a line is, from its first characters; `from` is where its text starts. */
type Line =
  | { kind: "plain" }
  | { kind: "quote"; from: number }
  | { kind: "heading"; level: 1 | 2 | 3; from: number }
  | { kind: "subtext"; from: number }
  | { kind: "item"; ordered: boolean; start: number; nested: boolean; from: number };

const PLAIN: Line = { kind: "plain" };

/** Whether [from, end) holds anything but white space (a heading or an item needs some text). */
function hasText(text: string, from: number, end: number): boolean {
  for (let i = from; i < end; i++) if (text.charCodeAt(i) > SPACE) return true;
  return false;
}

function classify(text: string, p: number, end: number, quotes: boolean): Line {
  const c = text.charCodeAt(p);
  if (c === GT) return quotes && text.charCodeAt(p + 1) === SPACE ? { kind: "quote", from: p + 2 } : PLAIN;
  if (c === HASH) {
    let level = 1;
    while (level <= 3 && text.charCodeAt(p + level) === HASH) level++;
    if (level > 3 || text.charCodeAt(p + level) !== SPACE || !hasText(text, p + level + 1, end)) return PLAIN;
    return { kind: "heading", level: level as 1 | 2 | 3, from: p + level + 1 };
  }
  if (c === DASH && text.charCodeAt(p + 1) === HASH && text.charCodeAt(p + 2) === SPACE) {
    return hasText(text, p + 3, end) ? { kind: "subtext", from: p + 3 } : PLAIN;
  }
  let i = p;
  while (text.charCodeAt(i) === SPACE && i - p < 8) i++;
  const nested = i - p >= 2;
  const m = text.charCodeAt(i);
  if ((m === DASH || m === STAR) && text.charCodeAt(i + 1) === SPACE && hasText(text, i + 2, end)) {
    return { kind: "item", ordered: false, start: 1, nested, from: i + 2 };
  }
  let j = i;
  while (j - i < 9 && text.charCodeAt(j) >= 0x30 && text.charCodeAt(j) <= 0x39) j++;
  if (j > i && text.charCodeAt(j) === DOT && text.charCodeAt(j + 1) === SPACE && hasText(text, j + 2, end)) {
    return { kind: "item", ordered: true, start: Number(text.slice(i, j)), nested, from: j + 2 };
  }
  return PLAIN;
}

/** One pass over the lines of a text (the whole message, or a quote's inside, where quotes are off). */
class BlockParser {
  private readonly fences: Fence[];
  /** The first fence the line ends have not passed, and the first the inline ranges have not. */
  private lineFence = 0;
  private inlineFence = 0;
  private readonly out: RichNode[] = [];
  /** The group being gathered: a run of plain lines from `plainStart`, a quote's lines, or a list. */
  private plainStart = -1;
  private quoteLines: string[] | null = null;
  private list: { node: ListNode; nested: ListNode | null } | null = null;

  constructor(
    private readonly text: string,
    private readonly quotes: boolean,
  ) {
    this.fences = fencesIn(text);
  }

  parse(): RichNode[] {
    const { text } = this;
    let p = 0;
    while (p < text.length) {
      if (this.quotes && text.startsWith(">>> ", p)) {
        this.close(p);
        this.out.push({ kind: "quote", children: new BlockParser(text.slice(p + 4), false).parse() });
        return this.out;
      }
      const end = this.lineEnd(p);
      const line = classify(text, p, end, this.quotes);
      if (line.kind === "plain") {
        if (this.plainStart === -1) {
          this.close(p);
          this.plainStart = p;
        }
      } else if (line.kind === "quote") {
        if (!this.quoteLines) this.close(p);
        (this.quoteLines ??= []).push(text.slice(line.from, end));
      } else if (line.kind === "item") {
        if (!this.list) this.close(p);
        this.item(line, end);
      } else {
        this.close(p);
        const children: RichNode[] = [];
        this.inlineRange(line.from, end, children);
        this.out.push(line.kind === "heading" ? { kind: "heading", level: line.level, children } : { kind: "subtext", children });
      }
      p = end + 1;
    }
    this.close(text.length);
    return this.out;
  }

  /** Where the line starting at `p` ends: its newline, or past the newline of a code block it opens. */
  private lineEnd(p: number): number {
    const { text, fences } = this;
    const newline = (from: number) => {
      const at = text.indexOf("\n", from);
      return at === -1 ? text.length : at;
    };
    let end = newline(p);
    for (; this.lineFence < fences.length && fences[this.lineFence]!.start < end; this.lineFence++) {
      const fence = fences[this.lineFence]!;
      if (fence.end > end) end = newline(fence.end);
    }
    return end;
  }

  /** The inline nodes of [start, end), its code blocks among them. */
  private inlineRange(start: number, end: number, out: RichNode[]): void {
    const { text, fences } = this;
    // Fences of lines read elsewhere (a quote's, parsed again as its own text) are passed over.
    while (this.inlineFence < fences.length && fences[this.inlineFence]!.start < start) this.inlineFence++;
    let from = start;
    while (this.inlineFence < fences.length && fences[this.inlineFence]!.end <= end) {
      const fence = fences[this.inlineFence++]!;
      inline(text.slice(from, fence.start), out);
      out.push(fence.node);
      from = fence.end;
      // A code block is a block of its own: the newline that ends its closing line would show as an empty line under it.
      if (from < end && text.charCodeAt(from) === 0x0a) from++;
    }
    inline(text.slice(from, end), out);
  }

  private item(line: Extract<Line, { kind: "item" }>, end: number): void {
    const children: RichNode[] = [];
    this.inlineRange(line.from, end, children);
    const list = this.list;
    if (line.nested && list) {
      let nested = list.nested;
      if (!nested || nested.ordered !== line.ordered) {
        nested = { kind: "list", ordered: line.ordered, start: line.start, items: [] };
        list.node.items.at(-1)!.push(nested);
        list.nested = nested;
      }
      nested.items.push(children);
      return;
    }
    if (!list || list.node.ordered !== line.ordered) {
      const node: ListNode = { kind: "list", ordered: line.ordered, start: line.start, items: [children] };
      this.out.push(node);
      this.list = { node, nested: null };
      return;
    }
    list.node.items.push(children);
    list.nested = null;
  }

  /** Ends the group being gathered; a plain run ends at `end`. */
  private close(end: number): void {
    if (this.plainStart !== -1) {
      this.inlineRange(this.plainStart, end, this.out);
      this.plainStart = -1;
    }
    if (this.quoteLines) {
      this.out.push({ kind: "quote", children: new BlockParser(this.quoteLines.join("\n"), false).parse() });
      this.quoteLines = null;
    }
    this.list = null;
  }
}

/** Stored content as the app shows it: blocks, and inside them code, links, tokens and emphasis. */
export function parseRich(content: string): RichNode[] {
  return new BlockParser(content, true).parse();
}
