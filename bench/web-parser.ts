/**
 * The web app's message parser (issue 39, point 14): `parseRich` (web/lib/content.ts: code blocks,
 * inline code, mentions, emoji, links, emphasis) on the realistic and crafted messages of about
 * 4,000 characters in test/web/long-messages.ts, in this process, against a baseline measured in
 * the same rounds: HTML-escaping the same text (one pass over every character, building a new
 * string), the least any renderer of the text does.
 *
 * For each message: µs per parse and per escape (median over rounds; each round times both for
 * `--ms` of parses each, in turn), their ratio, and `growth`: the parse time of the whole message
 * over that of its first quarter. A linear parser grows about 4x from a quarter to the whole; a
 * quadratic one about 16x (the old regular-expression parser took 2-14 ms on several of these).
 * The figures are printed, never judged: the machine may be shared (the load average is printed).
 *
 *   bun bench/web-parser.ts [--rounds 5] [--ms 100] [--quick]   (quick: 3 rounds of 20 ms, about 5 s)
 */
import { loadavg } from "node:os";
import { parseRich } from "../web/lib/content.ts";
import { LONG_MESSAGES } from "../test/web/long-messages.ts";
import { argOf, hasFlag, log } from "./fixture.ts";
import { medianRange } from "./quantile.ts";

const QUICK = hasFlag("quick");
const ROUNDS = Number(argOf("rounds", QUICK ? "3" : "5"));
const MS = Number(argOf("ms", QUICK ? "20" : "100"));

const ESCAPES: Record<number, string> = { 0x26: "&amp;", 0x3c: "&lt;", 0x3e: "&gt;", 0x22: "&quot;", 0x27: "&#39;" };

/** Written out as a loop: `replace` with a regular expression answers text with nothing to escape from a cache. */
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

// Every case once before any is timed, so the first ones do not pay for compiling the parser.
for (const { content } of LONG_MESSAGES) perCall(parseRich, content, MS / 2);

const cases = LONG_MESSAGES.map(({ name, content }) => {
  const parse: number[] = [];
  const escape: number[] = [];
  const quarter: number[] = [];
  const head = content.slice(0, content.length >> 2);
  for (let r = 0; r < ROUNDS; r++) {
    parse.push(perCall(parseRich, content, MS));
    escape.push(perCall(escapeHtml, content, MS));
    quarter.push(perCall(parseRich, head, MS / 2));
  }
  const parseUs = medianRange(parse).median;
  const escapeUs = medianRange(escape).median;
  const result = {
    name,
    chars: content.length,
    parse_us: round2(parseUs),
    escape_us: round2(escapeUs),
    parse_over_escape: round2(parseUs / escapeUs),
    growth: round2(parseUs / medianRange(quarter).median),
  };
  log(`${name.padEnd(42)} ${String(result.parse_us).padStart(8)} µs a parse, escape ${String(result.escape_us).padStart(6)} µs (x${result.parse_over_escape}), quarter to whole x${result.growth}`);
  return result;
});

const worst = cases.reduce((a, b) => (b.parse_us > a.parse_us ? b : a));
const load = loadavg().map(round2);
log(`slowest: ${worst.name} at ${worst.parse_us} µs a parse (${worst.parse_us < 1000 ? "under" : "over"} 1 ms); load average ${load.join(" ")}`);
console.log(JSON.stringify({ bench: "web-parser", quick: QUICK, rounds: ROUNDS, ms: MS, load_average: load, slowest: { name: worst.name, parse_us: worst.parse_us }, cases, sink: sink > 0 }));
