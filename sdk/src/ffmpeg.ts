/**
 * Decoding any common audio (MP3, Ogg/Opus, Ogg/Vorbis, FLAC, AAC, WAV, ...) from a file, an
 * HTTP(S) URL or a stream of encoded bytes into the PCM the relay carries, through the ffmpeg
 * program on the machine (Debian's `ffmpeg`; nothing is bundled or downloaded).
 *
 * One ffmpeg process per source, started when the first frame is wanted, writing signed 16-bit
 * little-endian PCM at the playback's rate and channels to its stdout. It is read only as fast
 * as the playback takes frames (the pacing stays `play()`'s own): while paused, Node's stream
 * buffer and the pipe fill (about 128 kB) and ffmpeg blocks on its write, so nothing grows
 * without bound. Stopping, leaving, a failed read or the end of the iteration kill the process
 * (SIGKILL: a decoder has nothing to save) and wait for its exit, so none is left behind.
 * ffmpeg's stderr (errors only) is kept, and its last line is the reason in `FfmpegError`.
 *
 * What ffmpeg may open is narrowed per input (`-protocol_whitelist`): a path is only a local
 * file (`file:` in front, so `a:b.mp3` is no protocol), a URL only http/https, a stream only its
 * pipe; a playlist fetched from a URL cannot make ffmpeg read local files.
 */
import { HearthError, HearthLimitError, nameErrors } from "./errors.js";
import { loadNode, type ChildProcess, type NodeWritable } from "./node.js";
import { bytesOf, type PcmChunk, type PcmFormat } from "./pcm.js";

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

// In this module rather than errors.ts, so the browser-safe client entry carries none of it.
nameErrors([
  [FfmpegNotFoundError, "FfmpegNotFoundError"],
  [FfmpegError, "FfmpegError"],
]);

export interface FfmpegOptions {
  /** The ffmpeg program: a name looked up on PATH, or a path (default `ffmpeg`). */
  ffmpeg?: string;
  /** More ffmpeg input options, placed before `-i` (e.g. `["-ss", "30"]` to start 30 s in). */
  inputArgs?: readonly string[];
}

/**
 * What ffmpeg decodes: a file path, an http(s) URL (a string or a `URL`), or encoded bytes: a web
 * `ReadableStream` (a `fetch()` body), a Node stream or any (async) iterable of chunks, or one
 * buffer holding a whole file.
 */
export type EncodedInput = string | URL | ReadableStream<Uint8Array> | AsyncIterable<PcmChunk> | Iterable<PcmChunk> | PcmChunk;

interface InputSpec {
  arg: string;
  protocols: string;
  stdin: boolean;
}

const isHttp = (text: string) => /^https?:\/\//i.test(text);

/** Whether a source is a location or a web stream, which `play()` always decodes with ffmpeg. */
export function isEncodedSource(source: unknown): source is string | URL | ReadableStream<Uint8Array> {
  return typeof source === "string" || source instanceof URL || isWebStream(source);
}

function isWebStream(source: unknown): source is ReadableStream<Uint8Array> {
  return typeof source === "object" && source !== null && typeof (source as ReadableStream).getReader === "function";
}

function inputSpec(input: EncodedInput): InputSpec {
  if (typeof input === "string") {
    if (isHttp(input)) return { arg: input, protocols: "http,https,tcp,tls,crypto,httpproxy", stdin: false };
    if (input === "") throw new HearthLimitError("source", "an empty path");
    return { arg: `file:${input}`, protocols: "file", stdin: false };
  }
  if (input instanceof URL) {
    if (input.protocol === "http:" || input.protocol === "https:") return inputSpec(input.href);
    if (input.protocol === "file:") return inputSpec(decodeURIComponent(input.pathname));
    throw new HearthLimitError("source", `${input.protocol} URLs are not played (http, https and file are)`);
  }
  return { arg: "pipe:0", protocols: "pipe", stdin: true };
}

/** The source as errors name it: the path, the URL without credentials, or "the stream". */
export function describeInput(input: EncodedInput): string {
  if (typeof input === "string" && !isHttp(input)) return input;
  if (typeof input === "string" || input instanceof URL) {
    try {
      const url = new URL(input);
      url.username = "";
      url.password = "";
      return url.protocol === "file:" ? decodeURIComponent(url.pathname) : url.href;
    } catch {
      return String(input);
    }
  }
  return "the stream";
}

/** The encoded bytes of a stream input, as chunks. */
async function* chunksOf(input: Exclude<EncodedInput, string | URL>): AsyncGenerator<PcmChunk> {
  if (isWebStream(input)) {
    const reader = input.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        yield value;
      }
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  }
  if (input instanceof ArrayBuffer || ArrayBuffer.isView(input)) {
    yield input;
    return;
  }
  yield* input as AsyncIterable<PcmChunk> | Iterable<PcmChunk>;
}

/** Writes the input into ffmpeg's stdin, waiting whenever the pipe is full. */
async function feed(stdin: NodeWritable, input: Exclude<EncodedInput, string | URL>, closed: Promise<unknown>): Promise<void> {
  let gone = false;
  void closed.then(() => (gone = true));
  stdin.on("error", () => undefined); // EPIPE once ffmpeg stopped reading: its exit says why
  for await (const chunk of chunksOf(input)) {
    if (gone || stdin.destroyed) break;
    if (!stdin.write(bytesOf(chunk))) await Promise.race([new Promise<void>((resolve) => stdin.once("drain", resolve)), closed]);
  }
  if (!stdin.destroyed) stdin.end();
}

