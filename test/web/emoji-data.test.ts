import { expect, test } from "bun:test";
import { choiceLabel, choiceShortcode, choiceText, indexEmoji, loadEmojiData, resolveRecent, searchEmoji, withSkin, type EmojiChoice } from "../../web/lib/emoji-data.ts";
import { gridMove } from "../../web/lib/emoji-grid.ts";
import { emojiTable, type EmojiSource } from "../../web/lib/emoji-table.ts";
import { placePopover } from "../../web/lib/popover-place.ts";
import { contentPreview } from "../../web/lib/content-preview.ts";
import type { Emoji } from "../../web/lib/wire-types.ts";

/** A few entries as emojibase-data's data.json has them, out of order, with a component and an ungrouped one. */
const source: EmojiSource[] = [
  { hexcode: "1F355", label: "pizza", emoji: "🍕", type: 1, group: 4, order: 3887, tags: ["cheese", "food", "slice"] },
  { hexcode: "1F600", label: "grinning face", emoji: "😀", type: 1, group: 0, order: 1, tags: ["face", "grin", "happy"] },
  { hexcode: "1F3FB", label: "light skin tone", emoji: "🏻", type: 1, group: 2, order: 5000 },
  { hexcode: "1F1E6", label: "regional indicator A", emoji: "🇦", type: 1 },
  {
    hexcode: "1F44D",
    label: "thumbs up",
    // emojibase adds U+FE0F to this emoji-by-default character; the table leaves it out.
    emoji: "👍\uFE0F",
    type: 1,
    group: 1,
    order: 300,
    tags: ["hand", "yes"],
    skins: ["1F3FB", "1F3FC", "1F3FD", "1F3FE", "1F3FF"].map((tone, i) => ({ hexcode: `1F44D-${tone}`, emoji: `👍${["🏻", "🏼", "🏽", "🏾", "🏿"][i]}` })),
  },
  {
    hexcode: "1F91D",
    label: "handshake",
    emoji: "🤝",
    type: 1,
    group: 1,
    order: 419,
    tags: ["agreement", "deal"],
    // A mix of two tones comes before the one-tone variant of the same light tone.
    skins: [
      { hexcode: "1FAF1-1F3FB-200D-1FAF2-1F3FC", emoji: "🫱🏻‍🫲🏼" },
      ...["1F3FB", "1F3FC", "1F3FD", "1F3FE", "1F3FF"].map((tone, i) => ({ hexcode: `1F91D-${tone}`, emoji: `🤝${["🏻", "🏼", "🏽", "🏾", "🏿"][i]}` })),
    ],
  },
  { hexcode: "1F967", label: "pie", emoji: "🥧", type: 1, group: 4, order: 3950, tags: ["filling", "pastry"] },
  { hexcode: "1F4CC", label: "pushpin", emoji: "📌", type: 1, group: 7, order: 4200, tags: ["pin"] },
  // Text by default: the emoji presentation keeps its U+FE0F.
  { hexcode: "2764", label: "red heart", emoji: "\u2764\uFE0F", type: 0, group: 0, order: 155, tags: ["love"] },
];
const shortcodes = { "1F355": "pizza", "1F600": ["grinning", "grinning_face"], "1F44D": ["+1", "thumbsup", "yes"], "1F967": "pie", "1F4CC": "pushpin" };
const table = emojiTable(source, shortcodes);
const data = indexEmoji(table);
const custom = [
  { id: "00000000-0000-4000-8000-000000000001", name: "pizzaparty" },
  { id: "00000000-0000-4000-8000-000000000002", name: "party" },
] as Emoji[];
const names = (choices: EmojiChoice[]) => choices.map(choiceLabel);

test("the table keeps the picker's groups in display order, with shortcodes as lists and one-tone skins", () => {
  expect(table.map((e) => e.label)).toEqual(["grinning face", "red heart", "thumbs up", "handshake", "pizza", "pie", "pushpin"]);
  expect(table.map((e) => e.unicode)).toEqual(["😀", "\u2764\uFE0F", "\u{1F44D}", "🤝", "🍕", "🥧", "📌"]);
  expect(table[0]).toEqual({ unicode: "😀", label: "grinning face", shortcodes: ["grinning", "grinning_face"], tags: ["face", "grin", "happy"], group: 0 });
  expect(table.find((e) => e.label === "pizza")!.shortcodes).toEqual(["pizza"]);
  expect(table.find((e) => e.label === "thumbs up")!.skins).toEqual(["👍🏻", "👍🏼", "👍🏽", "👍🏾", "👍🏿"]);
  expect(table.find((e) => e.label === "handshake")!.skins![0]).toBe("🤝🏻");
  expect(table.find((e) => e.label === "pizza")!.skins).toBeUndefined();
});

