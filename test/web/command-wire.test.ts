/**
 * The composer's wire form (web/lib/command-wire.ts), checked against the server's own parser:
 * whatever the composer writes must reach the bot as the values the person filled in.
 */
import { describe, expect, test } from "bun:test";
import { parseCommandArgs, parseCommandInvocation, rankCommands } from "../../src/domain/bots/command-args.ts";
import type { CommandOption } from "../../src/domain/bots/command-option.ts";
import { buildCommandWire, missingRequiredOption, optionInput, sharesName, wireToken } from "../../web/lib/command-wire.ts";

const opt = (name: string, type: number, extra: Partial<CommandOption> = {}): CommandOption => ({ name, description: "", type, required: false, ...extra });
const USER_ID = "01a20800-c4e8-7038-887d-a4220bb2df5c";
const CHANNEL_ID = "01a20800-c4e8-7038-887d-a4220bb2df5d";
const ROLE_ID = "01a20800-c4e8-7038-887d-a4220bb2df5e";
const BOT_ID = "01a20800-c4e8-7038-887d-a4220bb2df5f";

/** Sends `values` through the wire and the server's parser; returns what the bot would get. */
function roundTrip(options: CommandOption[], values: Record<string, string>, bot?: string) {
  const wire = buildCommandWire("cmd", options, values, bot);
  const invocation = parseCommandInvocation(wire)!;
  expect(invocation.name).toBe("cmd");
  return { wire, invocation, parsed: parseCommandArgs(invocation.args, options) };
}

describe("buildCommandWire", () => {
  test("positional values in option order", () => {
    const options = [opt("sides", 4), opt("count", 4)];
    const { wire, parsed } = roundTrip(options, { sides: "20", count: "3" });
    expect(wire).toBe("/cmd 20 3");
    expect(parsed).toEqual({ ok: true, options: { sides: 20, count: 3 }, args: "20 3" });
  });

  test("a multi-word value is quoted unless it is the last option and a STRING", () => {
    const options = [opt("title", 3), opt("colour", 3), opt("note", 3)];
    const { wire, parsed } = roundTrip(options, { title: "hello world", colour: "deep blue", note: "the rest of it" });
    expect(wire).toBe('/cmd "hello world" "deep blue" the rest of it');
    expect(parsed).toEqual({ ok: true, options: { title: "hello world", colour: "deep blue", note: "the rest of it" }, args: "hello world deep blue the rest of it" });
  });

  test("after an option left empty, later values go by name", () => {
    const options = [opt("a", 3), opt("b", 3), opt("c", 4), opt("d", 3)];
    const { wire, parsed } = roundTrip(options, { a: "one two", c: "7", d: "last words here" });
    expect(wire).toBe('/cmd "one two" --c 7 --d "last words here"');
    expect(parsed).toEqual({ ok: true, options: { a: "one two", c: 7, d: "last words here" }, args: "one two 7 last words here" });
  });

  test("an empty optional STRING after a multi-word value does not take its words", () => {
    const options = [opt("text", 3), opt("note", 3)];
    const { parsed } = roundTrip(options, { text: "hello world" });
    expect(parsed).toEqual({ ok: true, options: { text: "hello world" }, args: "hello world" });
  });

  test("mentions from the pickers reach the bot as ids, for declared and inferred types", () => {
    const options = [opt("target", 6), opt("channel", 3), opt("role", 3), opt("who", 9)];
    const { parsed } = roundTrip(options, { target: `<@${USER_ID}>`, channel: `<#${CHANNEL_ID}>`, role: `<@&${ROLE_ID}>`, who: `<@&${ROLE_ID}>` });
    expect(parsed).toEqual({
      ok: true,
      options: { target: USER_ID, channel: CHANNEL_ID, role: ROLE_ID, who: ROLE_ID },
      args: `<@${USER_ID}> <#${CHANNEL_ID}> <@&${ROLE_ID}> <@&${ROLE_ID}>`,
    });
  });

  test("a choice's value (even with spaces) delivers that value", () => {
    const options = [opt("mode", 3, { choices: [{ name: "Hard Mode", value: "very hard" }, { name: "Easy", value: "e" }] }), opt("n", 4)];
    const { parsed } = roundTrip(options, { mode: "very hard", n: "2" });
    expect(parsed).toEqual({ ok: true, options: { mode: "very hard", n: 2 }, args: "very hard 2" });
  });

  test("values that look like flags, hold quotes or start with one keep their meaning", () => {
    const options = [opt("a", 3), opt("b", 3)];
    for (const a of ["--loud", 'say "hi" now', '"quoted"', "it's fine", "“curly”"]) {
      const { parsed } = roundTrip(options, { a, b: "end" });
      expect(parsed).toEqual({ ok: true, options: { a, b: "end" }, args: `${a} end` });
    }
    const last = roundTrip(options, { a: "x", b: "--not a flag" }).parsed;
    expect(last).toEqual({ ok: true, options: { a: "x", b: "--not a flag" }, args: "x --not a flag" });
  });

  test("booleans and numbers as typed", () => {
    const options = [opt("silent", 5), opt("ratio", 10)];
    expect(roundTrip(options, { silent: "true", ratio: "-2.5" }).parsed).toEqual({ ok: true, options: { silent: true, ratio: -2.5 }, args: "true -2.5" });
  });

  test("the routing flag is added when asked and stripped before the bot sees anything", () => {
    const options = [opt("text", 3)];
    const { wire, invocation, parsed } = roundTrip(options, { text: "two words" }, BOT_ID);
    expect(wire).toBe(`/cmd two words --__bot <@${BOT_ID}>`);
    expect(invocation.routeTo).toBe(BOT_ID);
    expect(invocation.cleaned).toBe("/cmd two words");
    expect(parsed).toEqual({ ok: true, options: { text: "two words" }, args: "two words" });
  });

  test("a command without options is its name", () => {
    expect(buildCommandWire("ping", [], {})).toBe("/ping");
    expect(buildCommandWire("ping", [], {}, BOT_ID)).toBe(`/ping --__bot <@${BOT_ID}>`);
  });
});

