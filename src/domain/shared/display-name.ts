/**
 * The one normalisation of every name shown to other people (servers, channels, categories,
 * roles, webhooks and a webhook message's `username`, applications and their bots, group DMs,
 * connections, sounds, command choices, AI keys and models, a bot's activity): a name must look
 * like what it is, so nothing in it may be invisible, blank to the eye or drawn over its
 * neighbours. docs/README.md#display-names lists the rules;
 * test/domain/shared/display-name.test.ts holds them.
 *
 * 1. Removed everywhere: control characters (C0, DEL, C1), lone surrogates, the line and
 *    paragraph separators, U+2800 (the blank braille pattern, used as a "filler") and every
 *    Default_Ignorable code point (Unicode's own list of what renders as nothing: U+00AD soft
 *    hyphen, U+034F, U+061C,
 *    the Hangul fillers U+115F U+1160 U+3164 U+FFA0, U+17B4 U+17B5, U+180B-U+180F,
 *    U+200B-U+200F, the bidi embeddings and overrides U+202A-U+202E, U+2060-U+206F with the
 *    isolates U+2066-U+2069, U+FEFF, U+FFF0-U+FFF8, U+1BCA0-U+1BCA3, U+1D173-U+1D17A and the
 *    rest of U+E0000-U+E0FFF), except for the four kinds kept in context below.
 * 2. Unicode NFC.
 * 3. Kept only where they do something visible, removed elsewhere:
 *    - U+200D ZERO WIDTH JOINER between two emoji (👨‍👩‍👧, 🏳️‍🌈, 🧑🏽‍💻), between two
 *      characters of a script that joins (Arabic, Indic and the like: ශ්‍රී, क्‍ष), or after a
 *      virama of such a script (the Malayalam chillu at a word's end: അവന്‍);
 *    - U+200C ZERO WIDTH NON-JOINER between two characters of such a script (Persian می‌خواهم);
 *    - the variation selectors U+FE0E/U+FE0F after an emoji character (❤️, 1️⃣), and
 *      U+E0100-U+E01EF after a Han ideograph;
 *    - the tag characters U+E0020-U+E007F after 🏴 (the flags of England, Scotland, Wales).
 * 4. At most MAX_MARKS_IN_A_ROW combining marks in a row: enough for every script's real
 *    stacks (Hebrew points, Tibetan subjoined letters, a keycap), not for a tower of accents.
 * 5. Trimmed.
 *
 * What is left must hold a visible character (not a space, a mark or a format character);
 * otherwise the answer is "" and the name is refused.
 */

export const MAX_MARKS_IN_A_ROW = 4;

/**
 * Input past this many UTF-16 units is cut before the work: no name limit comes near it (the
 * longest is 128), so the field's own length rule still refuses such a name, and a name of
 * a whole 1 MiB body costs what a long one does.
 */
export const MAX_INPUT_LENGTH = 1024;

/** The refusal of a name that had characters but none visible. */
export const NO_VISIBLE_CHARACTERS = "must contain visible characters";

const JOINERS_AND_SELECTORS = "\\u200c\\u200d\\ufe00-\\ufe0f\\u{e0020}-\\u{e007f}\\u{e0100}-\\u{e01ef}";
const REMOVED = new RegExp(
  `[\\p{Cc}\\p{Cs}\\u2028\\u2029\\u2800]|(?![${JOINERS_AND_SELECTORS}])\\p{Default_Ignorable_Code_Point}`,
  "gu",
);

/** Scripts whose letters join or conjoin, where the joiners are part of correct spelling. */
const JOINING_SCRIPT = new RegExp(
  `^[${[
    "Arabic", "Syriac", "Nko", "Mandaic", "Mongolian", "Devanagari", "Bengali", "Gurmukhi", "Gujarati",
    "Oriya", "Tamil", "Telugu", "Kannada", "Malayalam", "Sinhala", "Myanmar", "Khmer", "Tibetan",
  ]
    .map((script) => `\\p{Script_Extensions=${script}}`)
    .join("")}]$`,
  "u",
);
const PICTOGRAPH = /^\p{Extended_Pictographic}$/u;
const EMOJI = /^\p{Emoji}$/u;
const EMOJI_MODIFIER = /^\p{Emoji_Modifier}$/u;
const HAN = /^\p{Script=Han}$/u;
const MARK = /^\p{M}$/u;
const VISIBLE = /[^\p{Z}\p{M}\p{C}]/u;

const ZWNJ = "\u200c";
const ZWJ = "\u200d";
const BLACK_FLAG = "\u{1f3f4}";
const within = (c: string, first: number, last: number) => {
  const point = c.codePointAt(0)!;
  return point >= first && point <= last;
};
const isEmojiSelector = (c: string) => c === "\ufe0e" || c === "\ufe0f";
const isOtherSelector = (c: string) => within(c, 0xfe00, 0xfe0d);
const isIdeographicSelector = (c: string) => within(c, 0xe0100, 0xe01ef);
const isTag = (c: string) => within(c, 0xe0020, 0xe007f);

/** Whether `c` can end the emoji before a ZWJ: the pictograph, its skin tone or its emoji selector. */
const endsEmoji = (c: string | undefined) => c !== undefined && (PICTOGRAPH.test(c) || EMOJI_MODIFIER.test(c) || c === "\ufe0f");
const joins = (c: string | undefined) => c !== undefined && JOINING_SCRIPT.test(c);

/** `raw` as a display name (see above); "" when nothing visible is left. */
export function normalizeDisplayName(raw: string): string {
  const chars = [...raw.slice(0, MAX_INPUT_LENGTH).replace(REMOVED, "").normalize("NFC")];
  const out: string[] = [];
  let marks = 0;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    const prev = out.at(-1);
    const next = chars[i + 1];
    let keep: boolean;
    if (c === ZWJ) keep = (endsEmoji(prev) && next !== undefined && PICTOGRAPH.test(next)) || (joins(prev) && (joins(next) || MARK.test(prev!)));
    else if (c === ZWNJ) keep = joins(prev) && joins(next);
    else if (isEmojiSelector(c)) keep = prev !== undefined && EMOJI.test(prev);
    else if (isOtherSelector(c)) keep = false;
    else if (isIdeographicSelector(c)) keep = prev !== undefined && HAN.test(prev);
    else if (isTag(c)) keep = prev === BLACK_FLAG || (prev !== undefined && isTag(prev));
    else if (MARK.test(c)) keep = ++marks <= MAX_MARKS_IN_A_ROW;
    else {
      marks = 0;
      keep = true;
    }
    if (keep) out.push(c);
  }
  const name = out.join("").trim();
  return VISIBLE.test(name) ? name : "";
}