test("the index groups the emoji and finds a skin tone variant's base", () => {
  expect(data.byGroup.get(4)!.map((e) => e.label)).toEqual(["pizza", "pie"]);
  expect(data.byGroup.get(9)).toEqual([]);
  expect(data.byUnicode.get("👍🏽")!.label).toBe("thumbs up");
  expect(withSkin(data.byUnicode.get("👍")!, 3)).toBe("👍🏽");
  expect(withSkin(data.byUnicode.get("🍕")!, 3)).toBe("🍕");
  expect(withSkin(data.byUnicode.get("👍")!, 0)).toBe("👍");
});

test("search: custom emoji first, then exact and prefix names, word starts and keywords, then substrings", () => {
  expect(names(searchEmoji(data, custom, "pizza"))).toEqual([":pizzaparty:", "pizza"]);
  expect(names(searchEmoji(data, custom, "pi"))).toEqual([":pizzaparty:", "pizza", "pie", "pushpin"]);
  // "pie" is whole; "pushpin" has the keyword "pin" but only contains "pi" otherwise.
  expect(names(searchEmoji(data, [], "pie"))).toEqual(["pie"]);
  expect(names(searchEmoji(data, [], "face"))).toEqual(["grinning face"]);
  expect(names(searchEmoji(data, [], "happy"))).toEqual(["grinning face"]);
  expect(names(searchEmoji(data, [], "+1"))).toEqual(["thumbs up"]);
  expect(names(searchEmoji(data, [], "inni"))).toEqual(["grinning face"]);
  // "hand" is a word of "handshake"'s start, a keyword of "thumbs up": both rank after a name that is "hand…" itself.
  expect(names(searchEmoji(data, [], "han"))).toEqual(["handshake", "thumbs up"]);
  expect(names(searchEmoji(data, custom, "art"))).toEqual([":pizzaparty:", ":party:", "red heart"]);
});

test("search ignores case, colons, and underscores against spaces; a blank query and a limit", () => {
  expect(names(searchEmoji(data, [], ":Grinning_F"))).toEqual(["grinning face"]);
  expect(names(searchEmoji(data, [], "thumbs up"))).toEqual(["thumbs up"]);
  expect(searchEmoji(data, custom, "  ")).toEqual([]);
  expect(names(searchEmoji(data, custom, "pi", 2))).toEqual([":pizzaparty:", "pizza"]);
  // Before the set loads, the server's emoji are found alone.
  expect(names(searchEmoji(null, custom, "party"))).toEqual([":party:", ":pizzaparty:"]);
});

test("what a choice sends, is named and shows as", () => {
  const thumbs: EmojiChoice = { kind: "unicode", entry: data.byUnicode.get("👍")! };
  const party: EmojiChoice = { kind: "custom", emoji: custom[1]! };
  expect(choiceText(thumbs, 5)).toBe("👍🏿");
  expect(choiceText(party, 5)).toBe("<:party:00000000-0000-4000-8000-000000000002>");
  expect([choiceShortcode(thumbs), choiceShortcode(party)]).toEqual([":+1:", ":party:"]);
  expect(choiceShortcode({ kind: "unicode", entry: data.byUnicode.get("🤝")! })).toBe(":handshake:");
});

test("recently used: Unicode by its base, custom emoji of this server only", () => {
  const keys = ["👍", "<:party:00000000-0000-4000-8000-000000000002>", "<:gone:00000000-0000-4000-8000-000000000009>", "🍕", "not an emoji"];
  expect(names(resolveRecent(keys, data, custom))).toEqual(["thumbs up", ":party:", "pizza"]);
  expect(names(resolveRecent(keys, null, custom))).toEqual([":party:"]);
});

test("the real set: loaded from emojibase-data with every group, shortcodes and skins", async () => {
  const real = await loadEmojiData();
  expect(real.entries.length).toBeGreaterThan(1800);
  expect(names(searchEmoji(real, [], "pizza"))[0]).toBe("pizza");
  expect(searchEmoji(real, [], "pizza", 1).map((c) => choiceText(c, 0))).toEqual(["🍕"]);
  for (const group of [0, 1, 3, 4, 5, 6, 7, 8, 9] as const) expect(real.byGroup.get(group)!.length).toBeGreaterThan(50);
  // Fully qualified, as keyboards type them (a reaction typed and one picked are the same).
  expect(real.entries.find((e) => e.label === "thumbs up")!.unicode).toBe("\u{1F44D}");
  expect(real.entries.find((e) => e.label === "red heart")!.unicode).toBe("\u2764\uFE0F");
  const wave = real.byUnicode.get("👋")!;
  expect(wave.skins).toHaveLength(5);
  expect(withSkin(wave, 4)).toBe("👋🏾");
  expect(real.entries.every((e) => e.skins === undefined || e.skins.length === 5)).toBe(true);
  expect(real.entries.filter((e) => e.shortcodes.length > 0).length).toBeGreaterThan(1800);
});

