import { describe, expect, test } from "bun:test";
import {
  normalizeOption,
  OPTION_TYPES as T,
  parseCommandArgs,
  parseCommandInvocation,
  rankCommands,
} from "../../../src/domain/bots/command-args.ts";
import type { CommandOption } from "../../../src/domain/bots/command-option.ts";
import { ApiError } from "../../../src/domain/shared/errors.ts";

const U = "0190a3b4-1111-7222-8333-444455556666"; // a user
const B = "0190a3b4-2222-7222-8333-444455556666"; // a bot
const R = "0190a3b4-3333-7222-8333-444455556666"; // a role
const C = "0190a3b4-4444-7222-8333-444455556666"; // a channel

const opt = (name: string, type: number = T.STRING, extra: Partial<CommandOption> = {}): CommandOption => ({
  name,
  description: "",
  type,
  required: false,
  ...extra,
});
const req = (name: string, type: number = T.STRING, extra: Partial<CommandOption> = {}) => opt(name, type, { required: true, ...extra });

describe("parseCommandInvocation (rule 1: routing flag)", () => {
  const cases: [string, string, ReturnType<typeof parseCommandInvocation>][] = [
    ["plain", "/ping", { name: "ping", args: "", routeTo: null, cleaned: "/ping" }],
    ["args kept", "/say hello  world", { name: "say", args: "hello  world", routeTo: null, cleaned: "/say hello  world" }],
    ["name lowercased", "/PiNg now", { name: "ping", args: "now", routeTo: null, cleaned: "/PiNg now" }],
    ["flag first", `/ping --__bot <@${B}> hi there`, { name: "ping", args: "hi there", routeTo: B, cleaned: "/ping hi there" }],
    ["flag middle", `/ping hi --__bot <@${B}> there`, { name: "ping", args: "hi there", routeTo: B, cleaned: "/ping hi there" }],
    ["flag last", `/ping hi there --__bot <@${B}>`, { name: "ping", args: "hi there", routeTo: B, cleaned: "/ping hi there" }],
    ["flag alone", `/ping --__bot <@${B}>`, { name: "ping", args: "", routeTo: B, cleaned: "/ping" }],
    ["flag raw id", `/ping hi --__bot ${B}`, { name: "ping", args: "hi", routeTo: B, cleaned: "/ping hi" }],
    ["flag <@!id>", `/ping --__bot <@!${B}> hi`, { name: "ping", args: "hi", routeTo: B, cleaned: "/ping hi" }],
    ["flag with =", `/ping --__bot=<@${B}> hi`, { name: "ping", args: "hi", routeTo: B, cleaned: "/ping hi" }],
    ["flag name any case", `/ping --__BOT <@${B}> hi`, { name: "ping", args: "hi", routeTo: B, cleaned: "/ping hi" }],
    ["bare flag stripped", "/ping hi --__bot", { name: "ping", args: "hi", routeTo: null, cleaned: "/ping hi" }],
    ["two flags: first routes", `/ping --__bot ${B} hi --__bot ${U}`, { name: "ping", args: "hi", routeTo: B, cleaned: "/ping hi" }],
    ["hyphen and underscore", "/my-cmd_2 x", { name: "my-cmd_2", args: "x", routeTo: null, cleaned: "/my-cmd_2 x" }],
    ["newline after name", "/say\nhello", { name: "say", args: "hello", routeTo: null, cleaned: "/say\nhello" }],
    ["not a command", "hello /ping", null],
    ["slash alone", "/", null],
    ["space after slash", "/ ping", null],
    ["33-character name", `/${"a".repeat(33)}`, null],
    ["bad character in name", "/pi.ng", null],
    ["a path is not a command", "/usr/bin", null],
  ];
  test.each(cases)("%s", (_label, content, expected) => {
    expect(parseCommandInvocation(content)).toEqual(expected);
  });
});

type OkCase = [string, string, CommandOption[], Record<string, string | number | boolean>, string];

