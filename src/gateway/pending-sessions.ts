import type { Server as Engine } from "@socket.io/bun-engine";
import type { Server as BunServer } from "bun";
import { limitedClientAddress } from "../http/client-address.ts";
import type { GatewayServer } from "./socket-types.ts";

/** What is used of an engine session: its "close" listeners. */
interface EngineSession {
  on(event: "close", listener: (this: EngineSession) => void): unknown;
  off(event: "close", listener: (this: EngineSession) => void): unknown;
}

/**
 * Engine.IO sessions that have not completed a Socket.IO connect yet, counted per client address
 * (docs/gateway.md, "Limits"). A handshake needs no token: the token is checked only when the
 * client connects to the namespace. Without a cap, one address could open sessions in a loop
 * (20,000 polling handshakes: +60 MB of heap, kept until each session's ping timeout) and never
 * connect. Here a handshake (a GET without `sid`, polling or websocket) is refused with 429 while
 * its address has `maxPerAddress` sessions waiting; a session stops waiting when its Socket.IO
 * connect succeeds or when it closes, which Socket.IO's `connectTimeout`
 * (GATEWAY_HANDSHAKE_TIMEOUT_MS, src/gateway/gateway.ts) makes happen a few seconds after a
 * handshake whose connect never came or was refused.
 *
 * The address is the TCP peer's (src/http/client-address.ts): behind a reverse proxy every
 * client shares the proxy's, and the cap must be raised to the proxy's concurrent reconnects.
 */
export class PendingSessions {
  private readonly perAddress = new Map<string, number>();
  /** Handshake requests let through, until the engine opens their session (or answers without one). */
  private readonly reserved = new WeakMap<Request, string>();
  /** Open sessions still waiting for their connect, with the address they count against. */
  private readonly waiting = new WeakMap<EngineSession, string>();
  /** The "close" listener of every waiting session, one function for all (`this` is the session): a session holds no closure of its own. */
  private readonly closed: (this: EngineSession) => void;

  constructor(
    engine: Engine,
    io: GatewayServer,
    private readonly maxPerAddress: number,
    private readonly retryAfterSeconds: number,
  ) {
    const settle = (session: EngineSession) => this.settle(session);
    this.closed = function closed(this: EngineSession) {
      settle(this);
    };
    engine.on("connection", (session: unknown, request: unknown) => {
      const address = this.reserved.get(request as Request);
      if (address === undefined) return;
      this.reserved.delete(request as Request);
      this.waiting.set(session as EngineSession, address);
      (session as EngineSession).on("close", this.closed);
    });
    io.on("connection", (socket) => this.settle(socket.conn as unknown as EngineSession));
  }

  /** Sessions (or handshakes under way) counted against `address`. */
  count(address: string): number {
    return this.perAddress.get(address) ?? 0;
  }

  /**
   * Lets a handshake through, counted against its address, or answers the refusal. Call
   * `answered` once the engine has answered it.
   */
  admit(request: Request, server: BunServer<unknown>): Response | null {
    const address = limitedClientAddress(request, server);
    const count = this.count(address);
    if (count >= this.maxPerAddress) {
      return Response.json(
        { error: `Too many gateway sessions waiting to connect from this address (at most ${this.maxPerAddress}); retry in a few seconds` },
        { status: 429, headers: { "Retry-After": String(this.retryAfterSeconds) } },
      );
    }
    this.perAddress.set(address, count + 1);
    this.reserved.set(request, address);
    return null;
  }

  /** The engine answered an admitted handshake: a reservation it opened no session for is given back. */
  answered(request: Request): void {
    const address = this.reserved.get(request);
    if (address === undefined) return;
    this.reserved.delete(request);
    this.release(address);
  }

  private settle(session: EngineSession): void {
    const address = this.waiting.get(session);
    if (address === undefined) return;
    this.waiting.delete(session);
    session.off("close", this.closed);
    this.release(address);
  }

  private release(address: string): void {
    const count = this.count(address) - 1;
    if (count > 0) this.perAddress.set(address, count);
    else this.perAddress.delete(address);
  }
}