test("grid moves: rows of a width, short last rows, across sections, Home and End", () => {
  const sizes = [3, 0, 20, 5];
  const move = (section: number, index: number, key: string) => gridMove(sizes, { section, index }, key, 9);
  expect(move(0, 2, "ArrowRight")).toEqual({ section: 2, index: 0 });
  expect(move(2, 0, "ArrowLeft")).toEqual({ section: 0, index: 2 });
  expect(move(0, 1, "ArrowDown")).toEqual({ section: 2, index: 1 });
  expect(move(2, 5, "ArrowDown")).toEqual({ section: 2, index: 14 });
  // From the second row, whose column 7 has nothing below it in the short third row: that row's last.
  expect(move(2, 16, "ArrowDown")).toEqual({ section: 2, index: 19 });
  expect(move(2, 10, "ArrowDown")).toEqual({ section: 2, index: 19 });
  // From the last row, the same column of the next section (skipping an empty one).
  expect(move(0, 2, "ArrowDown")).toEqual({ section: 2, index: 2 });
  expect(move(2, 19, "ArrowDown")).toEqual({ section: 3, index: 1 });
  expect(move(2, 18, "ArrowDown")).toEqual({ section: 3, index: 0 });
  expect(move(3, 4, "ArrowUp")).toEqual({ section: 2, index: 19 });
  expect(move(3, 0, "ArrowUp")).toEqual({ section: 2, index: 18 });
  expect(move(3, 2, "ArrowUp")).toEqual({ section: 2, index: 19 });
  expect(move(2, 1, "ArrowUp")).toEqual({ section: 0, index: 1 });
  expect(move(2, 8, "ArrowUp")).toEqual({ section: 0, index: 2 });
  expect(move(0, 0, "ArrowUp")).toEqual({ section: 0, index: 0 });
  expect(move(3, 4, "ArrowRight")).toEqual({ section: 3, index: 4 });
  expect(move(2, 7, "Home")).toEqual({ section: 0, index: 0 });
  expect(move(0, 0, "End")).toEqual({ section: 3, index: 4 });
  expect(move(0, 0, "a")).toBeNull();
});

test("the pop-up stays inside the window: below, above, the side with more room, clamped sideways; a sheet on a phone", () => {
  const view = { width: 1280, height: 800 };
  const size = { width: 392, height: 440 };
  const button = (top: number, right: number) => ({ top, bottom: top + 30, left: right - 30, right });
  expect(placePopover(button(100, 1200), size, view)).toEqual({ sheet: false, top: 138, left: 808, maxHeight: 440 });
  expect(placePopover(button(740, 1200), size, view)).toEqual({ sheet: false, top: 292, left: 808, maxHeight: 440 });
  // Neither side has 440 pixels: the larger one, shortened.
  expect(placePopover(button(330, 1200), size, { width: 1280, height: 700 })).toEqual({ sheet: false, top: 368, left: 808, maxHeight: 324 });
  expect(placePopover(button(360, 1200), size, { width: 1280, height: 700 })).toEqual({ sheet: false, top: 8, left: 808, maxHeight: 344 });
  expect(placePopover(button(100, 200), size, view)).toMatchObject({ left: 8 });
  expect(placePopover(button(100, 1279), size, view)).toMatchObject({ left: 1280 - 392 - 8 });
  expect(placePopover(button(700, 380), size, { width: 390, height: 844 })).toEqual({ sheet: true });
});

test("a reply's preview is cut before a custom emoji or a mention it would break", () => {
  const emoji = "<:party:00000000-0000-4000-8000-000000000002>";
  expect(contentPreview(`hi ${emoji} there`, 10)).toBe("hi ");
  expect(contentPreview(`hi ${emoji} there`, 3 + emoji.length)).toBe(`hi ${emoji}`);
  expect(contentPreview(`a <@00000000-0000-4000-8000-000000000003> b`, 8)).toBe("a ");
  expect(contentPreview("short", 200)).toBe("short");
  expect(contentPreview("plain words only", 5)).toBe("plain");
});
