/**
 * The timing loop of bench/web-parser.ts. It imports neither Bun nor Node, so the same code runs
 * in Bun and, bundled (bench/web-parser-page.ts), in Chromium, whose engine is the one the app's
 * readers have.
 */
import { LONG_MESSAGES } from "../test/web/long-messages.ts";
import { parseRich } from "../web/lib/markdown.ts";
import { medianRange } from "./quantile.ts";

export interface ParserCase {
  name: string;
  chars: number;
  parse_us: number;
  escape_us: number;
  parse_over_escape: number;
  /** The parse time of the whole message over that of its first quarter: about 4 when linear, 16 when quadratic. */
  growth: number;
}

const ESCAPES: Record<number, string> = { 0x26: "&amp;", 0x3c: "&lt;", 0x3e: "&gt;", 0x22: "&quot;", 0x27: "&#39;" };

/** The baseline. Written out as a loop: `replace` with a regular expression answers text with nothing to escape from a cache. */
function escapeHtml(text: string): string {
  let out = "";
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x26 && c !== 0x3c && c !== 0x3e && c !== 0x22 && c !== 0x27) continue;
    out += text.slice(from, i) + ESCAPES[c]!;
    from = i + 1;
  }
  return out + text.slice(from);
}

/** What each call returns is kept, so the work cannot be optimised away. */
let sink = 0;

/** µs per call of `run` on `text`, over about `ms` milliseconds. */
function perCall(run: (text: string) => { length: number }, text: string, ms: number): number {
  for (let i = 0; i < 20; i++) sink += run(text).length;
  let calls = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    for (let i = 0; i < 10; i++) sink += run(text).length;
    calls += 10;
    now = performance.now();
  }
  return ((now - start) * 1000) / calls;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** Each message: `rounds` rounds, each timing the parse, the escape and the parse of the first quarter in turn; medians. */
export function measureParser({ rounds, ms }: { rounds: number; ms: number }): { cases: ParserCase[]; sink: boolean } {
  // Every case once before any is timed, so the first ones do not pay for compiling the parser.
  for (const { content } of LONG_MESSAGES) perCall(parseRich, content, ms / 2);
  const cases = LONG_MESSAGES.map(({ name, content }) => {
    const parse: number[] = [];
    const escape: number[] = [];
    const quarter: number[] = [];
    const head = content.slice(0, content.length >> 2);
    for (let r = 0; r < rounds; r++) {
      parse.push(perCall(parseRich, content, ms));
      escape.push(perCall(escapeHtml, content, ms));
      quarter.push(perCall(parseRich, head, ms / 2));
    }
    const parseUs = medianRange(parse).median;
    const escapeUs = medianRange(escape).median;
    return {
      name,
      chars: content.length,
      parse_us: round2(parseUs),
      escape_us: round2(escapeUs),
      parse_over_escape: round2(parseUs / escapeUs),
      growth: round2(parseUs / medianRange(quarter).median),
    };
  });
  return { cases, sink: sink > 0 };
}
