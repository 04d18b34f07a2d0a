/**
 * The one normalisation of display names (src/domain/shared/display-name.ts,
 * docs/README.md#display-names): real names in many scripts and emoji sequences come through
 * as typed; invisible, filler and blank characters go; towers of combining marks are cut down;
 * nothing visible is "".
 */
import { describe, expect, test } from "bun:test";
import { MAX_INPUT_LENGTH, MAX_MARKS_IN_A_ROW, normalizeDisplayName } from "../../../src/domain/shared/display-name.ts";

/** Names that must survive unchanged (they are already NFC and hold nothing invisible out of place). */
const KEPT: [string, string][] = [
  ["Latin", "Hearth HQ"],
  ["Latin with accents", "Café Zoë Ångström"],
  ["Hindi", "नमस्ते दुनिया"],
  ["Hindi half-form with ZWJ", "क्\u200dष"],
  ["Sinhala with ZWJ (Sri)", "ශ්\u200dරී ලංකා"],
  ["Malayalam chillu with ZWJ at the word's end", "അവന്\u200d"],
  ["Persian with ZWNJ", "می\u200cخواهم"],
  ["Arabic", "مرحبا بالعالم"],
  ["Hebrew with points", "שָׁלוֹם"],
  ["Tibetan stacks", "བསྒྲུབས"],
  ["Thai", "สวัสดีครับ"],
  ["Vietnamese", "Tiếng Việt"],
  ["Japanese", "日本語のサーバー"],
  ["Korean", "한국어 채널"],
  ["Cyrillic", "Привет"],
  ["family emoji (ZWJ)", "👨\u200d👩\u200d👧"],
  ["rainbow flag (VS16 then ZWJ)", "🏳\ufe0f\u200d🌈"],
  ["skin tone then ZWJ", "🧑🏽\u200d💻 devs"],
  ["heart on fire", "❤\ufe0f\u200d🔥"],
  ["keycap", "1\ufe0f\u20e3 first"],
  ["England flag (tags)", "🏴\u{e0067}\u{e0062}\u{e0065}\u{e006e}\u{e0067}\u{e007f}"],
  ["regional indicator flag", "🇯🇵 fans"],
  ["Han with an ideographic variation selector", "葛\u{e0100}"],
  ["inner spaces", "a  b"],
];

/** Dirty input and what must be left of it. */
const CLEANED: [string, string, string][] = [
  ["zero width space", "Ad\u200bmin", "Admin"],
  ["ZWJ between Latin letters", "Ad\u200dmin", "Admin"],
  ["ZWNJ between Latin letters", "Ad\u200cmin", "Admin"],
  ["LRM and RLM", "\u200ename\u200f", "name"],
  ["word joiner and invisible operators", "a\u2060b\u2061c\u2062d\u2063e\u2064f", "abcdef"],
  ["BOM inside", "a\ufeffb", "ab"],
  ["Mongolian vowel separator", "a\u180eb", "ab"],
  ["soft hyphen", "a\u00adb", "ab"],
  ["combining grapheme joiner", "a\u034fb", "ab"],
  ["Arabic letter mark", "a\u061cb", "ab"],
  ["bidi embeddings and overrides", "\u202aa\u202bb\u202cc\u202dd\u202ee", "abcde"],
  ["bidi isolates", "\u2066a\u2067b\u2068c\u2069", "abc"],
  ["Hangul fillers", "\u3164a\u115fb\u1160c\uffa0", "abc"],
  ["blank braille pattern", "\u2800name\u2800", "name"],
  ["controls", "a\u0000b\u0007c\u009fd", "abcd"],
  ["line and paragraph separators", "a\u2028b\u2029c", "abc"],
  ["a variation selector after a letter", "x\ufe0f", "x"],
  ["a ZWJ at the start or end", "\u200d👨\u200d", "👨"],
  ["a ZWJ after an emoji but before a letter", "👨\u200da", "👨a"],
  ["two ZWJ in a row are one", "👨\u200d\u200d👩", "👨\u200d👩"],
  ["tags not after a black flag", "a\u{e0067}\u{e007f}", "a"],
  ["NFC: decomposed accents compose", "Cafe\u0301", "Café"],
  ["NFC after removal: a mark separated by a ZWSP composes", "e\u200b\u0301", "é"],
  ["surrounding spaces after removal", " \u200b name \u200b ", "name"],
  ["lone surrogates (half an emoji)", "a\ud83db\udc68c", "abc"],
];

describe("kept as typed", () => {
  test.each(KEPT)("%s", (_kind, name) => {
    expect(normalizeDisplayName(name)).toBe(name);
  });
});

describe("cleaned", () => {
  test.each(CLEANED)("%s", (_kind, raw, clean) => {
    expect(normalizeDisplayName(raw)).toBe(clean);
  });
});

describe("nothing visible left is empty", () => {
  test.each([
    ["", ""],
    ["spaces", "   "],
    ["zero width characters", "\u200b\u200c\u200d\u2060\ufeff"],
    ["Hangul filler", "\u3164"],
    ["blank braille", "\u2800\u2800"],
    ["combining marks alone", "\u0301\u0302"],
    ["variation selectors alone", "\ufe0f\ufe0e"],
    ["bidi controls and spaces", "\u202e \u2066 \u2069"],
  ])("%s", (_kind, raw) => {
    expect(normalizeDisplayName(raw)).toBe("");
  });
});

test(`runs of combining marks are cut to ${MAX_MARKS_IN_A_ROW} per base character`, () => {
  const zalgo = "Z" + "\u0336\u0337\u0338\u0339\u033a\u033b\u033c\u033d".repeat(4) + "a" + "\u0300".repeat(50) + "lgo";
  const name = normalizeDisplayName(zalgo);
  expect(name.normalize("NFD").replace(/\p{M}/gu, "")).toBe("Zalgo");
  for (const run of name.match(/\p{M}+/gu) ?? []) expect([...run].length).toBeLessThanOrEqual(MAX_MARKS_IN_A_ROW);
});

test("it is idempotent", () => {
  for (const [, raw] of CLEANED) {
    const once = normalizeDisplayName(raw);
    expect(normalizeDisplayName(once)).toBe(once);
  }
});

test(`input past ${MAX_INPUT_LENGTH} UTF-16 units is cut first, so a huge name costs what a long one does (and is still too long for any field)`, () => {
  const name = normalizeDisplayName("a".repeat(1_000_000));
  expect(name).toBe("a".repeat(MAX_INPUT_LENGTH));
  expect(normalizeDisplayName("é".repeat(2000)).length).toBe(MAX_INPUT_LENGTH);
});
