/**
 * The emoji a person can choose: the Unicode set (web/lib/emoji-set.ts, a chunk of its own that
 * `loadEmojiData` imports the first time the picker or the `:` suggestions open, so the first
 * load does not carry it) and a server's custom emoji, and one search over both. Searching is
 * pure: a name (the label, a shortcode, a custom emoji's name) that is the query or starts with
 * it comes first, then a word of the name or a keyword that starts with it, then a name that
 * contains it (name-rank.ts); ties keep the table's order.
 */
import { parseContent } from "./content.ts";
import { nameRank } from "./name-rank.ts";
import type { Emoji } from "./wire-types.ts";
import { EMOJI_GROUPS, type EmojiEntry, type EmojiGroup } from "./emoji-table.ts";

export interface EmojiData {
  entries: EmojiEntry[];
  byGroup: Map<EmojiGroup, EmojiEntry[]>;
  /** Each emoji by its character, skin tone variants included (they name their base entry). */
  byUnicode: Map<string, EmojiEntry>;
}

export function indexEmoji(entries: EmojiEntry[]): EmojiData {
  const byGroup = new Map<EmojiGroup, EmojiEntry[]>(EMOJI_GROUPS.map((g) => [g.group, []]));
  const byUnicode = new Map<string, EmojiEntry>();
  for (const entry of entries) {
    byGroup.get(entry.group)?.push(entry);
    byUnicode.set(entry.unicode, entry);
    for (const skin of entry.skins ?? []) byUnicode.set(skin, entry);
  }
  return { entries, byGroup, byUnicode };
}

let loading: Promise<EmojiData> | null = null;
let loaded: EmojiData | null = null;

/** The Unicode set when it has been loaded already, so a second opening shows it at once. */
export function loadedEmojiData(): EmojiData | null {
  return loaded;
}

/** The Unicode set, imported once; a failed import (the network) is tried again on the next call. */
export function loadEmojiData(): Promise<EmojiData> {
  loading ??= import("./emoji-set.ts").then(
    (module) => (loaded = indexEmoji(module.UNICODE_EMOJI)),
    (failure: unknown) => {
      loading = null;
      throw failure;
    },
  );
  return loading;
}

/** One emoji as the picker and the suggestions offer it. */
export type EmojiChoice = { kind: "unicode"; entry: EmojiEntry } | { kind: "custom"; emoji: Emoji };

/** 0 to 5 (default, then light to dark), as the skin tone selector numbers them. */
export type SkinTone = 0 | 1 | 2 | 3 | 4 | 5;

/** The character to send for a Unicode emoji in the chosen tone (its default when it has no tones). */
export function withSkin(entry: EmojiEntry, tone: SkinTone): string {
  return tone === 0 ? entry.unicode : (entry.skins?.[tone - 1] ?? entry.unicode);
}

/** What a choice puts in a message or a reaction: the character, or a custom emoji's `<:name:id>`. */
export function choiceText(choice: EmojiChoice, tone: SkinTone): string {
  return choice.kind === "unicode" ? withSkin(choice.entry, tone) : `<:${choice.emoji.name}:${choice.emoji.id}>`;
}

/** The choice's name: the Unicode label ("grinning face"), or `:name:` for a custom emoji. */
export function choiceLabel(choice: EmojiChoice): string {
  return choice.kind === "unicode" ? choice.entry.label : `:${choice.emoji.name}:`;
}

/** `:shortcode:` of a choice (a custom emoji's name; a Unicode emoji without shortcodes: its label). */
export function choiceShortcode(choice: EmojiChoice): string {
  const code = choice.kind === "unicode" ? (choice.entry.shortcodes[0] ?? choice.entry.label.replace(/\s+/g, "_")) : choice.emoji.name;
  return `:${code}:`;
}

/**
 * The recently used emoji that can be offered here: Unicode ones once the set is loaded (with
 * the current tone), custom ones of this server only.
 */
export function resolveRecent(keys: string[], data: EmojiData | null, custom: Emoji[]): EmojiChoice[] {
  return keys.flatMap((key): EmojiChoice[] => {
    const [token, ...more] = parseContent(key);
    if (token?.kind === "emoji" && more.length === 0) {
      const emoji = custom.find((e) => e.id === token.id);
      return emoji ? [{ kind: "custom", emoji }] : [];
    }
    const entry = data?.byUnicode.get(key);
    return entry ? [{ kind: "unicode", entry }] : [];
  });
}

/** Names compare in lower case with `_`, `-` and spaces alike, so "thumbs_up" finds "thumbs up". */
export function normalizeName(text: string): string {
  return text.toLowerCase().replace(/[\s_-]+/g, " ").trim();
}

/**
 * How well `query` (normalized, not empty) names an emoji, by nameRank over its names (0 to 3);
 * a keyword that starts with it counts as a word's start (2). Null: no match.
 */
export function matchRank(query: string, names: string[], keywords: string[] = []): number | null {
  let best: number | null = null;
  for (const name of names) {
    const rank = nameRank(normalizeName(name), query);
    if (rank !== null && (best === null || rank < best)) best = rank;
    if (best === 0) return 0;
  }
  if (best === null || best > 2) {
    if (keywords.some((keyword) => normalizeName(keyword).startsWith(query))) best = 2;
  }
  return best;
}

function ranked<T>(items: T[], rank: (item: T) => number | null): T[] {
  const found: { item: T; rank: number; at: number }[] = [];
  items.forEach((item, at) => {
    const r = rank(item);
    if (r !== null) found.push({ item, rank: r, at });
  });
  return found.sort((a, b) => a.rank - b.rank || a.at - b.at).map((f) => f.item);
}

/**
 * The emoji `query` names: the server's custom ones that match first, then Unicode, each ranked
 * as above (`limit` in all). A blank query finds nothing.
 */
export function searchEmoji(data: EmojiData | null, custom: Emoji[], query: string, limit = Infinity): EmojiChoice[] {
  const q = normalizeName(query.replace(/^:|:$/g, ""));
  if (!q) return [];
  const choices: EmojiChoice[] = ranked(custom, (emoji) => matchRank(q, [emoji.name])).map((emoji) => ({ kind: "custom", emoji }));
  if (data) {
    for (const entry of ranked(data.entries, (e) => matchRank(q, [e.label, ...e.shortcodes], e.tags))) {
      if (choices.length >= limit) break;
      choices.push({ kind: "unicode", entry });
    }
  }
  return choices.slice(0, limit);
}
