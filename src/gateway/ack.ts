import { ApiError } from "../domain/errors.ts";
import type { Ack, ClientToServerEvents } from "../domain/events.ts";
import type { Logger } from "../log.ts";
import type { GatewaySocket } from "./gateway.ts";

type AckFn = (answer: Ack) => void;

/**
 * Registers a client event whose handler returns the ack's fields (or throws). Every ack is
 * `{ok: true, ...}` or `{ok: false, error}` with the REST routes' messages; a client that
 * passed no callback simply gets nothing back.
 */
export function onClientEvent(
  socket: GatewaySocket,
  event: keyof ClientToServerEvents,
  log: Logger,
  handler: (payload: unknown) => Promise<object | void> | object | void,
): void {
  // The payload is validated by the handler, so the listener takes what arrives untyped.
  const listen = socket.on.bind(socket) as (event: string, listener: (...args: unknown[]) => void) => void;
  listen(event, async (...args: unknown[]) => {
    const last = args[args.length - 1];
    const ack: AckFn | null = typeof last === "function" ? (last as AckFn) : null;
    const payload = ack ? (args.length > 1 ? args[0] : undefined) : args[0];
    try {
      const result = await handler(payload);
      ack?.({ ok: true, ...(result ?? {}) });
    } catch (error) {
      if (!(error instanceof ApiError)) log.error("gateway handler failed", { event, userId: socket.data.userId, error });
      ack?.({ ok: false, error: error instanceof ApiError ? error.message : "Internal error" });
    }
  });
}
