import { describe, expect, test } from "bun:test";
import { asciiLower, prefixRange } from "../../src/store/name-prefix.ts";

/** The databases' order of stored keys: UTF-8 bytes (SQLite's BINARY, PostgreSQL's COLLATE "C"). */
const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

describe("asciiLower", () => {
  test.each([
    ["Ann", "ann"],
    ["ÉLAN Bot", "Élan bot"],
    ["A_Z.b-9", "a_z.b-9"],
    ["ΣΑΣ", "ΣΑΣ"],
    ["", ""],
  ])("%p -> %p (A-Z only, as SQLite's lower() without ICU)", (text, lowered) => {
    expect(asciiLower(text)).toBe(lowered);
  });
});

describe("prefixRange", () => {
  test.each([
    ["ann", "ann", "ano"],
    ["z", "z", "{"],
    ["a_", "a_", "a`"],
    ["é", "é", "ê"],
    ["a\u{10FFFF}", "a\u{10FFFF}", "b"],
    ["\uD7FF", "\uD7FF", "\uE000"],
    ["a😀", "a😀", "a😁"],
    ["\u{10FFFF}", "\u{10FFFF}", null],
  ])("%p -> [%p, %p)", (prefix, from, to) => {
    expect(prefixRange(prefix)).toEqual({ from, to });
  });

  test("a key starts with the prefix exactly when it is in the range, in byte order", () => {
    const alphabet = ["a", "b", "_", "z", "{", "é", "ê", "\uD7FF", "\uE000", "😀", "😁", "\u{10FFFF}", "\uFFFF"];
    const random = (length: number) => Array.from({ length }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join("");
    for (let i = 0; i < 5000; i++) {
      const prefix = random(1 + Math.floor(Math.random() * 3));
      const key = Math.random() < 0.3 ? prefix + random(Math.floor(Math.random() * 3)) : random(Math.floor(Math.random() * 5));
      const { from, to } = prefixRange(prefix);
      const inRange = byteOrder(key, from) >= 0 && (to === null || byteOrder(key, to) < 0);
      expect({ prefix, key, inRange }).toEqual({ prefix, key, inRange: key.startsWith(prefix) });
    }
  });
});
