/**
 * The emoji picker's choices on this device (localStorage, not per account): the skin tone
 * (`hearth.emoji.skin-tone`, 0 for the default yellow to 5) and the recently used emoji
 * (`hearth.emoji.recent`, newest first: a Unicode emoji without its tone, so the current tone
 * applies to it, or a custom emoji's `<:name:id>`).
 */
import { signal } from "@preact/signals";
import type { SkinTone } from "../lib/emoji-data.ts";
import { store, stored } from "./device-storage.ts";

const TONE_KEY = "hearth.emoji.skin-tone";
const RECENT_KEY = "hearth.emoji.recent";
/** How many recently used emoji are kept (three rows of the picker). */
export const RECENT_LIMIT = 27;

function storedTone(): SkinTone {
  const tone = Number(stored(TONE_KEY));
  return Number.isInteger(tone) && tone >= 0 && tone <= 5 ? (tone as SkinTone) : 0;
}

function storedRecent(): string[] {
  try {
    const list: unknown = JSON.parse(stored(RECENT_KEY) ?? "[]");
    return Array.isArray(list) ? list.filter((item): item is string => typeof item === "string").slice(0, RECENT_LIMIT) : [];
  } catch {
    return [];
  }
}

export const skinTone = signal<SkinTone>(storedTone());
export const recentEmoji = signal<string[]>(storedRecent());

export function setSkinTone(tone: SkinTone): void {
  skinTone.value = tone;
  store(TONE_KEY, String(tone));
}

/** `key` was just picked: it moves to the front of the recently used. */
export function rememberEmoji(key: string): void {
  const next = [key, ...recentEmoji.value.filter((k) => k !== key)].slice(0, RECENT_LIMIT);
  recentEmoji.value = next;
  store(RECENT_KEY, JSON.stringify(next));
}
