import { ApiError } from "../domain/shared/errors.ts";
import { DatabaseUnavailableError } from "../store/availability.ts";
import { asStorageError, InsufficientStorageError } from "../store/storage-full.ts";
import { RedisUnavailableError } from "../cluster/redis-unavailable.ts";
import type { Ack, AckFields, ClientEventName, ClientToServerEvents } from "./client-events.ts";
import type { Logger } from "../log.ts";
import { EVENT_KIND } from "./event-limits.ts";
import { EventLimiter, type Refusal } from "./event-limiter.ts";
import type { GatewaySocket } from "./socket-types.ts";
import type { WhenPublished } from "./stream-order.ts";

type AckFn = (answer: Ack) => void;

/** Handles one client event for `socket`: returns the ack's fields, or throws. */
export type ClientEventHandler<Fields extends object = object> = (socket: GatewaySocket, payload: unknown) => Promise<Fields | void> | Fields | void;

/**
 * A feature's client events and their handlers, built once per server. Each handler's result is
 * typed by its event's ack schema (client-events.ts), so an ack cannot drift from its documentation.
 */
export type ClientEventTable = { [E in ClientEventName]?: ClientEventHandler<AckFields<E>> };

/** A listener as Socket.IO calls it: `this` is the socket, the last argument the ack callback if the client passed one. */
type SharedListener = (this: GatewaySocket, ...args: unknown[]) => void;

/** Events whose refusals also arrive as `voice:error {error}` (SPEC.md Errors 9; their handlers do the same). */
const answersVoiceError = (event: string) => event.startsWith("voice:") || event.startsWith("bot:voice-") || event === "bot:audio-data";

/**
 * One listener per client event for the whole server, registered on every socket as the same
 * function object: an EventEmitter calls a listener with `this` set to the socket it is
 * attached to, so no socket needs closures of its own (per-socket closures would be most of an
 * idle connection's memory).
 *
 * With a `limiter`, each event first takes a token of its kind (src/gateway/event-limits.ts)
 * before anything else runs, payload validation included; a refused event is answered
 * `{ok: false, error: "Rate limited: ..."}`, and a socket refused too often is disconnected.
 *
 * Every ack is `{ok: true, ...}` or `{ok: false, error}` with the REST routes' messages; a
 * client that passed no callback simply gets nothing back. With `published` (cluster mode), a
 * success is acked once the events its handler made are in the stream, as a REST write is answered.
 */
export function sharedListeners(table: ClientEventTable, log: Logger, limiter?: EventLimiter, published?: WhenPublished | null): [event: string, listener: SharedListener][] {
  return (Object.entries(table) as [string, ClientEventHandler][]).map(([event, handler]) => {
    const kind = EventLimiter.kindIndex(EVENT_KIND[event as keyof ClientToServerEvents]);
    const voiceError = answersVoiceError(event);

    function refuse(socket: GatewaySocket, refusal: Refusal, ack: AckFn | null): void {
      ack?.({ ok: false, error: refusal.error });
      if (voiceError) socket.emit("voice:error", { error: refusal.error });
      if (!refusal.disconnect) return;
      log.warn("gateway socket disconnected: too many events refused", { socketId: socket.id, userId: socket.data.userId, event });
      socket.disconnect(true);
    }

    function fail(socket: GatewaySocket, error: unknown, ack: AckFn | null): void {
      error = asStorageError(error);
      // The database out of reach, or out of space, is logged once per outage by the store's listener (app.ts).
      if (error instanceof DatabaseUnavailableError || error instanceof RedisUnavailableError || error instanceof InsufficientStorageError) {
        ack?.({ ok: false, error: error.message });
        if (voiceError) socket.emit("voice:error", { error: error.message });
        return;
      }
      if (!(error instanceof ApiError)) log.error("gateway handler failed", { event, userId: socket.data.userId, error });
      ack?.({ ok: false, error: error instanceof ApiError ? error.message : "Internal error" });
    }

    // A handler that answers synchronously is acked at once; only a promise costs a hop (the
    // audio relay's frames are admitted and delivered without one: handlers/audio.ts).
    function handle(socket: GatewaySocket, payload: unknown, ack: AckFn | null): void {
      let result: ReturnType<ClientEventHandler>;
      try {
        result = handler(socket, payload);
      } catch (error) {
        return fail(socket, error, ack);
      }
      if (result instanceof Promise) {
        result.then(
          (fields: object | void) => succeed(socket, fields, ack),
          (error: unknown) => fail(socket, error, ack),
        );
      } else succeed(socket, result, ack);
    }

    function succeed(socket: GatewaySocket, fields: object | void, ack: AckFn | null): void {
      if (!ack) return;
      // Cluster mode: acked once the events it made are in the stream (src/gateway/stream-order.ts).
      const wait = published?.();
      if (wait) void wait.then(() => answer(socket, fields, ack));
      else answer(socket, fields, ack);
    }

    function answer(socket: GatewaySocket, fields: object | void, ack: AckFn): void {
      try {
        ack({ ok: true, ...(fields ?? {}) });
      } catch (error) {
        fail(socket, error, ack);
      }
    }

    return [
      event,
      function (this: GatewaySocket, ...args: unknown[]) {
        const last = args[args.length - 1];
        const ack: AckFn | null = typeof last === "function" ? (last as AckFn) : null;
        const refusal = limiter?.admit(this, kind);
        if (refusal) return refuse(this, refusal, ack);
        handle(this, ack ? (args.length > 1 ? args[0] : undefined) : args[0], ack);
      },
    ];
  });
}

/** Registers the shared listeners on one socket. */
export function listenAll(socket: GatewaySocket, listeners: [string, SharedListener][]): void {
  // The payloads are validated by the handlers, so the listeners take what arrives untyped.
  const listen = socket.on.bind(socket) as (event: string, listener: SharedListener) => void;
  for (const [event, listener] of listeners) listen(event, listener);
}
