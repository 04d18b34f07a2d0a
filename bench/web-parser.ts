/**
 * The web app's message parser: `parseRich` (web/lib/markdown.ts: blocks, code blocks, inline
 * code, masked links, mentions, emoji, links, timestamps, emphasis and spoilers) on the realistic
 * and crafted messages of about 4,000 characters in test/web/long-messages.ts, against a baseline
 * measured in the same rounds: HTML-escaping the same text (one pass over every character,
 * building a new string), the least any renderer of the text does. The loop
 * (bench/web-parser-run.ts) runs in this process (Bun's engine), then bundled in Debian's
 * Chromium (V8, the readers' engine; skipped without it).
 *
 * For each message: µs per parse and per escape (median over rounds; each round times both for
 * `--ms` of parses each, in turn), their ratio, and `growth`: the parse time of the whole message
 * over that of its first quarter. A linear parser grows about 4x from a quarter to the whole; a
 * quadratic one about 16x.
 * The figures are printed, never judged: the machine may be shared (the load average is printed).
 *
 *   bun bench/web-parser.ts [--rounds 5] [--ms 100] [--quick]   (quick: 3 rounds of 20 ms, about 10 s)
 */
import { existsSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { CHROMIUM, CHROMIUM_FLAGS } from "../test/web/browser/harness.ts";
import { argOf, hasFlag, log } from "./fixture.ts";
import { measureParser, type ParserCase } from "./web-parser-run.ts";

const QUICK = hasFlag("quick");
const ROUNDS = Number(argOf("rounds", QUICK ? "3" : "5"));
const MS = Number(argOf("ms", QUICK ? "20" : "100"));

function report(engine: string, cases: ParserCase[]) {
  for (const c of cases) {
    log(`${engine} ${c.name.padEnd(42)} ${String(c.parse_us).padStart(8)} µs a parse, escape ${String(c.escape_us).padStart(6)} µs (x${c.parse_over_escape}), quarter to whole x${c.growth}`);
  }
  const worst = cases.reduce((a, b) => (b.parse_us > a.parse_us ? b : a));
  log(`${engine}: slowest ${worst.name} at ${worst.parse_us} µs a parse (${worst.parse_us < 1000 ? "under" : "over"} 1 ms)`);
  return { slowest: { name: worst.name, parse_us: worst.parse_us }, cases };
}

async function inChromium(): Promise<{ cases: ParserCase[] } | { skipped: string }> {
  if (!existsSync(CHROMIUM)) return { skipped: `no Chromium at ${CHROMIUM}` };
  const build = await Bun.build({ entrypoints: [join(import.meta.dir, "web-parser-page.ts")], target: "browser", minify: true });
  if (!build.success) throw new AggregateError(build.logs, "bundling the parser for Chromium failed");
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
  try {
    const page = await browser.newPage();
    await page.addScriptTag({ content: await build.outputs[0]!.text() });
    return await page.evaluate(
      (options) => (globalThis as unknown as { measureParser: typeof measureParser }).measureParser(options),
      { rounds: ROUNDS, ms: MS },
    );
  } finally {
    await browser.close();
  }
}

const bun = report("bun", measureParser({ rounds: ROUNDS, ms: MS }).cases);
const page = await inChromium();
const chromiumResult = "skipped" in page ? page : report("chromium", page.cases);
if ("skipped" in page) log(`chromium skipped: ${page.skipped}`);
const load = loadavg().map((x) => Math.round(x * 100) / 100);
log(`load average ${load.join(" ")}`);
console.log(JSON.stringify({ bench: "web-parser", quick: QUICK, rounds: ROUNDS, ms: MS, load_average: load, bun, chromium: chromiumResult }));
