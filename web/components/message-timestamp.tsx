/**
 * A timestamp written in a message (`<t:unix:style>`), in the reader's locale and time zone, the
 * full date in its tooltip. Relative ones ("in 5 minutes") follow one clock for the whole page,
 * ticking each minute while any is shown, rather than a timer each.
 */
import { signal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { formatFullTime, formatTimestamp } from "../lib/format.ts";
import type { TimestampStyle } from "../lib/rich-node.ts";

const now = signal(Date.now());
let watchers = 0;
let timer: ReturnType<typeof setInterval> | null = null;

function useMinuteClock(active: boolean): void {
  useEffect(() => {
    if (!active) return;
    if (watchers++ === 0) {
      now.value = Date.now();
      timer = setInterval(() => (now.value = Date.now()), 60_000);
    }
    return () => {
      if (--watchers === 0 && timer !== null) {
        clearInterval(timer);
        timer = null;
      }
    };
  }, [active]);
}

export function MessageTimestamp({ unix, style }: { unix: number; style: TimestampStyle }) {
  useMinuteClock(style === "R");
  // Reading the signal subscribes the component: a relative time renders again on each tick.
  const at = style === "R" ? now.value : Date.now();
  return (
    <time class="timestamp" dateTime={new Date(unix * 1000).toISOString()} title={formatFullTime(unix)}>
      {formatTimestamp(unix, style, at)}
    </time>
  );
}
