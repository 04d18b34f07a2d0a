/**
 * When the composer tells the gateway that the reader is typing: `typing:start` at most once
 * every TYPING_SEND_EVERY_MS while they type (as Discord clients do, and within the gateway's
 * rate limit), and one `typing:stop` when they send or clear the box after a start. Pure: the
 * clock and the emit are given.
 */
export const TYPING_SEND_EVERY_MS = 8_000;
/** After this long without a start, others stop showing the indicator by themselves. */
const TYPING_LASTS_MS = 10_000;

export class TypingSender {
  private lastStart = -Infinity;

  constructor(
    private readonly emit: (event: "start" | "stop") => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** The text box changed to `text`. */
  input(text: string): void {
    if (!text.trim()) return this.stop();
    const now = this.now();
    if (now - this.lastStart < TYPING_SEND_EVERY_MS) return;
    this.lastStart = now;
    this.emit("start");
  }

  /** The message was sent or the box cleared: a stop, if others may still show the indicator. */
  stop(): void {
    if (this.now() - this.lastStart >= TYPING_LASTS_MS) return;
    this.lastStart = -Infinity;
    this.emit("stop");
  }
}
