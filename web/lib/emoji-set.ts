/** The Unicode emoji table: its own chunk, loaded by web/lib/emoji-data.ts the first time it is needed. */
import { unicodeEmoji } from "./emoji-set.macro.ts" with { type: "macro" };
import type { EmojiEntry } from "./emoji-table.ts";

export const UNICODE_EMOJI: EmojiEntry[] = unicodeEmoji();
