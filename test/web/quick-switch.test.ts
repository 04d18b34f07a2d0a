import { expect, test } from "bun:test";
import { adjacentChannel } from "../../web/lib/channel-tree.ts";
import { MAX_SWITCH_RESULTS, quickSwitch, switchTargets, type SwitchSources } from "../../web/lib/quick-switch.ts";
import type { Category, Channel } from "../../web/lib/wire-types.ts";

const channel = (id: string, name: string, position: number, category_id: string | null = null): Channel =>
  ({ id, server_id: "s", name, type: "text", category_id, position, topic: null, slowmode: 0, nsfw: false, is_meeting: false, chat_enabled: false }) as Channel;
const category = (id: string, position: number): Category => ({ id, server_id: "s", name: id.toUpperCase(), position });

const sources: SwitchSources = {
  dms: [{ id: "d1", name: "gene" }],
  servers: [
    { id: "s1", name: "General Store", channels: [channel("c2", "general", 1), channel("c1", "off-topic", 0), channel("c3", "dev-general", 0, "k")], categories: [category("k", 0)] },
    { id: "s2", name: "Gaming", channels: [channel("c4", "general", 0)], categories: [] },
  ],
};
const targets = switchTargets(sources);
const names = (typed: string) => quickSwitch(targets, typed).map((t) => `${t.kind}:${t.name}${t.detail ? `@${t.detail}` : ""}`);

test("targets are DMs, then each server followed by its channels in sidebar order, with where they open", () => {
  expect(targets.map((t) => t.id)).toEqual(["d1", "s1", "c1", "c2", "c3", "s2", "c4"]);
  expect(targets.find((t) => t.id === "c3")).toEqual({ kind: "channel", id: "c3", name: "dev-general", detail: "General Store", url: "/channels/s1/c3" });
  expect(targets[0]!.url).toBe("/channels/@me/d1");
  expect(targets[1]!.url).toBe("/channels/s1");
});

test("whole names first, then starts, then word starts, then anywhere; the app's order within a rank; case-insensitive", () => {
  expect(names("GENERAL")).toEqual(["channel:general@General Store", "channel:general@Gaming", "server:General Store", "channel:dev-general@General Store"]);
  expect(names("gen")).toEqual(["dm:gene", "server:General Store", "channel:general@General Store", "channel:general@Gaming", "channel:dev-general@General Store"]);
  expect(names("eral")).toEqual(["server:General Store", "channel:general@General Store", "channel:dev-general@General Store", "channel:general@Gaming"]);
  expect(names("nothing like it")).toEqual([]);
});

test("# asks for channels, @ for DMs, * for servers; an empty query lists the first targets", () => {
  expect(names("#gen")).toEqual(["channel:general@General Store", "channel:general@Gaming", "channel:dev-general@General Store"]);
  expect(names("@")).toEqual(["dm:gene"]);
  expect(names("* ga")).toEqual(["server:Gaming"]);
  expect(quickSwitch(targets, "  ")).toEqual(targets);
});

test("at most MAX_SWITCH_RESULTS answers", () => {
  const many = switchTargets({ dms: [], servers: [{ id: "s", name: "S", channels: Array.from({ length: 50 }, (_, i) => channel(`c${i}`, `room-${i}`, i)), categories: [] }] });
  expect(quickSwitch(many, "room")).toHaveLength(MAX_SWITCH_RESULTS);
  expect(quickSwitch(many, "")).toHaveLength(MAX_SWITCH_RESULTS);
});

test("Alt+Up/Down's neighbour follows the sidebar: uncategorized first, then each category; none past either end", () => {
  const { channels, categories } = sources.servers[0]!;
  expect(adjacentChannel(channels, categories, "c1", 1)?.id).toBe("c2");
  expect(adjacentChannel(channels, categories, "c2", 1)?.id).toBe("c3");
  expect(adjacentChannel(channels, categories, "c3", -1)?.id).toBe("c2");
  expect(adjacentChannel(channels, categories, "c1", -1)).toBeUndefined();
  expect(adjacentChannel(channels, categories, "c3", 1)).toBeUndefined();
  expect(adjacentChannel(channels, categories, "nope", 1)).toBeUndefined();
});
