import { describe, expect, test } from "bun:test";
import { TokenExpiry } from "../../src/gateway/token-expiry.ts";
import type { GatewaySocket } from "../../src/gateway/socket-types.ts";
import { letTimePass, quietWindow, until } from "../helpers/wait.ts";

/** What TokenExpiry touches of a socket: its id, and disconnect. */
function fakeSocket(id: string) {
  const socket = { id, disconnects: 0, disconnect() {
    socket.disconnects++;
  } };
  return socket;
}
const asSocket = (socket: ReturnType<typeof fakeSocket>) => socket as unknown as GatewaySocket;

describe("TokenExpiry", () => {
  test("disconnects at the expiry, not before", async () => {
    const expiry = new TokenExpiry();
    const socket = fakeSocket("a");
    const expiresAt = Date.now() + 80;
    expiry.watch(asSocket(socket), expiresAt);
    // The timer against the clock is what is tested.
    await letTimePass(30, "well before the expiry");
    expect(socket.disconnects).toBe(0);
    await until(() => socket.disconnects > 0, "the disconnect at the expiry");
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt - 2); // timers may fire a ms early
    expect(socket.disconnects).toBe(1);
  });

  test("an already expired token disconnects at once; no expiry (a bot token) never does", async () => {
    const expiry = new TokenExpiry();
    const expired = fakeSocket("b");
    const bot = fakeSocket("c");
    expiry.watch(asSocket(expired), Date.now() - 1);
    expiry.watch(asSocket(bot), undefined);
    expect(expired.disconnects).toBe(1);
    await quietWindow(20);
    expect(bot.disconnects).toBe(0);
  });

  test("forget (at disconnect) clears the timer", async () => {
    const expiry = new TokenExpiry();
    const socket = fakeSocket("d");
    expiry.watch(asSocket(socket), Date.now() + 40);
    expiry.forget(asSocket(socket));
    await letTimePass(80, "past the 40 ms expiry that was forgotten");
    expect(socket.disconnects).toBe(0);
  });

  test("an expiry past setTimeout's longest delay (30-day tokens) arms without firing early", async () => {
    const expiry = new TokenExpiry();
    const socket = fakeSocket("e");
    expiry.watch(asSocket(socket), Date.now() + 30 * 86_400_000);
    await quietWindow(20); // an overflowing delay would fire at once
    expect(socket.disconnects).toBe(0);
    expiry.forget(asSocket(socket));
  });
});
