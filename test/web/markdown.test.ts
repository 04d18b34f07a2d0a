/** Discord's block markdown, spoilers, masked links and timestamps (web/lib/markdown.ts, web/lib/content.ts), and the parser's linear time. */
import { expect, test } from "bun:test";
import { parseContent, safeUrlHost } from "../../web/lib/content.ts";
import { formatRelativeTime, formatTimestamp } from "../../web/lib/format.ts";
import { parseRich } from "../../web/lib/markdown.ts";
import { show } from "./rich-markup.ts";

const U = "01a20800-c4e8-7038-887d-a4220bb2df5c";

const check = (cases: [string, string][]) => {
  for (const [content, expected] of cases) expect([content, show(parseRich(content.replaceAll("<@U>", `<@${U}>`)))]).toEqual([content, expected]);
};

test("quotes: `> ` one line (consecutive lines make one quote), `>>> ` to the end; no nesting; `>` needs its space", () => {
  check([
    ["> quoted", "<q>quoted</q>"],
    ["> one\n> two\nafter", "<q>one\ntwo</q>after"],
    ["before\n> q", "before\n<q>q</q>"],
    [">>> all\nof\nthis", "<q>all\nof\nthis</q>"],
    ["a\n>>> rest\n> still", "a\n<q>rest\n> still</q>"],
    ["> > nested", "<q>> nested</q>"],
    [">no space", ">no space"],
    ["a > b", "a > b"],
    [">>>no space", ">>>no space"],
    ["> **bold\n> across**", "<q><b>bold\nacross</b></q>"],
    ["> # heading in a quote\n> - item", "<q><h1>heading in a quote</h1><ul><li>item</li></ul></q>"],
  ]);
});

test("headings `#`, `##`, `###` and subtext `-#` need the space and some text", () => {
  check([
    ["# One", "<h1>One</h1>"],
    ["## Two\n### Three", "<h2>Two</h2><h3>Three</h3>"],
    ["#### Four", "#### Four"],
    ["#no space", "#no space"],
    ["# ", "# "],
    ["a # b", "a # b"],
    ["-# small print", "<small>small print</small>"],
    ["-#no", "-#no"],
    ["# **bold** <@U> `code`", "<h1><b>bold</b> {user} <code>code</code></h1>"],
    ["# A\n\n# B", "<h1>A</h1>\n<h1>B</h1>"],
    ["text\n# Title\nmore", "text\n<h1>Title</h1>more"],
  ]);
});

test("lists: `- `, `* ` and `1. `, one level of nesting by two spaces of indent", () => {
  check([
    ["- a\n- b", "<ul><li>a</li><li>b</li></ul>"],
    ["* a\n* *b*", "<ul><li>a</li><li><i>b</i></li></ul>"],
    ["1. one\n2. two", "<ol><li>one</li><li>two</li></ol>"],
    ["3. three\n4. four", "<ol 3><li>three</li><li>four</li></ol>"],
    ["- a\n  - a1\n  - a2\n- b", "<ul><li>a<ul><li>a1</li><li>a2</li></ul></li><li>b</li></ul>"],
    ["1. a\n  - sub\n2. b", "<ol><li>a<ul><li>sub</li></ul></li><li>b</li></ol>"],
    ["  - indented first", "<ul><li>indented first</li></ul>"],
    ["- a\n1. b", "<ul><li>a</li></ul><ol><li>b</li></ol>"],
    ["- a\n\n- b", "<ul><li>a</li></ul>\n<ul><li>b</li></ul>"],
    ["-no space", "-no space"],
    ["1.no space", "1.no space"],
    ["- ", "- "],
    ["2 * 3 * 4", "2 * 3 * 4"],
  ]);
});

test("code blocks and code spans stop every other syntax inside them", () => {
  check([
    ["```\n# not a heading\n> not a quote\n- not an item\n||no|| [x](https://a.b)\n```", "<pre># not a heading\n> not a quote\n- not an item\n||no|| [x](https://a.b)</pre>"],
    ["# title ```js\nconst a = 1;\n``` after", "<h1>title <pre js>const a = 1;</pre> after</h1>"],
    ["`||x||` and `[a](https://b.c)`", "<code>||x||</code> and <code>[a](https://b.c)</code>"],
    ["> ```\n> code\n> ```", "<q><pre>> code\n> </pre></q>"],
    // The newline that ends a closing fence's line is the block's own: no empty line under it.
    ["```\ncode\n```\nafter\n\nand more", "<pre>code</pre>after\n\nand more"],
  ]);
});

