import type { GatewaySocket } from "./socket-types.ts";

/** setTimeout's longest delay (about 24.8 days); a later expiry (30-day tokens) waits in steps. */
const LONGEST_DELAY = 2 ** 31 - 1;

/**
 * Disconnects each socket when the token it connected with expires (docs/auth.md, "Tokens"):
 * one timer per socket whose token has an expiry (bot tokens have none), set at connect and
 * cleared at disconnect.
 */
export class TokenExpiry {
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();

  /** Arms the socket's timer for `expiresAt` (ms since the epoch); nothing when undefined. */
  watch(socket: GatewaySocket, expiresAt: number | undefined): void {
    if (expiresAt === undefined) return;
    const delay = expiresAt - Date.now();
    if (delay <= 0) {
      socket.disconnect(true);
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(socket.id);
      if (delay > LONGEST_DELAY) this.watch(socket, expiresAt);
      else socket.disconnect(true);
    }, Math.min(delay, LONGEST_DELAY));
    // A stopping server does not wait for a token to expire.
    timer.unref?.();
    this.timers.set(socket.id, timer);
  }

  /** At disconnect: the socket's timer goes with it. */
  forget(socket: GatewaySocket): void {
    const timer = this.timers.get(socket.id);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.timers.delete(socket.id);
  }
}
