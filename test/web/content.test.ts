/** Mention parsing, markdown and outgoing mention encoding (web/lib/content.ts). */
import { expect, test } from "bun:test";
import { encodeMentions, mentionedUserIds, parseContent, plainText } from "../../web/lib/content.ts";
import { parseRich } from "../../web/lib/markdown.ts";
import { LONG_MESSAGES } from "./long-messages.ts";
import { show } from "./rich-markup.ts";

const U = "01a20800-c4e8-7038-887d-a4220bb2df5c";
const C = "01a20800-c4e8-7038-887d-a4220bb2df5d";
const R = "01a20800-c4e8-7038-887d-a4220bb2df5e";
const E = "01a20800-c4e8-7038-887d-a4220bb2df5f";

test("parseContent finds user, role and channel mentions, custom emoji, @everyone and links", () => {
  expect(parseContent(`hi <@${U}> and <@!${U.toUpperCase()}>, see <#${C}> with <@&${R}> <:party_parrot:${E}> <a:spin:${E}> @everyone @here`)).toEqual([
    { kind: "text", text: "hi " },
    { kind: "user", id: U },
    { kind: "text", text: " and " },
    { kind: "user", id: U },
    { kind: "text", text: ", see " },
    { kind: "channel", id: C },
    { kind: "text", text: " with " },
    { kind: "role", id: R },
    { kind: "text", text: " " },
    { kind: "emoji", name: "party_parrot", id: E, animated: false },
    { kind: "text", text: " " },
    { kind: "emoji", name: "spin", id: E, animated: true },
    { kind: "text", text: " " },
    { kind: "everyone", text: "@everyone" },
    { kind: "text", text: " " },
    { kind: "everyone", text: "@here" },
  ]);
});

test("links stop before closing punctuation but keep balanced parentheses", () => {
  expect(parseContent("see https://example.com/a.")).toEqual([
    { kind: "text", text: "see " },
    { kind: "link", url: "https://example.com/a" },
    { kind: "text", text: "." },
  ]);
  expect(parseContent("(https://example.com/a) and https://en.wikipedia.org/wiki/Fire_(disambiguation)!")).toEqual([
    { kind: "text", text: "(" },
    { kind: "link", url: "https://example.com/a" },
    { kind: "text", text: ") and " },
    { kind: "link", url: "https://en.wikipedia.org/wiki/Fire_(disambiguation)" },
    { kind: "text", text: "!" },
  ]);
});

test("what is not a mention stays text", () => {
  expect(parseContent("<@not-a-uuid> <#> a@everyone.com javascript:alert(1) ftp://x")).toEqual([{ kind: "text", text: "<@not-a-uuid> <#> a@everyone.com javascript:alert(1) ftp://x" }]);
  expect(parseContent("")).toEqual([]);
});

test("mentionedUserIds lists the users a message mentions", () => {
  expect(mentionedUserIds(`<@${U}> <@&${R}> <#${C}>`)).toEqual([U]);
});

test("plainText, where images cannot be shown (a notification): custom emoji as :name:, mentions by name", () => {
  const names = { user: (id: string) => (id === U ? "alice" : undefined), channel: (id: string) => (id === C ? "general" : undefined) };
  expect(plainText(`<:party_parrot:${E}> and <a:spin:${E}> for <@${U}> in <#${C}>, <@&${R}> and @here`, names)).toBe(":party_parrot: and :spin: for @alice in #general, @role and @here");
  expect(plainText(`<@${C}> https://example.com/a`)).toBe("@someone https://example.com/a");
});

test("parseRich: bold, italic, underline, strike, code and code blocks, around mentions", () => {
  expect(parseRich(`**bold <@${U}>** and *it* _also_ __under__ ~~gone~~ \`x*y*\``)).toEqual([
    { kind: "bold", children: [{ kind: "text", text: "bold " }, { kind: "user", id: U }] },
    { kind: "text", text: " and " },
    { kind: "italic", children: [{ kind: "text", text: "it" }] },
    { kind: "text", text: " " },
    { kind: "italic", children: [{ kind: "text", text: "also" }] },
    { kind: "text", text: " " },
    { kind: "underline", children: [{ kind: "text", text: "under" }] },
    { kind: "text", text: " " },
    { kind: "strike", children: [{ kind: "text", text: "gone" }] },
    { kind: "text", text: " " },
    { kind: "code", text: "x*y*" },
  ]);
  expect(parseRich("before\n```ts\nconst a = **1**;\n```\nafter")).toEqual([
    { kind: "text", text: "before\n" },
    { kind: "codeblock", text: "const a = **1**;", language: "ts" },
    { kind: "text", text: "after" },
  ]);
  expect(parseRich("***both***")).toEqual([{ kind: "bold", children: [{ kind: "italic", children: [{ kind: "text", text: "both" }] }] }]);
});