test("spoilers: `||text||`, across other formatting; unclosed stays text", () => {
  check([
    ["||secret||", "<sp>secret</sp>"],
    ["a ||b **c**|| d", "a <sp>b <b>c</b></sp> d"],
    ["**||both||**", "<b><sp>both</sp></b>"],
    ["||unclosed", "||unclosed"],
    ["|single|", "|single|"],
    ["||a|| ||b", "<sp>a</sp> ||b"],
    ["||<@U>||", "<sp>{user}</sp>"],
    ["||[x](https://a.b)||", "<sp><ml https://a.b>x</ml></sp>"],
  ]);
});

test("masked links: only http(s) addresses with a host; the text may be formatted but holds no link", () => {
  check([
    ["[docs](https://example.com/docs)", "<ml https://example.com/docs>docs</ml>"],
    ["see [**bold** text](http://a.b/c?d=1)!", "see <ml http://a.b/c?d=1><b>bold</b> text</ml>!"],
    ["[click](javascript:alert(1))", "[click](javascript:alert(1))"],
    ["[x](data:text/html,hi)", "[x](data:text/html,hi)"],
    ["[x](ftp://a.b)", "[x](ftp://a.b)"],
    // No host, no masked link (what follows the scheme is a plain address, as it was before).
    ["[x](https:///a)", "[x](<a https:///a>)"],
    ["[x](https://?q)", "[x](<a https://?q>)"],
    ["[ ](https://a.b)", "[ ](<a https://a.b>)"],
    ["[https://good.com](https://evil.com)", "<ml https://evil.com>https://good.com</ml>"],
    ["[a](https://a.b", "[a](<a https://a.b>"],
    ["[a] (https://a.b)", "[a] (<a https://a.b>)"],
    ["[a](https://a b)", "[a](<a https://a> b)"],
    ["**[a](https://a.b)**", "<b><ml https://a.b>a</ml></b>"],
  ]);
  expect(safeUrlHost("https://example.com:8080/x")).toBe("example.com:8080");
  expect(safeUrlHost("javascript:alert(1)")).toBeNull();
  expect(safeUrlHost("https://")).toBeNull();
});

test("timestamps: `<t:unix>` and `<t:unix:style>`; anything else stays text", () => {
  check([
    ["<t:1700000000>", "{t 1700000000 f}"],
    ["at <t:1700000000:R>!", "at {t 1700000000 R}!"],
    ["<t:-1:d> <t:0:T>", "{t -1 d} {t 0 T}"],
    ["<t:abc>", "<t:abc>"],
    ["<t:1700000000:x>", "<t:1700000000:x>"],
    ["<t:99999999999999>", "<t:99999999999999>"],
    ["<t:9999999999999>", "<t:9999999999999>"],
    ["**<t:0:R>**", "<b>{t 0 R}</b>"],
  ]);
  expect(parseContent("<t:8640000000000:D>")).toEqual([{ kind: "timestamp", unix: 8.64e12, style: "D" }]);
  const opts = { locale: "en-US", timeZone: "UTC" };
  expect(formatTimestamp(1700000000, "f", 0, opts)).toBe("November 14, 2023 at 10:13 PM");
  expect(formatTimestamp(1700000000, "t", 0, opts)).toBe("10:13 PM");
  expect(formatTimestamp(1700000000, "T", 0, opts)).toBe("10:13:20 PM");
  expect(formatTimestamp(1700000000, "d", 0, opts)).toBe("11/14/23");
  expect(formatTimestamp(1700000000, "D", 0, opts)).toBe("November 14, 2023");
  expect(formatTimestamp(1700000000, "F", 0, opts)).toBe("Tuesday, November 14, 2023 at 10:13 PM");
  const now = 1700000000 * 1000;
  expect(formatRelativeTime(1700000000 + 300, now, opts)).toBe("in 5 minutes");
  expect(formatRelativeTime(1700000000 - 3 * 86400, now, opts)).toBe("3 days ago");
  expect(formatRelativeTime(1700000000 - 10, now, opts)).toBe("10 seconds ago");
  expect(formatRelativeTime(1700000000 + 2 * 365 * 86400, now, opts)).toBe("in 2 years");
  expect(formatRelativeTime(1700000000 + 90, now, { locale: "fr" })).toBe("dans 2 minutes");
});

