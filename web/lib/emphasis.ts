/**
 * Discord's inline emphasis (`***both***`, `**bold**`, `__underline__`, `~~strike~~`, `||spoiler||`,
 * `*italic*`, `_italic_`) over a segment of message text whose mentions, emoji, links and masked
 * links are already tokens (each stands in the text as one placeholder character). Pure.
 *
 * The rules are those of seven lazy regular expressions (`\*\*(?=\S)([\s\S]*?\S)\*\*` and its
 * siblings; a spoiler's inside may start and end with white space, `\|\|([\s\S]+?)\|\|`): the leftmost span of any rule wins (ties go to the rule listed first), its inside is
 * parsed again, and so is the text after it, each as a string of its own. Run as regular
 * expressions over what is left after every span, that costs quadratic time (an opener with no
 * closer makes the engine scan to the end from every opener, again for every span), so a crafted
 * 4,000-character message took tens of milliseconds. Here each rule keeps its next opener and
 * next closer as the whole segment sees them (`Marks`, found by forward scans that together read
 * the segment once), and finding a rule's leftmost span in any part of the segment is two
 * look-ups: the closers a part offers do not depend on the opener, so when the part's first
 * opener has no closer after it, no later opener has one either.
 */
import type { RichNode } from "./rich-node.ts";

type Emphasis = "bold" | "italic" | "underline" | "strike" | "spoiler";

interface Rule {
  /** The node the span makes, and for `***` the one inside it. */
  kinds: [Emphasis] | [Emphasis, Emphasis];
  marker: string;
  /** The marker's character (each marker repeats one). */
  code: number;
  /** A character (besides white space) that may not stand first or last inside the span. */
  barred: number;
  /** Underscores count only at word edges, so snake_case stays as it is. */
  wordEdges: boolean;
  /** Whether white space may stand first or last inside (a spoiler's `|| a ||`). */
  spaceInside: boolean;
}

const STAR = 0x2a;
const UNDERSCORE = 0x5f;
const TILDE = 0x7e;
const PIPE = 0x7c;
const RULES: Rule[] = [
  { kinds: ["bold", "italic"], marker: "***", code: STAR, barred: -1, wordEdges: false, spaceInside: false },
  { kinds: ["bold"], marker: "**", code: STAR, barred: -1, wordEdges: false, spaceInside: false },
  { kinds: ["underline"], marker: "__", code: UNDERSCORE, barred: -1, wordEdges: false, spaceInside: false },
  { kinds: ["strike"], marker: "~~", code: TILDE, barred: -1, wordEdges: false, spaceInside: false },
  { kinds: ["spoiler"], marker: "||", code: PIPE, barred: -1, wordEdges: false, spaceInside: true },
  { kinds: ["italic"], marker: "*", code: STAR, barred: STAR, wordEdges: false, spaceInside: false },
  { kinds: ["italic"], marker: "_", code: UNDERSCORE, barred: UNDERSCORE, wordEdges: true, spaceInside: false },
];

/** The characters of a regular expression's `\s`. */
function isSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/** The characters of a regular expression's `\w`. */
function isWord(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === UNDERSCORE;
}

/** Where a segment's placeholders stand, in order, and the token each one stands for. */
export interface Placeholders {
  at: number[];
  tokens: RichNode[];
}

/** The index of the first value of an ascending list that is at least `from` (the length when none is). */
function firstIndexFrom(list: number[], from: number): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (list[mid]! < from) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Whether `c` may stand first or last inside a span (NaN: past the end of the text). */
function insideOk(rule: Rule, c: number): boolean {
  return !Number.isNaN(c) && (rule.spaceInside || !isSpace(c)) && c !== rule.barred;
}

/**
 * Where the rule's first marker at or after `from` starts, or -1. A loop over the characters, not
 * `indexOf`: the next marker is most often a few characters on, where the call itself costs
 * Bun's engine more than the characters.
 */
function nextMarker(text: string, rule: Rule, from: number): number {
  const length = rule.marker.length;
  let run = 0;
  for (let i = from; i < text.length; i++) {
    if (text.charCodeAt(i) !== rule.code) run = 0;
    else if (++run === length) return i - length + 1;
  }
  return -1;
}

/** Whether the rule's marker starts at `i`. */
function markerAt(text: string, rule: Rule, i: number): boolean {
  for (let j = 0; j < rule.marker.length; j++) if (text.charCodeAt(i + j) !== rule.code) return false;
  return true;
}

/** What an opener at `i` of a part starting at `start` needs besides its marker: a character inside, and for `_` no word before it. */
function opensAround(text: string, rule: Rule, i: number, start: number): boolean {
  if (!insideOk(rule, text.charCodeAt(i + rule.marker.length))) return false;
  return !rule.wordEdges || i === start || !isWord(text.charCodeAt(i - 1));
}

/** What a closer after `k`, in a part ending at `end`, needs besides its marker: `k` itself inside, and for `_` no word after it. */
function closesAround(text: string, rule: Rule, k: number, end: number): boolean {
  if (!insideOk(rule, text.charCodeAt(k))) return false;
  const after = k + 1 + rule.marker.length;
  return !rule.wordEdges || after === end || !isWord(text.charCodeAt(after));
}

