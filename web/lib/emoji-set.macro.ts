/**
 * Run by Bun's bundler at build time (imported `with { type: "macro" }` by emoji-set.ts): the
 * emoji table is computed here and inlined as a literal, so neither emojibase's JSON nor the
 * transform reaches the browser.
 */
import data from "emojibase-data/en/data.json";
import shortcodes from "emojibase-data/en/shortcodes/emojibase.json";
import { emojiTable, type EmojiEntry } from "./emoji-table.ts";

export function unicodeEmoji(): EmojiEntry[] {
  return emojiTable(data, shortcodes);
}