/** A deterministic generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** The text in the nodes, markers dropped, links' addresses kept: enough to see that no text is lost or made up. */
function textOf(nodes: ReturnType<typeof parseRich>): string {
  return nodes
    .map((node) => {
      if (node.kind === "maskedLink") return textOf(node.children) + node.url;
      if ("children" in node) return textOf(node.children);
      if (node.kind === "link") return node.url;
      if (node.kind === "list") return node.items.map(textOf).join("");
      if (node.kind === "codeblock") return (node.language ?? "") + node.text;
      if (node.kind === "text" || node.kind === "code") return node.text;
      return "";
    })
    .join("");
}

test("random strings of markup characters never throw, and text without markup comes back as it is", () => {
  const markup = ["*", "_", "~", "|", "`", "```", ">", "> ", ">>> ", "#", "# ", "-# ", "- ", "1. ", "  ", "\n", "[", "](", ")", "https://x.y", "<t:", "0>", ":R>", "<@", "a", "b", " "];
  const plain = ["a", "b", " ", "\n", "word", ".", ",", "é", "😀", "\ufffc"];
  const next = random(44);
  for (let n = 0; n < 2000; n++) {
    const pieces = Array.from({ length: 1 + Math.floor(next() * 40) }, () => markup[Math.floor(next() * markup.length)]!);
    const content = pieces.join("");
    expect(() => parseRich(content)).not.toThrow();
    // Whatever the markup, every letter of the text is still there.
    expect([content, textOf(parseRich(content)).replace(/[^ab]/g, "")]).toEqual([content, content.replace(/[^ab]/g, "")]);
    const text = Array.from({ length: 1 + Math.floor(next() * 40) }, () => plain[Math.floor(next() * plain.length)]!).join("");
    expect(parseRich(text)).toEqual([{ kind: "text", text }]);
  }
});

/**
 * Crafted inputs of each new syntax at 1,000 and 4,000 characters: a linear parser takes about
 * 4 times as long on the longer, a quadratic one 16 times. The best of several timings each, a
 * generous bound of 9 and up to three tries, so a busy machine does not fail it
 * (bench/web-parser.ts prints the times).
 */
test("the parser's time grows linearly on crafted inputs (1k to 4k characters: well under 16x)", () => {
  const units: [string, string][] = [
    ["nested quotes", "> > > > > a\n"],
    ["many ||", "||a "],
    ["[ without ](", "[a "],
    ["[a]( without an address", "[a]("],
    ["an address without )", "[a](https://x"],
    ["many <t:", "<t:1"],
    ["timestamps", "<t:1700000000:R> "],
    ["list markers", "- a\n  - b\n1. c\n"],
    ["# lines", "# a\n## b\n-# c\n"],
    ["#### without space", "####"],
    ["unclosed fences with languages", "```js\na "],
    ["a quote to the end", ">>> > - # "],
  ];
  /** ms a parse, over about `ms` milliseconds. */
  const timed = (content: string, ms: number) => {
    const start = performance.now();
    let runs = 0;
    while (performance.now() - start < ms) {
      parseRich(content);
      runs++;
    }
    return (performance.now() - start) / runs;
  };
  /** The best of several timings of each size, in turn: the engine compiles in tiers, and a collection or another process may land in any one timing. */
  const growthOf = (short: string, long: string) => {
    let bestShort = Infinity;
    let bestLong = Infinity;
    for (let round = 0; round < 6; round++) {
      bestLong = Math.min(bestLong, timed(long, 6));
      bestShort = Math.min(bestShort, timed(short, 6));
    }
    return bestLong / bestShort;
  };
  for (const [name, unit] of units) {
    const of = (chars: number) => unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars);
    const [short, long] = [of(1000), of(4000)];
    timed(short, 20);
    timed(long, 20);
    // A busy machine may slow one size's timings: up to three tries, which a quadratic parser (16x) fails every time.
    let growth = growthOf(short, long);
    for (let attempt = 1; attempt < 3 && growth >= 9; attempt++) growth = growthOf(short, long);
    expect([name, growth < 9]).toEqual([name, true]);
  }
});
