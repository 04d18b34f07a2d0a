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

/**
 * Playing a file, a URL or an encoded stream needs ffmpeg, and it is not there: not on PATH, or
 * not at the path the `ffmpeg` option names. WAV files (`readWavFile`) and raw PCM play without it.
 */
export class FfmpegNotFoundError extends HearthError {
  constructor(
    /** The binary looked for: `ffmpeg`, or the `ffmpeg` option. */
    readonly binary: string,
  ) {
    super(
      `ffmpeg was not found (looked for "${binary}"): install it to play MP3, Ogg, FLAC and other files and URLs ` +
        `(Debian and Ubuntu: apt-get install ffmpeg; macOS: brew install ffmpeg) or pass {ffmpeg: "/path/to/ffmpeg"}; ` +
        `WAV files (readWavFile) and raw PCM play without it`,
    );
  }
}

/** ffmpeg ran and failed: a missing file, a URL that answered 404, bytes that are no audio it knows. */
export class FfmpegError extends HearthError {
  constructor(
    /** The source as given (a URL without its credentials; "the stream" for a stream). */
    readonly source: string,
    /** ffmpeg's last line on stderr, the reason. */
    readonly reason: string,
    /** The end of ffmpeg's stderr. */
    readonly stderr: string,
    readonly exitCode: number | null,
  ) {
    super(`ffmpeg could not read ${source}: ${reason}`);
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
  [FfmpegNotFoundError, "FfmpegNotFoundError"],
  [FfmpegError, "FfmpegError"],
];
for (const [type, name] of NAMES) {
  Object.defineProperty(type.prototype, "name", { value: name, writable: true, configurable: true });
  Object.defineProperty(type, "name", { value: name, configurable: true });
}
