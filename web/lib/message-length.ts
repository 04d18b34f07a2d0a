/**
 * How much room is left in a message (docs/web.md "Media"): the count shows in the last
 * COUNT_SHOWN_FROM characters and says "over the limit" past it, and the composer refuses to send
 * then, before asking the server. Counted as the server counts: UTF-16 code units of the text as
 * sent (mentions encoded). Pure.
 */
import { LIMITS } from "./shared-rules.ts";

/** Characters left from which the count shows. */
export const COUNT_SHOWN_FROM = 200;

const n = (count: number) => count.toLocaleString("en-US");
const characters = (count: number) => `${n(count)} ${count === 1 ? "character" : "characters"}`;

/** What the count says for `length` characters, or null while it is far from the limit. */
export function characterCountText(length: number, limit: number = LIMITS.message.contentLength): string | null {
  const left = limit - length;
  if (left > COUNT_SHOWN_FROM) return null;
  return left >= 0 ? `${characters(left)} left` : `${characters(-left)} over the limit`;
}

/** The refusal shown instead of sending a message over the limit; null when it fits. */
export function tooLongMessage(length: number, limit: number = LIMITS.message.contentLength): string | null {
  if (length <= limit) return null;
  return `This message is ${n(length)} characters long, over the limit of ${n(limit)}: shorten it by ${characters(length - limit)} to send it.`;
}
