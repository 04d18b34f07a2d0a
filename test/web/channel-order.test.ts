import { expect, test } from "bun:test";
import {
  categoryOrder,
  channelLayout,
  channelPlacement,
  channelWhere,
  layoutFits,
  placeChannel,
  stepChannel,
  withCategoryOrder,
  type ChannelLayout,
} from "../../web/lib/channel-order.ts";
import { reorderKey, sameIds } from "../../web/lib/reorder.ts";
import type { Category, Channel } from "../../web/lib/wire-types.ts";

const channel = (id: string, position: number, category_id: string | null = null): Channel =>
  ({ id, server_id: "s", name: id, type: "text", category_id, position, topic: null, slowmode: 0, nsfw: false, is_meeting: false, chat_enabled: false }) as Channel;
const category = (id: string, position: number): Category => ({ id, server_id: "s", name: id.toUpperCase(), position });

const layout: ChannelLayout = [
  { category: null, ids: ["a", "b"] },
  { category: "x", ids: ["c"] },
  { category: "y", ids: [] },
];

test("the layout keeps an uncategorized group first, even empty, then categories by position", () => {
  expect(channelLayout([channel("c", 0, "x"), channel("b", 2), channel("a", 1)], [category("y", 1), category("x", 0)])).toEqual(layout);
  expect(channelLayout([channel("c", 0, "x")], [category("x", 0)])).toEqual([
    { category: null, ids: [] },
    { category: "x", ids: ["c"] },
  ]);
});

test("a step moves within a group, then across into the neighbouring group's near end; none past the ends", () => {
  expect(stepChannel(layout, "b", -1)![0]!.ids).toEqual(["b", "a"]);
  expect(stepChannel(layout, "b", 1)).toEqual([
    { category: null, ids: ["a"] },
    { category: "x", ids: ["b", "c"] },
    { category: "y", ids: [] },
  ]);
  expect(stepChannel(layout, "c", -1)!.slice(0, 2)).toEqual([
    { category: null, ids: ["a", "b", "c"] },
    { category: "x", ids: [] },
  ]);
  expect(stepChannel(layout, "c", 1)![2]).toEqual({ category: "y", ids: ["c"] });
  expect(stepChannel(layout, "a", -1)).toBeNull();
  expect(stepChannel(stepChannel(layout, "c", 1)!, "c", 1)).toBeNull();
  expect(stepChannel(layout, "missing", 1)).toBeNull();
});

test("where a channel is, said aloud", () => {
  const name = (id: string) => id.toUpperCase();
  expect(channelWhere(layout, "b", name)).toBe("without a category, position 2 of 2");
  expect(channelWhere(layout, "c", name)).toBe("in X, position 1 of 1");
});

test("the reorder body numbers the destination group and names the moved channel's category; nothing when it did not move", () => {
  const moved = placeChannel(layout, "a", "x", 1);
  expect(channelPlacement(moved, layout, "a")).toEqual([
    { id: "c", position: 0 },
    { id: "a", position: 1, category_id: "x" },
  ]);
  expect(channelPlacement(placeChannel(layout, "a", null, 0), layout, "a")).toBeNull();
  expect(channelPlacement(placeChannel(layout, "a", null, 9), layout, "a")).toEqual([
    { id: "b", position: 0 },
    { id: "a", position: 1, category_id: null },
  ]);
});

test("categories reorder apart from the uncategorized group; a draft fits only the same items", () => {
  expect(categoryOrder(layout)).toEqual(["x", "y"]);
  expect(withCategoryOrder(layout, ["y", "x"]).map((g) => g.category)).toEqual([null, "y", "x"]);
  expect(layoutFits(withCategoryOrder(layout, ["y", "x"]), layout)).toBe(true);
  expect(layoutFits(layout.slice(0, 2), layout)).toBe(false);
  expect(layoutFits(placeChannel(layout, "z", "x", 0), layout)).toBe(false);
});

test("keys: Space and Enter pick up or drop; arrows and Escape only while holding", () => {
  expect(reorderKey(" ", false)).toBe("toggle");
  expect(reorderKey("Enter", true)).toBe("toggle");
  expect(reorderKey("ArrowUp", false)).toBeNull();
  expect(reorderKey("ArrowUp", true)).toBe("up");
  expect(reorderKey("ArrowDown", true)).toBe("down");
  expect(reorderKey("Escape", true)).toBe("cancel");
  expect(reorderKey("Escape", false)).toBeNull();
  expect(sameIds(["a", "b"], ["b", "a"])).toBe(true);
  expect(sameIds(["a", "b"], ["a", "c"])).toBe(false);
});