describe("parseCommandArgs: accepted input", () => {
  const two = [opt("first"), opt("second")];
  const ban = [req("user", T.USER), opt("reason"), opt("days", T.INTEGER)];
  const mode = [req("mode", T.STRING, { choices: [{ name: "Easy", value: "e" }, { name: "Hard Mode", value: "h" }] })];
  const level = [req("level", T.INTEGER, { choices: [{ name: "low", value: 1 }, { name: "high", value: 10 }] })];
  const cases: OkCase[] = [
    // rule 6: no definitions
    ["no options: raw text in value", "  hello <@x> --foo  ", [], { value: "hello <@x> --foo" }, "hello <@x> --foo"],
    ["no options: empty", "", [], { value: "" }, ""],
    ["no options: routing flag removed", `hi --__bot <@${B}>`, [], { value: "hi" }, "hi"],
    // rule 3: positional
    ["positional by order", "a b", two, { first: "a", second: "b" }, "a b"],
    ["lone multi-word last option stays unquoted", "a b c  d", two, { first: "a", second: "b c  d" }, "a b c  d"],
    ["single STRING option takes everything", "hello big world", [opt("text")], { text: "hello big world" }, "hello big world"],
    ["quoted first when later filled", '"a b" c', two, { first: "a b", second: "c" }, "a b c"],
    ["quoted last", 'a "b c"', two, { first: "a", second: "b c" }, "a b c"],
    ["smart quotes", "“a b” c", two, { first: "a b", second: "c" }, "a b c"],
    ["quotes inside a rest-of-text value are kept", 'he said "hi"', [opt("text")], { text: 'he said "hi"' }, 'he said "hi"'],
    ["unmatched quote is a character", '"a b', two, { first: '"a', second: "b" }, '"a b'],
    ["optional options may be left out", "a", two, { first: "a" }, "a"],
    ["empty quoted string", '"" b', two, { first: "", second: "b" }, " b"],
    // rule 2: named
    ["named", "--second b --first a", two, { first: "a", second: "b" }, "a b"],
    ["named with =", "--first=a --second=b", two, { first: "a", second: "b" }, "a b"],
    ["named quoted with =", '--first="a b" c', two, { first: "a b", second: "c" }, "a b c"],
    ["named flag is case-insensitive", "--FIRST a", two, { first: "a" }, "a"],
    ["named quotes stripped", '--first "a b" --second "c"', two, { first: "a b", second: "c" }, "a b c"],
    ["named unquoted STRING runs to the next flag", "--first a b --second c", two, { first: "a b", second: "c" }, "a b c"],
    ["named then positional fills the rest", "--n 5 hi there", [opt("n", T.INTEGER), opt("text")], { n: 5, text: "hi there" }, "5 hi there"],
    ["positional around a named INTEGER joins the rest", "hi --n 5 there", [opt("text"), opt("n", T.INTEGER)], { text: "hi there", n: 5 }, "hi there 5"],
    ["mix: positional first, named later", `<@${U}> --reason being rude --days 3`, ban, { user: U, reason: "being rude", days: 3 }, `<@${U}> being rude 3`],
    ["mix: named user, positional reason", `--user <@${U}> spamming links 2`, ban, { user: U, reason: "spamming links", days: 2 }, `<@${U}> spamming links 2`],
    ["surplus words go to the last STRING option", `<@${U}> being very rude 7`, ban, { user: U, reason: "being very rude", days: 7 }, `<@${U}> being very rude 7`],
    ["quoted reason, days left out", `<@${U}> "spamming links"`, ban, { user: U, reason: "spamming links" }, `<@${U}> spamming links`],
    ["bare BOOLEAN flag is true", "--silent", [opt("silent", T.BOOLEAN)], { silent: true }, "true"],
    // rule 1 inside args: the flag never reaches options or args
    ["routing flag first", `--__bot <@${B}> a b`, two, { first: "a", second: "b" }, "a b"],
    ["routing flag between values", `a --__bot <@${B}> b`, two, { first: "a", second: "b" }, "a b"],
    ["routing flag last", `a b --__bot ${B}`, two, { first: "a", second: "b" }, "a b"],
    ["routing flag inside quotes", `"a --__bot <@${B}>" b`, two, { first: "a", second: "b" }, "a b"],
    ["routing flag right after a quote", `"--__bot <@${B}> a b" c`, two, { first: " a b", second: "c" }, " a b c"],
    ["routing flag among named", `--first a --__bot <@${B}> --second b`, two, { first: "a", second: "b" }, "a b"],
    // rule 4: mentions
    ["USER mention", `<@${U}>`, [opt("u", T.USER)], { u: U }, `<@${U}>`],
    ["USER nickname mention", `<@!${U}>`, [opt("u", T.USER)], { u: U }, `<@!${U}>`],
    ["USER raw id", U, [opt("u", T.USER)], { u: U }, U],
    ["USER id lowercased", U.toUpperCase(), [opt("u", T.USER)], { u: U }, U.toUpperCase()],
    ["CHANNEL mention", `<#${C}>`, [opt("c", T.CHANNEL)], { c: C }, `<#${C}>`],
    ["CHANNEL raw id", C, [opt("c", T.CHANNEL)], { c: C }, C],
    ["ROLE mention", `<@&${R}>`, [opt("r", T.ROLE)], { r: R }, `<@&${R}>`],
    ["ROLE raw id", R, [opt("r", T.ROLE)], { r: R }, R],
    ["MENTIONABLE user", `<@${U}>`, [opt("m", T.MENTIONABLE)], { m: U }, `<@${U}>`],
    ["MENTIONABLE role", `<@&${R}>`, [opt("m", T.MENTIONABLE)], { m: R }, `<@&${R}>`],
    ["STRING unwraps every mention", `hi <@${U}> in <#${C}> as <@&${R}>`, [opt("text")], { text: `hi ${U} in ${C} as ${R}` }, `hi <@${U}> in <#${C}> as <@&${R}>`],
    // rule 5: choices
    ["choice by value", "e", mode, { mode: "e" }, "e"],
    ["choice by name", "Easy", mode, { mode: "e" }, "Easy"],
    ["choice by name, any case", "easy", mode, { mode: "e" }, "easy"],
    ["multi-word choice name as the last option", "hard mode", mode, { mode: "h" }, "hard mode"],
    ["numeric choice by name", "high", level, { level: 10 }, "high"],
    ["numeric choice by value", "1", level, { level: 1 }, "1"],
    // types
    ["INTEGER", "-42", [opt("n", T.INTEGER)], { n: -42 }, "-42"],
    ["INTEGER with +", "+7", [opt("n", T.INTEGER)], { n: 7 }, "+7"],
    ["INTEGER at bounds", "10", [opt("n", T.INTEGER, { min_value: 1, max_value: 10 })], { n: 10 }, "10"],
    ["NUMBER float", "3.5", [opt("x", T.NUMBER)], { x: 3.5 }, "3.5"],
    ["NUMBER exponent", "-1e3", [opt("x", T.NUMBER)], { x: -1000 }, "-1e3"],
    ["NUMBER leading dot", ".25", [opt("x", T.NUMBER, { min_value: 0, max_value: 1 })], { x: 0.25 }, ".25"],
    ...(["true", "1", "YES", "y", "On"].map((w) => [`BOOLEAN ${w}`, w, [opt("b", T.BOOLEAN)], { b: true }, w]) as OkCase[]),
    ...(["false", "0", "No", "n", "OFF"].map((w) => [`BOOLEAN ${w}`, w, [opt("b", T.BOOLEAN)], { b: false }, w]) as OkCase[]),
    ["STRING at max_length", "abc", [opt("s", T.STRING, { max_length: 3 })], { s: "abc" }, "abc"],
    ["negative number is a value, not a flag", "-5 x", [opt("n", T.INTEGER), opt("s")], { n: -5, s: "x" }, "-5 x"],
    ["a quoted flag is a value", '"--first"', two, { first: "--first" }, "--first"],
  ];
  test.each(cases)("%s", (_label, input, options, expected, args) => {
    expect(parseCommandArgs(input, options)).toEqual({ ok: true, options: expected, args });
  });
});

