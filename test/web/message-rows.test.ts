/** The pure parts of the log: its rows (day dividers, "New messages"), the edges of a jump's page, image boxes. */
import { expect, test } from "bun:test";
import { testMessage } from "./fixtures.ts";
import type { Message } from "../../web/lib/wire-types.ts";
import { buildRows, dayLabel, dayOf, type MessageRow } from "../../web/lib/message-rows.ts";
import { aroundPageEdges, nearestMessage, newerThanWindow } from "../../web/lib/message-window.ts";
import { imageBox } from "../../web/lib/image-box.ts";

const msg = (id: string, created_at: number, extra: Partial<Message> = {}): Message => testMessage(id, { created_at, ...extra });

/** 2026-12-01 23:58 UTC and the minutes around midnight. */
const LATE = Date.UTC(2026, 11, 1, 23, 58) / 1000;
const shape = (rows: MessageRow[]) =>
  rows.map((r) => (r.kind === "message" ? `${r.key}${r.grouped ? "+" : ""}` : r.kind === "day" ? `[${r.label}]` : r.kind === "new" ? "[new]" : "[intro]"));

test("dayLabel and dayOf follow the reader's locale and time zone", () => {
  expect(dayLabel(LATE, { locale: "en-US", timeZone: "UTC" })).toBe("December 1, 2026");
  expect(dayLabel(LATE, { locale: "en-US", timeZone: "Europe/Berlin" })).toBe("December 2, 2026");
  expect(dayLabel(LATE, { locale: "de-DE", timeZone: "UTC" })).toBe("1. Dezember 2026");
  expect(dayOf(LATE, "UTC")).toBe("2026-12-01");
  expect(dayOf(LATE, "America/New_York")).toBe("2026-12-01");
  expect(dayOf(LATE + 120, "UTC")).toBe("2026-12-02");
});

test("buildRows: a day divider between days, above the first message only at the start of the history", () => {
  const messages = [msg("01", LATE), msg("02", LATE + 60), msg("03", LATE + 180), msg("04", LATE + 2 * 86400)];
  const utc = { locale: "en-US", timeZone: "UTC" };
  expect(shape(buildRows(messages, { atStart: true, ...utc }))).toEqual([
    "[intro]",
    "[December 1, 2026]",
    "01",
    "02+",
    // Three minutes after 02, same author, but a new day: not grouped across the divider.
    "[December 2, 2026]",
    "03",
    "[December 3, 2026]",
    "04",
  ]);
  expect(shape(buildRows(messages, { atStart: false, ...utc }))).toEqual(["01", "02+", "[December 2, 2026]", "03", "[December 3, 2026]", "04"]);
  // In Berlin all of the first three are on December 2.
  expect(shape(buildRows(messages, { atStart: false, locale: "en-US", timeZone: "Europe/Berlin" }))).toEqual(["01", "02+", "03+", "[December 4, 2026]", "04"]);
  expect(shape(buildRows([], { atStart: true, ...utc }))).toEqual(["[intro]"]);
  // Keys are stable, so a prepended page keeps the reader's rows (virtua's shift).
  const rows = buildRows(messages, { atStart: false, ...utc });
  expect(rows.map((r) => r.key)).toEqual(["01", "02", "day:03", "03", "day:04", "04"]);
});

test('buildRows: "New messages" above the first loaded message newer than the given id, once', () => {
  const messages = [msg("01", LATE), msg("02", LATE + 10), msg("03", LATE + 20), msg("04", LATE + 30)];
  const utc = { locale: "en-US", timeZone: "UTC" };
  expect(shape(buildRows(messages, { atStart: false, newMessagesAfter: "02", ...utc }))).toEqual(["01", "02+", "[new]", "03", "04+"]);
  // An id between loaded ones (a deleted message) and one before the window.
  expect(shape(buildRows(messages, { atStart: false, newMessagesAfter: "025", ...utc }))).toEqual(["01", "02+", "[new]", "03", "04+"]);
  expect(shape(buildRows(messages, { atStart: false, newMessagesAfter: "00", ...utc }))).toEqual(["[new]", "01", "02+", "03+", "04+"]);
  // Nothing newer, or no id: no divider.
  expect(shape(buildRows(messages, { atStart: false, newMessagesAfter: "04", ...utc }))).toEqual(["01", "02+", "03+", "04+"]);
  expect(shape(buildRows(messages, { atStart: false, newMessagesAfter: null, ...utc }))).toEqual(["01", "02+", "03+", "04+"]);
  // With a day divider at the same place, the day comes first.
  const twoDays = [msg("01", LATE), msg("02", LATE + 180)];
  expect(shape(buildRows(twoDays, { atStart: false, newMessagesAfter: "01", ...utc }))).toEqual(["01", "[December 2, 2026]", "[new]", "02"]);
});

test("aroundPageEdges: which sides of a page around a message may hold more (limit 50: 25 older, then it and 24 newer)", () => {
  const ids = (from: number, count: number) => Array.from({ length: count }, (_, i) => ({ id: String(from + i).padStart(4, "0") }));
  const cases: [string, { id: string }[], string, { hasOlder: boolean; hasNewer: boolean }][] = [
    ["the whole place in one page", ids(1, 30), "0010", { hasOlder: false, hasNewer: false }],
    ["in the middle of a long history", ids(100, 50), "0125", { hasOlder: true, hasNewer: true }],
    ["near the start: the older side ran out, filled from the newer", ids(1, 50), "0005", { hasOlder: false, hasNewer: true }],
    ["near the present: the newer side ran out, filled from the older", ids(100, 50), "0145", { hasOlder: true, hasNewer: false }],
    ["a deleted message's place: 25 and 25", ids(100, 50), "0124x", { hasOlder: true, hasNewer: true }],
  ];
  for (const [name, page, target, edges] of cases) expect({ name, edges: aroundPageEdges(page, target, 50) }).toEqual({ name, edges });
});

test("newerThanWindow and nearestMessage", () => {
  const window = [msg("02", 1), msg("04", 2)];
  expect(newerThanWindow(window, [msg("03", 1), msg("04", 2), msg("05", 3)]).map((m) => m.id)).toEqual(["05"]);
  expect(newerThanWindow([], [msg("01", 1)]).map((m) => m.id)).toEqual(["01"]);
  expect(nearestMessage(window, "02")).toEqual({ id: "02", exact: true });
  expect(nearestMessage(window, "03")).toEqual({ id: "04", exact: false });
  expect(nearestMessage(window, "09")).toEqual({ id: "04", exact: false });
  expect(nearestMessage([], "01")).toBeUndefined();
});

test("imageBox scales down to 400x300, never up, and knows nothing without a size", () => {
  expect(imageBox(800, 600)).toEqual({ width: 400, height: 300 });
  expect(imageBox(1000, 100)).toEqual({ width: 400, height: 40 });
  expect(imageBox(100, 1000)).toEqual({ width: 30, height: 300 });
  expect(imageBox(120, 80)).toEqual({ width: 120, height: 80 });
  expect(imageBox(5000, 1)).toEqual({ width: 400, height: 1 });
  expect(imageBox(null, 80)).toBeNull();
  expect(imageBox(120, 0)).toBeNull();
  expect(imageBox(undefined, undefined)).toBeNull();
});
