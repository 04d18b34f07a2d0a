/** Every error the SDK throws is a HearthError; the subclasses say where it came from. */
export class HearthError extends Error {}

/**
 * A REST call answered with an error status: `error` is the server's `{error}` message. Status 0:
 * no answer at all (the network, or the server down). An aborted call throws the AbortError as it is.
 */
export class HearthApiError extends HearthError {
  constructor(
    /** The operationId called, e.g. `botSendMessage`. */
    readonly operation: string,
    readonly status: number,
    /** The server's message (it names the field for a 400). */
    readonly error: string,
    /** Seconds to wait, from `Retry-After`, on a 429. */
    readonly retryAfter: number | null = null,
  ) {
    super(`${operation}: ${status} ${error}`);
  }
}

/** A gateway event acknowledged `{ok: false, error}`, or not acknowledged in time. */
export class HearthAckError extends HearthError {
  constructor(
    readonly event: string,
    readonly error: string,
  ) {
    super(`${event}: ${error}`);
  }
}

/**
 * Something the SDK refused before sending, because the server would refuse it: a limit (an
 * embed title over 256 characters), a missing field, a bad audio format. `path` names the field
 * the way the server's 400 does (`embeds.0.title`).
 */
export class HearthLimitError extends HearthError {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(path ? `${path}: ${reason}` : reason);
  }
}

/** An `awaitComponent()` or `awaitMessage()` that saw nothing matching within its `timeout`. */
export class HearthTimeoutError extends HearthError {
  constructor(
    /** What was awaited, e.g. `awaitComponent`. */
    readonly what: string,
    readonly timeout: number,
    detail: string,
  ) {
    super(`${what}: ${detail} within ${timeout} ms`);
  }
}

// Names as literals, on the classes and their prototypes: the bundler may rename the classes
// (HearthApiError2, which Node's inspect prints), and a `name` field would be set only after
// Error's constructor wrote the stack's first line.
const NAMES: [new (...args: never[]) => Error, string][] = [
  [HearthError, "HearthError"],
  [HearthApiError, "HearthApiError"],
  [HearthAckError, "HearthAckError"],
  [HearthLimitError, "HearthLimitError"],
  [HearthTimeoutError, "HearthTimeoutError"],
];
nameErrors(NAMES);

/** Gives error classes their names as literals (see above); the voice module's errors use it too. */
export function nameErrors(list: readonly [new (...args: never[]) => Error, string][]): void {
  for (const [type, name] of list) {
    Object.defineProperty(type.prototype, "name", { value: name, writable: true, configurable: true });
    Object.defineProperty(type, "name", { value: name, configurable: true });
  }
}
