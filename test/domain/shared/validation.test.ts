import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { ApiError } from "../../../src/domain/shared/errors.ts";
import { displayName, isUuid, parseInput, password, stripUnprintable, totpCode, username } from "../../../src/domain/shared/validation.ts";

const Schema = v.object(
  {
    name: username,
    nested: v.optional(v.object({ count: v.pipe(v.number("must be a number"), v.integer("must be an integer")) }, "must be an object")),
  },
  "must be an object",
);

const errorOf = (input: unknown) => {
  try {
    parseInput(Schema, input, "payload");
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    return (error as ApiError).message;
  }
};

describe("parseInput names the field", () => {
  test.each([
    [{ name: "ok_name" }, null],
    [{}, "name: is required"],
    [{ name: 5 }, "name: must be a string"],
    [{ name: "a" }, "name: must be 2-32 characters"],
    [{ name: "bad name" }, "name: may contain only letters, digits, _, . and -"],
    [{ name: "ok_name", nested: { count: 1.5 } }, "nested.count: must be an integer"],
    [{ name: "ok_name", nested: {} }, "nested.count: is required"],
    [{ name: "ok_name", nested: 3 }, "nested: must be an object"],
    [null, "payload: must be an object"],
    ["text", "payload: must be an object"],
  ])("%j -> %s", (input, message) => {
    expect(errorOf(input)).toBe(message);
  });

  test("trims usernames", () => {
    expect(parseInput(Schema, { name: "  padded  " }).name).toBe("padded");
  });
});

describe("field rules", () => {
  test.each([
    ["12345678", true],
    ["1234567", false],
    ["x".repeat(256), true],
    ["x".repeat(257), false],
  ])("password %s", (value, ok) => {
    expect(v.safeParse(password, value).success).toBe(ok);
  });

  test.each([
    ["123456", "123456"],
    [" 123456 ", "123456"],
    [123456, "123456"],
    ["12345", null],
    ["1234567", null],
    ["12a456", null],
    [null, null],
  ])("totp code %j", (value, out) => {
    const result = v.safeParse(totpCode, value);
    expect(result.success ? result.output : null).toBe(out);
  });

  test.each([
    ["01a207fb-b730-735d-99cf-a96dc74ccf39", true],
    ["01A207FB-B730-735D-99CF-A96DC74CCF39", true],
    ["01a207fb-b730-735d-99cf-a96dc74ccf3", false],
    ["not-a-uuid", false],
    ["", false],
    [42, false],
  ])("isUuid(%j)", (value, ok) => {
    expect(isUuid(value)).toBe(ok);
  });
});

test("displayName refuses a name that had characters but none visible; a blank one is left to the field", () => {
  expect(() => v.parse(displayName, "\u0000\u202e")).toThrow("must contain visible characters");
  expect(v.parse(displayName, "   ")).toBe("");
});

describe("displayName strips control and bidi characters, then trims", () => {
  const clean = (input: string) => v.parse(displayName, input);
  test.each([
    ["plain", "plain"],
    ["  spaced  ", "spaced"],
    ["NUL\u0000inside", "NULinside"],
    ["bell\u0007tab\tnewline\ncr\r", "belltabnewlinecr"],
    ["DEL\u007f and C1\u0085\u009b", "DEL and C1"],
    ["\u202eevil\u202c.exe", "evil.exe"],
    ["a\u202ab\u202bc\u202dd", "abcd"],
    ["isolates\u2066x\u2067y\u2068z\u2069", "isolatesxyz"],
    ["marks\u200e\u200f\u061c", "marks"],
    ["line\u2028para\u2029", "linepara"],
    ["\u0000 \u202e padded \u2069", "padded"],
    // What names legitimately hold is kept: letters of any script, emoji (with their joiners), spaces inside.
    ["Café – 東京 🎵", "Café – 東京 🎵"],
    ["👩‍💻 team", "👩‍💻 team"],
    ["שלום world", "שלום world"],
  ])("%j -> %j", (input, expected) => {
    expect(clean(input)).toBe(expected);
    expect(stripUnprintable(input).trim()).toBe(expected);
  });
});
