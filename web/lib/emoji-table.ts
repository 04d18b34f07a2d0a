/**
 * The Unicode emoji as the picker and the `:` suggestions use them, made from emojibase-data's
 * `en/data.json` and `en/shortcodes/emojibase.json` (pinned in package.json). `emojiTable`
 * runs at build time (web/lib/emoji-set.macro.ts), so the app's chunk carries only its result.
 * Pure.
 */

/** The picker's categories of Unicode emoji, in emojibase's group numbers (2, the skin and hair components, is left out). */
export const EMOJI_GROUPS = [
  { group: 0, name: "Smileys & Emotion", icon: "😀" },
  { group: 1, name: "People & Body", icon: "👋" },
  { group: 3, name: "Animals & Nature", icon: "🐻" },
  { group: 4, name: "Food & Drink", icon: "🍔" },
  { group: 5, name: "Travel & Places", icon: "✈️" },
  { group: 6, name: "Activities", icon: "⚽" },
  { group: 7, name: "Objects", icon: "💡" },
  { group: 8, name: "Symbols", icon: "🔣" },
  { group: 9, name: "Flags", icon: "🏳️" },
] as const;

export type EmojiGroup = (typeof EMOJI_GROUPS)[number]["group"];

/** The skin tones Unicode modifies emoji with, light to dark (Fitzpatrick 1-2 to 6). */
export const SKIN_TONE_MODIFIERS = ["1F3FB", "1F3FC", "1F3FD", "1F3FE", "1F3FF"] as const;

export interface EmojiEntry {
  unicode: string;
  /** CLDR's name, lower case ("grinning face"): the button's accessible name. */
  label: string;
  /** Without colons; the first is the one shown (`:grinning:`). */
  shortcodes: string[];
  /** CLDR's keywords, searched after the label and shortcodes. */
  tags: string[];
  group: EmojiGroup;
  /** The emoji in each skin tone, light to dark, when it has them (one tone throughout for several people). */
  skins?: string[];
}

/** What the table is made from: the fields of emojibase's Emoji it reads. */
export interface EmojiSource {
  hexcode: string;
  label: string;
  /** The emoji presentation: with U+FE0F wherever emojibase knows a text presentation. */
  emoji: string;
  /** 1 when the character shows as an emoji by default, 0 when as text. */
  type: number;
  group?: number;
  order?: number;
  tags?: string[];
  skins?: { hexcode: string; emoji: string }[];
}

export type ShortcodeSource = Record<string, string | string[]>;

const GROUPS = new Set<number>(EMOJI_GROUPS.map((g) => g.group));

/**
 * The fully-qualified form (Unicode's emoji-test.txt), which keyboards type and reactions must
 * match: U+FE0F only after a character that shows as text by default. emojibase's `emoji` also
 * adds it to some that are emoji by default ("thumbs up" as 1F44D FE0F); `hexcode` leaves it out
 * of single characters and keeps it in sequences, where it belongs.
 */
function qualified(emoji: { hexcode: string; emoji: string; type?: number }): string {
  if (emoji.type !== 1) return emoji.emoji;
  return String.fromCodePoint(...emoji.hexcode.split("-").map((part) => parseInt(part, 16)));
}

/**
 * The variant of each skin tone that uses that one tone throughout: "handshake" and "people
 * holding hands" also have every mix of two, which a single tone choice does not pick.
 */
function oneToneSkins(skins: EmojiSource["skins"]): string[] | undefined {
  if (!skins?.length) return undefined;
  const chosen = SKIN_TONE_MODIFIERS.map((tone) => {
    const single = skins.find((skin) => {
      const parts = skin.hexcode.split("-");
      return parts.includes(tone) && parts.every((part) => !part.startsWith("1F3F") || part === tone);
    });
    return single && qualified(single);
  });
  return chosen.every((unicode): unicode is string => unicode !== undefined) ? chosen : undefined;
}

/** The emoji of the picker's groups in emojibase's display order, with their shortcodes. */
export function emojiTable(data: EmojiSource[], shortcodes: ShortcodeSource): EmojiEntry[] {
  return data
    .filter((emoji) => emoji.group !== undefined && GROUPS.has(emoji.group))
    .sort((a, b) => (a.order ?? 0) - (b.order ?? 0))
    .map((emoji) => {
      const codes = shortcodes[emoji.hexcode] ?? [];
      const entry: EmojiEntry = {
        unicode: qualified(emoji),
        label: emoji.label,
        shortcodes: typeof codes === "string" ? [codes] : codes,
        tags: emoji.tags ?? [],
        group: emoji.group as EmojiGroup,
      };
      const skins = oneToneSkins(emoji.skins);
      if (skins) entry.skins = skins;
      return entry;
    });
}