test("parseRich leaves snake_case, lone markers and emoji names alone", () => {
  expect(parseRich("snake_case_name and 2 * 3 * 4")).toEqual([{ kind: "text", text: "snake_case_name and 2 * 3 * 4" }]);
  expect(parseRich(`<:a_b:${E}> x <:c_d:${E}>`)).toEqual([
    { kind: "emoji", name: "a_b", id: E, animated: false },
    { kind: "text", text: " x " },
    { kind: "emoji", name: "c_d", id: E, animated: false },
  ]);
  expect(parseRich("https://example.com/a_b_c")).toEqual([{ kind: "link", url: "https://example.com/a_b_c" }]);
});

test("encodeMentions turns @member and #channel into markup, and leaves the rest", () => {
  const lookup = { users: [{ id: U, username: "Alice" }], channels: [{ id: C, name: "general" }] };
  expect(encodeMentions("hi @alice, see #general.", lookup)).toBe(`hi <@${U}>, see <#${C}>.`);
  expect(encodeMentions("@Alice.", lookup)).toBe(`<@${U}>.`);
  expect(encodeMentions("mail alice@example.com, @bob, #random, x#general", lookup)).toBe("mail alice@example.com, @bob, #random, x#general");
  expect(encodeMentions("@everyone", lookup)).toBe("@everyone");
  // Long runs of what may end a name (a crafted composer text) keep their dots.
  expect(encodeMentions(`hi @alice${".".repeat(3990)}`, lookup)).toBe(`hi <@${U}>${".".repeat(3990)}`);
  expect(encodeMentions(`@${".-".repeat(1999)}a`, lookup)).toBe(`@${".-".repeat(1999)}a`);
});

test("parseRich: the edges of a span, nesting, and text after a span read on its own", () => {
  const cases: [string, string][] = [
    ["**a <@U> b**", "<b>a {user} b</b>"],
    ["**__~~*x*~~__**", "<b><u><s><i>x</i></s></u></b>"],
    ["***a**", "<b>*a</b>"],
    ["**a*", "*<i>a</i>"],
    ["*a**b*", "<i>a</i><i>b</i>"],
    ["*a *b*", "<i>a *b</i>"],
    ["_a_b_", "<i>a_b</i>"],
    ["a_b_ c", "a_b_ c"],
    ["__init__ and _x_", "<u>init</u> and <i>x</i>"],
    // The text after a span is read as a string of its own: its first `_` has nothing before it.
    ["__a___b_", "<u>a</u><i>b</i>"],
    ["_<@U>_", "<i>{user}</i>"],
    ["** a**", "** a**"],
    ["~~ a~~", "~~ a~~"],
    ["**x\ny**", "<b>x\ny</b>"],
    ["*`a`*", "*<code>a</code>*"],
    ["```\nunclosed **b**", "```\nunclosed <b>b</b>"],
    ["a ``` b ``` c", "a <pre> b </pre> c"],
    ["|| a spoiler, spaces and all ||", "<sp> a spoiler, spaces and all </sp>"],
    ["[text](https://x.y/(a))", "<ml https://x.y/(a)>text</ml>"],
    // A private-use character in the text is text, never taken for a token.
    ["\ue000 <@U>", "\ue000 {user}"],
  ];
  for (const [content, expected] of cases) expect([content, show(parseRich(content.replaceAll("<@U>", `<@${U}>`)))]).toEqual([content, expected]);
});

test("parseRich on long crafted messages: the output, whatever the time (bench/web-parser.ts times it)", () => {
  for (const { name, content, expected } of LONG_MESSAGES) expect([name, show(parseRich(content))]).toEqual([name, expected]);
});