describe("parseCommandArgs: user-facing errors", () => {
  const two = [opt("first"), opt("second")];
  const cases: [string, string, CommandOption[], string][] = [
    ["missing required", "", [req("target")], "Missing required option: target"],
    ["missing required after a given one", "a", [opt("a"), req("b", T.INTEGER)], "Missing required option: b"],
    ["only the routing flag", `--__bot <@${B}>`, [req("text")], "Missing required option: text"],
    ["unknown flag", "--foo 1", two, "Unknown option: --foo"],
    ["given twice", "--first a --first b", two, "Option first was given more than once"],
    ["flag without a value", "--first", two, "Option first needs a value"],
    ["flag followed by a flag", "--first --second b", two, "Option first needs a value"],
    ["INTEGER not a number", "abc", [opt("count", T.INTEGER)], "Option count must be an integer"],
    ["INTEGER float", "1.5", [opt("count", T.INTEGER)], "Option count must be an integer"],
    ["INTEGER beyond safe integers", "9007199254740993", [opt("count", T.INTEGER)], "Option count must be an integer"],
    ["INTEGER below min", "0", [opt("count", T.INTEGER, { min_value: 1 })], "Option count must be at least 1"],
    ["INTEGER above max", "11", [opt("count", T.INTEGER, { max_value: 10 })], "Option count must be at most 10"],
    ["NUMBER not a number", "1.2.3", [opt("x", T.NUMBER)], "Option x must be a number"],
    ["NUMBER Infinity", "Infinity", [opt("x", T.NUMBER)], "Option x must be a number"],
    ["NUMBER above max", "2.5", [opt("x", T.NUMBER, { max_value: 2 })], "Option x must be at most 2"],
    ["BOOLEAN word", "maybe", [opt("b", T.BOOLEAN)], "Option b must be true or false"],
    ["USER plain name", "bob", [opt("user", T.USER)], "Option user must be a user mention or id"],
    ["USER given a role mention", `<@&${R}>`, [opt("user", T.USER)], "Option user must be a user mention or id"],
    ["CHANNEL given a user mention", `<@${U}>`, [opt("where", T.CHANNEL)], "Option where must be a channel mention or id"],
    ["ROLE given a channel mention", `<#${C}>`, [opt("role", T.ROLE)], "Option role must be a role mention or id"],
    ["MENTIONABLE given a channel", `<#${C}>`, [opt("who", T.MENTIONABLE)], "Option who must be a user or role mention or id"],
    ["choice not listed", "medium", [opt("mode", T.STRING, { choices: [{ name: "a", value: "1" }, { name: "b", value: "2" }] })], "Option mode must be one of: a, b"],
    ["STRING over max_length", "abcd", [opt("s", T.STRING, { max_length: 3 })], "Option s must be at most 3 characters"],
    ["equal count is positional: quote a multi-word reason", `<@${U}> spamming links`, [req("user", T.USER), opt("reason"), opt("days", T.INTEGER)], "Option days must be an integer"],
    ["too many values for a non-STRING last option", "1 2", [opt("n", T.INTEGER)], "Too many values: unexpected 2"],
    ["too many values when every option is named", '--n 1 "x y"', [opt("n", T.INTEGER)], 'Too many values: unexpected "x y"'],
  ];
  test.each(cases)("%s", (_label, input, options, error) => {
    expect(parseCommandArgs(input, options)).toEqual({ ok: false, error });
  });
});

