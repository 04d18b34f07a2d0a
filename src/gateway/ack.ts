import { ApiError } from "../domain/shared/errors.ts";
import type { Ack, ClientToServerEvents } from "./client-events.ts";
import type { Logger } from "../log.ts";
import type { GatewaySocket } from "./socket-types.ts";

type AckFn = (answer: Ack) => void;

/** Handles one client event for `socket`: returns the ack's fields, or throws. */
export type ClientEventHandler = (socket: GatewaySocket, payload: unknown) => Promise<object | void> | object | void;

/** A feature's client events and their handlers, built once per server. */
export type ClientEventTable = Partial<Record<keyof ClientToServerEvents, ClientEventHandler>>;

/** A listener as Socket.IO calls it: `this` is the socket, the last argument the ack callback if the client passed one. */
export type SharedListener = (this: GatewaySocket, ...args: unknown[]) => void;

/**
 * One listener per client event for the whole server, registered on every socket as the same
 * function object: an EventEmitter calls a listener with `this` set to the socket it is
 * attached to, so no socket needs closures of its own (they were most of an idle connection's
 * memory; bench/README.md, "Idle gateway connections").
 *
 * Every ack is `{ok: true, ...}` or `{ok: false, error}` with the REST routes' messages; a
 * client that passed no callback simply gets nothing back.
 */
export function sharedListeners(table: ClientEventTable, log: Logger): [event: string, listener: SharedListener][] {
  return Object.entries(table).map(([event, handler]: [string, ClientEventHandler]) => [
    event,
    async function (this: GatewaySocket, ...args: unknown[]) {
      const last = args[args.length - 1];
      const ack: AckFn | null = typeof last === "function" ? (last as AckFn) : null;
      const payload = ack ? (args.length > 1 ? args[0] : undefined) : args[0];
      try {
        const result = await handler(this, payload);
        ack?.({ ok: true, ...(result ?? {}) });
      } catch (error) {
        if (!(error instanceof ApiError)) log.error("gateway handler failed", { event, userId: this.data.userId, error });
        ack?.({ ok: false, error: error instanceof ApiError ? error.message : "Internal error" });
      }
    },
  ]);
}

/** Registers the shared listeners on one socket. */
export function listenAll(socket: GatewaySocket, listeners: [string, SharedListener][]): void {
  // The payloads are validated by the handlers, so the listeners take what arrives untyped.
  const listen = socket.on.bind(socket) as (event: string, listener: SharedListener) => void;
  for (const [event, listener] of listeners) listen(event, listener);
}