/**
 * One rule's marks in a segment, as the whole segment sees them: the first opener (where a
 * marker starts) and the first closer (the last character inside before a marker) at or after a
 * position. Found by scanning forward from where the question is asked, and the answer kept: the
 * parse asks about positions that never go back (its parts go left to right, a span's inside
 * after its opener, the rest after its closer), so a kept answer serves every later question up
 * to it, and each scan starts past the last one's end; one rule's scans together read the
 * segment at most once for openers and once for closers. A question about an earlier position
 * scans again from there, so the answers never depend on that order, only the time does.
 */
class Marks {
  /** No opener stands in [openFrom, openAt); openAt is one, or -1 when none stands from openFrom to the end. */
  private openFrom = -1;
  private openAt = -1;
  private closeFrom = -1;
  private closeAt = -1;

  constructor(
    private readonly text: string,
    readonly rule: Rule,
  ) {}

  opener(from: number): number {
    if (this.openFrom !== -1 && from >= this.openFrom && (this.openAt === -1 || this.openAt >= from)) return this.openAt;
    const { text, rule } = this;
    let i = nextMarker(text, rule, from);
    while (i !== -1 && !opensAround(text, rule, i, 0)) i = nextMarker(text, rule, i + 1);
    this.openFrom = from;
    this.openAt = i;
    return i;
  }

  closer(from: number): number {
    if (this.closeFrom !== -1 && from >= this.closeFrom && (this.closeAt === -1 || this.closeAt >= from)) return this.closeAt;
    const { text, rule } = this;
    let marker = nextMarker(text, rule, from + 1);
    while (marker !== -1 && !closesAround(text, rule, marker - 1, text.length)) marker = nextMarker(text, rule, marker + 1);
    this.closeFrom = from;
    this.closeAt = marker === -1 ? -1 : marker - 1;
    return this.closeAt;
  }
}

class Segment {
  /** The rules whose marker the segment holds, in the rules' order. */
  private readonly marks: Marks[];
  /** The last character inside the span `spanIn` found. */
  private last = -1;

  constructor(
    private readonly text: string,
    private readonly placeholders: Placeholders,
  ) {
    this.marks = RULES.filter((rule) => text.includes(rule.marker)).map((rule) => new Marks(text, rule));
  }

  /**
   * The opener of the rule's leftmost span in [start, end), or -1; its last character inside goes
   * to `last`. A part sees the segment's marks, except at its own edges: there an underscore's
   * neighbour outside the part does not count, as it would not for a regular expression run on
   * the part alone.
   */
  private spanIn(rule: Rule, marks: Marks, start: number, end: number): number {
    let open = marks.opener(start);
    if (rule.wordEdges && open !== start && markerAt(this.text, rule, start) && opensAround(this.text, rule, start, start)) open = start;
    if (open === -1) return -1;
    const from = open + rule.marker.length;
    let last = from < end ? marks.closer(from) : -1;
    if (last !== -1 && last + 1 + rule.marker.length > end) last = -1;
    if (last === -1 && rule.wordEdges) {
      const atEnd = end - 1 - rule.marker.length;
      if (atEnd >= from && markerAt(this.text, rule, atEnd + 1) && closesAround(this.text, rule, atEnd, end)) last = atEnd;
    }
    this.last = last;
    return last === -1 ? -1 : open;
  }

  /** The nodes of [start, end), appended to `out`. */
  parse(start: number, end: number, out: RichNode[]): void {
    while (start < end) {
      let rule: Rule | null = null;
      let open = -1;
      let last = -1;
      for (const marks of this.marks) {
        const at = this.spanIn(marks.rule, marks, start, end);
        if (at !== -1 && (rule === null || at < open)) {
          rule = marks.rule;
          open = at;
          last = this.last;
        }
      }
      if (!rule) break;
      this.plain(start, open, out);
      const children: RichNode[] = [];
      this.parse(open + rule.marker.length, last + 1, children);
      const inner = rule.kinds[1];
      out.push(inner ? { kind: rule.kinds[0], children: [{ kind: inner, children }] } : { kind: rule.kinds[0], children });
      start = last + 1 + rule.marker.length;
    }
    this.plain(start, end, out);
  }

  /** Text and tokens, with no emphasis. */
  private plain(start: number, end: number, out: RichNode[]): void {
    const { at, tokens } = this.placeholders;
    let from = start;
    for (let i = firstIndexFrom(at, start); i < at.length && at[i]! < end; i++) {
      if (at[i]! > from) out.push({ kind: "text", text: this.text.slice(from, at[i]) });
      out.push(tokens[i]!);
      from = at[i]! + 1;
    }
    if (end > from) out.push({ kind: "text", text: this.text.slice(from, end) });
  }
}

/** The emphasis and tokens of a segment in which each token stands as one placeholder character. */
export function emphasize(text: string, placeholders: Placeholders): RichNode[] {
  const out: RichNode[] = [];
  new Segment(text, placeholders).parse(0, text.length, out);
  return out;
}
