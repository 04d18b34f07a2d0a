/**
 * What stands in the composer's place when the reader may not send in a channel (docs/web.md,
 * "Composer"): no SEND_MESSAGES there, a running timeout (its end, and the time left counting
 * down), or a voice channel whose text chat is off. Said before they type, not after Enter.
 */
import { useEffect, useState } from "preact/hooks";
import { formatMessageTime, formatTimeLeft } from "../lib/format.ts";
import type { CannotSend } from "../lib/permissions.ts";

export function ComposerNotice({ reason }: { reason: CannotSend }) {
  return (
    <p class="composer-disabled" role="status">
      {reason.kind === "voice-chat-off" ? (
        "Text chat is disabled for this voice channel"
      ) : reason.kind === "no-permission" ? (
        "You do not have permission to send messages in this channel"
      ) : (
        <TimedOut until={reason.until} />
      )}
    </p>
  );
}

function TimedOut({ until }: { until: number }) {
  const [now, setNow] = useState(() => Date.now() / 1000);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now() / 1000), 1000);
    return () => clearInterval(timer);
  }, [until]);
  return (
    <>
      You are timed out until {formatMessageTime(until)}
      {/* A countdown read aloud every second would drown everything else: the end time is what is announced. */}
      <span class="time-left" aria-hidden="true">
        {" "}
        ({formatTimeLeft(until - now)} left)
      </span>
    </>
  );
}
