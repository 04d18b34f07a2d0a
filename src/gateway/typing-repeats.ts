/** A repeated typing start for the same place within this long is acknowledged but not relayed again. */
const TYPING_REPEAT_MS = 3000;

/**
 * Coalesces repeated typing starts (docs/gateway.md, "Limits"): a client that sends
 * `typing:start` on every keystroke has it relayed to the room at most once per
 * `TYPING_REPEAT_MS` per socket and place, so each keystroke costs no fan-out. A stop, or a
 * start for another place, ends the streak. One entry per socket, kept only while it types.
 */
export class TypingRepeats {
  private readonly last = new WeakMap<object, { key: string; at: number }>();

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** True when `socket` already relayed a start for `key` within the window. */
  isRepeat(socket: object, key: string): boolean {
    const last = this.last.get(socket);
    return last !== undefined && last.key === key && this.now() - last.at < TYPING_REPEAT_MS;
  }

  /**
   * Claims the relay of a start for `key`: false when it is a repeat, else true, recorded at
   * once, so starts handled concurrently (each awaiting the database) relay only once. A relay
   * that then fails gives the claim back with `stopped`.
   */
  claim(socket: object, key: string): boolean {
    if (this.isRepeat(socket, key)) return false;
    this.last.set(socket, { key, at: this.now() });
    return true;
  }

  /** A stop was relayed: the next start for `key` is relayed again. */
  stopped(socket: object, key: string): void {
    if (this.last.get(socket)?.key === key) this.last.delete(socket);
  }
}