const lastLine = (text: string) =>
  text
    .split(/[\r\n]+/)
    .map((line) => line.trim())
    .filter(Boolean)
    .at(-1) ?? "";

/** Spawns ffmpeg, resolving once it runs; a missing binary is `FfmpegNotFoundError`. */
async function start(binary: string, args: string[], stdin: boolean): Promise<ChildProcess> {
  const { spawn } = await loadNode();
  let child: ChildProcess;
  try {
    child = spawn(binary, args, { stdio: [stdin ? "pipe" : "ignore", "pipe", "pipe"], windowsHide: true });
  } catch (error) {
    throw notFound(error, binary);
  }
  try {
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", reject);
    });
  } catch (error) {
    throw notFound(error, binary);
  }
  child.on("error", () => undefined); // a later error (a signal to a process gone) shows in its exit
  return child;
}

function notFound(error: unknown, binary: string): unknown {
  const code = (error as { code?: string } | null)?.code;
  return code === "ENOENT" || code === "EACCES" || code === "ENOTDIR" ? new FfmpegNotFoundError(binary) : error;
}

/**
 * ffmpeg decoding one source into PCM chunks (of any size: `play()` cuts them into frames).
 * Iterated once; the process starts with the iteration and is gone when it ends.
 */
export class FfmpegDecoder implements AsyncIterable<Uint8Array> {
  /** The source as errors name it. */
  readonly source: string;
  /** The ffmpeg process's id, once it runs. */
  pid: number | undefined = undefined;
  /** PCM bytes taken from ffmpeg so far. */
  bytesDecoded = 0;
  private readonly spec: InputSpec;
  private child: ChildProcess | null = null;
  private killed = false;
  private iterated = false;

  constructor(
    private readonly input: EncodedInput,
    private readonly format: PcmFormat,
    private readonly options: FfmpegOptions = {},
  ) {
    this.spec = inputSpec(input);
    this.source = describeInput(input);
  }

  /** Whether the process is running (started and not exited). */
  get running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Ends decoding: the iteration ends (without an error) and the process is killed. */
  kill(): void {
    this.killed = true;
    if (this.running) this.child!.kill("SIGKILL");
  }

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    if (this.iterated) throw new HearthError("an FfmpegDecoder is read once");
    this.iterated = true;
    return this.run();
  }

  private args(): string[] {
    const { sampleRate, channels } = this.format;
    return [
      ...["-hide_banner", "-nostdin", "-nostats", "-loglevel", "error"],
      ...["-protocol_whitelist", this.spec.protocols],
      ...(this.options.inputArgs ?? []),
      ...["-i", this.spec.arg],
      ...["-vn", "-sn", "-dn", "-f", "s16le", "-acodec", "pcm_s16le", "-ac", String(channels), "-ar", String(sampleRate), "pipe:1"],
    ];
  }

  private async *run(): AsyncGenerator<Uint8Array> {
    if (this.killed) return;
    const binary = this.options.ffmpeg ?? "ffmpeg";
    const child = await start(binary, this.args(), this.spec.stdin);
    this.child = child;
    this.pid = child.pid;
    const closed = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.once("close", (code, signal) => resolve({ code, signal })));
    if (this.killed) child.kill("SIGKILL");
    let stderr = "";
    const text = new TextDecoder();
    child.stderr.on("data", (chunk: Uint8Array) => void (stderr = (stderr + text.decode(chunk, { stream: true })).slice(-4096)));
    let feedError: unknown = null;
    if (this.spec.stdin) {
      feed(child.stdin!, this.input as Exclude<EncodedInput, string | URL>, closed).catch((error: unknown) => {
        feedError = error;
        if (this.running) child.kill("SIGKILL");
      });
    }
    try {
      for await (const chunk of child.stdout) {
        this.bytesDecoded += chunk.byteLength;
        yield chunk;
      }
      const { code, signal } = await closed;
      if (this.killed) return;
      if (feedError) throw feedError;
      if (code !== 0) {
        // ffmpeg starts the line with the input as it was given to it (`file:song.mp3: ...`): the message names it already.
        const line = lastLine(stderr);
        const reason = (line.startsWith(`${this.spec.arg}: `) ? line.slice(this.spec.arg.length + 2) : line) || (signal ? `ffmpeg was killed (${signal})` : `ffmpeg exited with code ${code}`);
        throw new FfmpegError(this.source, reason, stderr, code);
      }
    } finally {
      if (this.running) child.kill("SIGKILL");
      await closed;
    }
  }
}

/** ffmpeg's version line (`ffmpeg version 5.1.6-0+deb12u1 ...`): whether it is there, before a first play. */
export async function ffmpegVersion(options: Pick<FfmpegOptions, "ffmpeg"> = {}): Promise<string> {
  const binary = options.ffmpeg ?? "ffmpeg";
  const child = await start(binary, ["-hide_banner", "-version"], false);
  const closed = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  child.stderr.on("data", () => undefined); // read, so the process can close
  let out = "";
  const text = new TextDecoder();
  for await (const chunk of child.stdout) out += text.decode(chunk, { stream: true });
  if ((await closed) !== 0) throw new FfmpegError(binary, "`ffmpeg -version` failed", out, null);
  return out.split("\n")[0]!.trim();
}