describe("normalizeOption", () => {
  const fails = (input: unknown, message: string) => {
    let error: unknown;
    try {
      normalizeOption(input, 2);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    expect((error as ApiError).message).toBe(message);
  };

  test.each([
    ["string", 3], ["STR", 3], ["text", 3], ["integer", 4], ["int", 4], ["boolean", 5], ["bool", 5],
    ["user", 6], ["member", 6], ["channel", 7], ["role", 8], ["mentionable", 9], ["number", 10],
    ["float", 10], ["double", 10], [4, 4], [10, 10], ["8", 8], [undefined, 3], ["weird", 3], [1, 3], [99, 3], [null, 3],
  ] as [unknown, number][])("type %p -> %p", (type, code) => {
    expect(normalizeOption({ name: "x", type }, 0).type).toBe(code);
  });

  test("defaults and lowercasing", () => {
    expect(normalizeOption({ name: "My-Opt" }, 0)).toEqual({ name: "my-opt", description: "", type: 3, required: false });
  });

  test.each([[0, 1], [-5, 1], [1, 1], [250.7, 250], [6000, 6000], [9000, 6000]])("max_length %p clamps to %p", (given, stored) => {
    expect(normalizeOption({ name: "s", type: "string", max_length: given }, 0).max_length).toBe(stored);
  });

  test("fields that do not apply to the type are dropped", () => {
    expect(normalizeOption({ name: "n", type: "string", min_value: 1, channel_types: [0] }, 0)).toEqual({ name: "n", description: "", type: 3, required: false });
    expect(normalizeOption({ name: "n", type: "int", max_length: 5, min_value: 1, max_value: 3 }, 0)).toEqual({ name: "n", description: "", type: 4, required: false, min_value: 1, max_value: 3 });
    expect(normalizeOption({ name: "c", type: "channel", channel_types: [0, 2] }, 0).channel_types).toEqual([0, 2]);
  });

  test("autocomplete stored as true when set; choices kept", () => {
    const o = normalizeOption({ name: "a", required: true, autocomplete: 1, choices: [{ name: "One", value: 1 }, { name: "Two", value: "2" }] }, 0);
    expect(o).toEqual({ name: "a", description: "", type: 3, required: true, autocomplete: true, choices: [{ name: "One", value: 1 }, { name: "Two", value: "2" }] });
    expect(normalizeOption({ name: "a", autocomplete: false }, 0).autocomplete).toBeUndefined();
  });

  test.each([
    ["not an object", "x", "options.2: must be an object"],
    ["missing name", {}, "options.2.name: is required"],
    ["name with a space", { name: "Bad Name" }, "options.2.name: must be 1-32 letters, digits, _ or -"],
    ["33-character name", { name: "a".repeat(33) }, "options.2.name: must be 1-32 letters, digits, _ or -"],
    ["empty name", { name: "" }, "options.2.name: must be 1-32 letters, digits, _ or -"],
    ["__bot", { name: "__BOT" }, "options.2.name: __bot is reserved"],
    ["description 101", { name: "a", description: "d".repeat(101) }, "options.2.description: must be at most 100 characters"],
    ["required not boolean", { name: "a", required: "yes" }, "options.2.required: must be a boolean"],
    ["26 choices", { name: "a", choices: Array.from({ length: 26 }, (_, i) => ({ name: `c${i}`, value: i })) }, "options.2.choices: at most 25 choices"],
    ["choice without value", { name: "a", choices: [{ name: "x" }] }, "options.2.choices.0.value: must be a string (at most 100 characters) or a number"],
    ["choice name empty", { name: "a", choices: [{ name: "", value: 1 }] }, "options.2.choices.0.name: must be 1-100 characters"],
    ["min_value not a number", { name: "a", type: 4, min_value: "1" }, "options.2.min_value: must be a number"],
    ["min above max", { name: "a", type: 4, min_value: 5, max_value: 1 }, "options.2.min_value: must not exceed max_value"],
    ["max_length not a number", { name: "a", max_length: "9" }, "options.2.max_length: must be a number"],
    ["11 channel types", { name: "a", type: 7, channel_types: Array.from({ length: 11 }, (_, i) => i) }, "options.2.channel_types: at most 10 numbers"],
  ] as [string, unknown, string][])("refuses %s", (_label, input, message) => fails(input, message));
});

describe("rankCommands (rule 7)", () => {
  const commands = [
    { name: "playlist", description: "Manage playlists" },
    { name: "replay", description: "Play the last song again" },
    { name: "play", description: "Play a song" },
    { name: "skip", description: "Skip the song being played" },
    { name: "ban", description: "Ban a member" },
    { name: "playnext", description: "Queue a song next" },
  ];
  test.each([
    ["play", ["play", "playlist", "playnext", "replay", "skip"]],
    ["/PLAY", ["play", "playlist", "playnext", "replay", "skip"]],
    ["song", ["play", "playnext", "replay", "skip"]],
    ["ban", ["ban"]],
    ["zzz", []],
    ["", ["ban", "play", "playlist", "playnext", "replay", "skip"]],
  ] as [string, string[]][])("%p", (query, names) => {
    expect(rankCommands(query, commands).map((c) => c.name)).toEqual(names);
  });
});