test("wireToken quotes only what needs it", () => {
  expect(wireToken("plain")).toBe("plain");
  expect(wireToken("two words")).toBe('"two words"');
  expect(wireToken("two words", true)).toBe("two words");
  expect(wireToken('has "quotes" inside')).toBe("“has \"quotes\" inside”");
  expect(wireToken("--flag")).toBe('"--flag"');
  expect(wireToken("--flag", true)).toBe('"--flag"');
});

test("optionInput: choices, declared types, and USER/CHANNEL/ROLE inferred from STRING option names", () => {
  expect(optionInput(opt("x", 3, { choices: [{ name: "A", value: "a" }] }))).toBe("choice");
  expect(optionInput(opt("x", 4))).toBe("integer");
  expect(optionInput(opt("x", 10))).toBe("number");
  expect(optionInput(opt("x", 5))).toBe("boolean");
  expect(optionInput(opt("x", 6))).toBe("user");
  expect(optionInput(opt("x", 7))).toBe("channel");
  expect(optionInput(opt("x", 8))).toBe("role");
  expect(optionInput(opt("x", 9))).toBe("mentionable");
  expect(optionInput(opt("user", 3))).toBe("user");
  expect(optionInput(opt("Member", 3))).toBe("user");
  expect(optionInput(opt("channel", 3))).toBe("channel");
  expect(optionInput(opt("role", 3))).toBe("role");
  expect(optionInput(opt("username", 3))).toBe("text");
  // A declared type wins over the name.
  expect(optionInput(opt("user", 4))).toBe("integer");
});

test("missingRequiredOption names the first required option left empty", () => {
  const options = [opt("a", 3), opt("b", 3, { required: true }), opt("c", 3, { required: true })];
  expect(missingRequiredOption(options, {})?.name).toBe("b");
  expect(missingRequiredOption(options, { b: "  " })?.name).toBe("b");
  expect(missingRequiredOption(options, { b: "x" })?.name).toBe("c");
  expect(missingRequiredOption(options, { b: "x", c: "y" })).toBeNull();
});

test("sharesName: only different bots with the same name need the routing flag", () => {
  const commands = [
    { name: "ping", bot_id: "a" },
    { name: "ping", bot_id: "b" },
    { name: "roll", bot_id: "a" },
  ];
  expect(sharesName(commands, "ping")).toBe(true);
  expect(sharesName(commands, "roll")).toBe(false);
  // One bot's global and server-scoped command of one name is still one bot.
  expect(sharesName([{ name: "x", bot_id: "a" }, { name: "x", bot_id: "a" }], "x")).toBe(false);
});

test("the composer's list follows rule 7 over server commands, one entry per bot", () => {
  const commands = [
    { name: "ping", description: "Check", bot: "B" },
    { name: "help", description: "Everything about rolls", bot: "A" },
    { name: "throw", description: "Throw", bot: "A" },
    { name: "roll", description: "Roll dice", bot: "A" },
    { name: "ro", description: "Exact", bot: "C" },
    { name: "ping", description: "Check too", bot: "A" },
  ];
  expect(rankCommands("/ro", commands).map((c) => c.name)).toEqual(["ro", "roll", "throw", "help"]);
  expect(rankCommands("PING", commands).map((c) => `${c.name}:${c.bot}`)).toEqual(["ping:B", "ping:A"]);
  expect(rankCommands("", commands).map((c) => c.name)).toEqual(["help", "ping", "ping", "ro", "roll", "throw"]);
});
