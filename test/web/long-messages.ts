/**
 * Realistic and crafted messages of about 4,000 characters (the server's limit on content), with
 * what parseRich makes of them as short markup (test/web/rich-markup.ts): test/web/content.test.ts
 * checks the output, bench/web-parser.ts the time. The crafted ones are what made the old
 * regular-expression parser quadratic (long runs of one marker, openers with no closer, links with
 * unbalanced parentheses) and what could make the block syntax so (quotes in quotes, a line
 * marker on every line, masked links with no address or no end, fences that never close).
 */

const U = "01a20800-c4e8-7038-887d-a4220bb2df5c";

export const LONG_MESSAGES: { name: string; content: string; expected: string }[] = [
  {
    name: "a chatty message",
    content: `hey <@${U}> check **this** out https://example.com/a_(b) and _that_ ~~old~~ \`code\` `.repeat(34),
    expected: "hey {user} check <b>this</b> out <a https://example.com/a_(b)> and <i>that</i> <s>old</s> <code>code</code> ".repeat(34),
  },
  { name: "plain prose", content: "Nothing special in this sentence, just words. ".repeat(87), expected: "Nothing special in this sentence, just words. ".repeat(87) },
  { name: "a code block", content: "```ts\n" + "const a = b * c; // **not bold**\n".repeat(117) + "```", expected: "<pre ts>" + "const a = b * c; // **not bold**\n".repeat(117).slice(0, -1) + "</pre>" },
  { name: "*", content: "*".repeat(4000), expected: "<b><i>*</i></b>".repeat(571) + "***" },
  { name: "_", content: "_".repeat(4000), expected: "<u>_</u>".repeat(800) },
  { name: "~", content: "~".repeat(4000), expected: "<s>~</s>".repeat(800) },
  { name: "`", content: "`".repeat(4000), expected: "<pre></pre>".repeat(666) + "````" },
  { name: "|", content: "|".repeat(4000), expected: "<sp>|</sp>".repeat(800) },
  { name: "<@", content: "<@".repeat(2000), expected: "<@".repeat(2000) },
  { name: "<:", content: "<:".repeat(2000), expected: "<:".repeat(2000) },
  { name: "[", content: "[".repeat(4000), expected: "[".repeat(4000) },
  { name: "(", content: "(".repeat(4000), expected: "(".repeat(4000) },
  { name: "http:// run", content: "http://".repeat(571), expected: `<a ${"http://".repeat(571)}>` },
  { name: "http:// spaced", content: "http:// ".repeat(500), expected: "http:// ".repeat(500) },
  { name: "a link and unbalanced )", content: "http://x" + ")".repeat(3992), expected: "<a http://x>" + ")".repeat(3992) },
  { name: "an unclosed fence", content: "```" + "a".repeat(3997), expected: "```" + "a".repeat(3997) },
  { name: "an unclosed fence with a language", content: "```ts\n" + "a *b* ".repeat(665), expected: "```ts\n" + "a <i>b</i> ".repeat(665) },
  { name: "a* alternating", content: "a*".repeat(2000), expected: "a<i>a</i>".repeat(1000) },
  { name: "a_ alternating", content: "a_".repeat(2000), expected: "a_".repeat(2000) },
  { name: "unclosed *", content: "*a ".repeat(1333), expected: "*a ".repeat(1333) },
  { name: "unclosed _", content: "_a ".repeat(1333), expected: "_a ".repeat(1333) },
  { name: "unclosed **", content: "**a ".repeat(1000), expected: "**a ".repeat(1000) },
  { name: "closers only", content: " a*".repeat(1333), expected: " a*".repeat(1333) },
  {
    name: "every marker unclosed, code spans between",
    content: "*a _b ~~c __d **e `f ".repeat(190),
    expected: "*a _b ~~c __d **e " + "<code>f *a _b ~~c __d **e </code>f *a _b ~~c __d **e ".repeat(95).slice(0, -"f *a _b ~~c __d **e ".length) + "f ",
  },
  { name: "a quote of nested quote markers", content: "> > > > > a\n".repeat(333), expected: `<q>${"> > > > a\n".repeat(333).slice(0, -1)}</q>` },
  { name: "a quote to the end of line markers", content: ">>> > - # ".repeat(400), expected: `<q>${"> - # >>> ".repeat(400).slice(0, -">>> ".length)}</q>` },
  { name: "many || spoilers", content: "||a ".repeat(1000), expected: "<sp>a </sp>a ".repeat(500) },
  { name: "many <t:", content: "<t:".repeat(1333), expected: "<t:".repeat(1333) },
  { name: "many timestamps", content: "<t:1700000000:R> ".repeat(235), expected: "{t 1700000000 R} ".repeat(235) },
  { name: "list markers, nested", content: "- a\n  - b\n1. c\n".repeat(266), expected: "<ul><li>a<ul><li>b</li></ul></li></ul><ol><li>c</li></ol>".repeat(266) },
  { name: "heading and subtext lines", content: "# a\n## b\n-# c\n".repeat(285), expected: "<h1>a</h1><h2>b</h2><small>c</small>".repeat(285) },
  { name: "# without a space", content: "#".repeat(4000), expected: "#".repeat(4000) },
  { name: "fences with languages, unclosed one after another", content: "```js\na ".repeat(500), expected: "<pre js>a </pre>js\na ".repeat(250) },
  { name: "masked links", content: "[a](https://x.y) ".repeat(235), expected: "<ml https://x.y>a</ml> ".repeat(235) },
  { name: "masked links with no end", content: "[a](https://x".repeat(307), expected: `[a](<a ${"https://x[a](".repeat(307).slice(0, -"[a](".length)}>` },
  { name: "[ without ](", content: "[a".repeat(2000), expected: "[a".repeat(2000) },
];
