/**
 * The rows of a message log: the channel's intro once its history is loaded to the start, a
 * divider at each new day (in the reader's time zone), the "New messages" divider, and the
 * messages with whether each continues its author's group. Pure (locale and zone can be given).
 */
import { continuesGroup } from "./message-list.ts";
import { dateFormat } from "./format.ts";
import type { Message } from "./wire-types.ts";

export type MessageRow =
  | { kind: "intro"; key: "intro" }
  | { kind: "day"; key: string; label: string }
  | { kind: "new"; key: "new-messages" }
  | { kind: "message"; key: string; message: Message; grouped: boolean };

export interface RowOptions {
  /** The history is loaded to its first message: the intro and the first day's divider lead. */
  atStart: boolean;
  /** The "New messages" divider goes above the first message with a greater id (ids are UUIDv7). */
  newMessagesAfter?: string | null;
  locale?: string | string[];
  timeZone?: string;
}

/** The calendar day of a message time (unix seconds) in the zone, as `YYYY-MM-DD`. */
export function dayOf(unixSeconds: number, timeZone?: string): string {
  return dateFormat("en-CA", { year: "numeric", month: "2-digit", day: "2-digit", timeZone }).format(new Date(unixSeconds * 1000));
}

/** A day divider's words: "December 2, 2026" in en-US, in the reader's locale otherwise. */
export function dayLabel(unixSeconds: number, options: Pick<RowOptions, "locale" | "timeZone"> = {}): string {
  return dateFormat(options.locale, { dateStyle: "long", timeZone: options.timeZone }).format(new Date(unixSeconds * 1000));
}

/**
 * Day keys by message time, per zone: a log re-renders once per frame during a burst, and
 * formatting every loaded message's date each time would cost more than the render.
 */
const dayCache = new Map<string, Map<number, string>>();
function cachedDay(unixSeconds: number, timeZone: string | undefined): string {
  const zone = timeZone ?? "";
  let byTime = dayCache.get(zone);
  if (!byTime) {
    byTime = new Map();
    dayCache.set(zone, byTime);
  }
  let day = byTime.get(unixSeconds);
  if (day === undefined) {
    if (byTime.size > 50_000) byTime.clear();
    day = dayOf(unixSeconds, timeZone);
    byTime.set(unixSeconds, day);
  }
  return day;
}

/**
 * The rows for `messages` (oldest first). A day divider sits between two loaded messages of
 * different days, and above the first message only when the history starts there: above a
 * window that has older messages not loaded, the day may be the one before.
 */
export function buildRows(messages: readonly Message[], options: RowOptions): MessageRow[] {
  const rows: MessageRow[] = [];
  if (options.atStart) rows.push({ kind: "intro", key: "intro" });
  const after = options.newMessagesAfter ?? null;
  let newPlaced = after === null;
  let previous: Message | undefined;
  let previousDay: string | undefined;
  for (const message of messages) {
    const day = cachedDay(message.created_at, options.timeZone);
    const newDay = previous ? day !== previousDay : options.atStart;
    if (newDay) rows.push({ kind: "day", key: `day:${message.id}`, label: dayLabel(message.created_at, options) });
    const isFirstNew = !newPlaced && message.id > after!;
    if (isFirstNew) {
      rows.push({ kind: "new", key: "new-messages" });
      newPlaced = true;
    }
    rows.push({ kind: "message", key: message.id, message, grouped: !newDay && !isFirstNew && continuesGroup(previous, message) });
    previous = message;
    previousDay = day;
  }
  return rows;
}
