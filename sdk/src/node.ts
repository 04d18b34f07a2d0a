/**
 * Node's built-in modules the voice helper uses (child processes for ffmpeg, streams for
 * `toReadable()`), loaded on first use with a dynamic import so the SDK needs no @types/node and
 * its other entry points load where there is no Node (the web app uses `@hearth/sdk/client`).
 * `joinVoice()` loads them, so what needs them synchronously (`toReadable()`) has them by then.
 * The shapes below are the little of Node's API used here; they hold on Node 20+ and Bun.
 */
import { HearthError } from "./errors.js";

/** Node's `stream.Readable`, typed loosely so the SDK needs no @types/node (cast it to `Readable` in TypeScript). */
export interface NodeReadable extends AsyncIterable<unknown> {
  pipe<T>(destination: T, options?: { end?: boolean }): T;
  on(event: string, listener: (...args: never[]) => void): this;
  once(event: string, listener: (...args: never[]) => void): this;
  destroy(error?: Error): this;
  readonly readableObjectMode: boolean;
}

/** @internal The parts of a spawned child process this SDK uses. */
export interface ChildProcess {
  readonly pid?: number;
  readonly exitCode: number | null;
  readonly signalCode: string | null;
  readonly stdin: NodeWritable | null;
  readonly stdout: NodeReadable & AsyncIterable<Uint8Array>;
  readonly stderr: NodeReadable;
  kill(signal?: string): boolean;
  once(event: "spawn", listener: () => void): this;
  once(event: "error", listener: (error: Error & { code?: string }) => void): this;
  once(event: "close", listener: (code: number | null, signal: string | null) => void): this;
  on(event: "error", listener: (error: Error) => void): this;
}

/** @internal */
export interface NodeWritable {
  write(chunk: Uint8Array): boolean;
  end(): void;
  destroy(): void;
  readonly destroyed: boolean;
  once(event: "drain" | "close", listener: () => void): this;
  on(event: "error", listener: (error: Error) => void): this;
  removeListener(event: string, listener: (...args: never[]) => void): this;
}

/** @internal */
export interface NodeModules {
  spawn(command: string, args: readonly string[], options: { stdio: ("pipe" | "ignore")[]; windowsHide?: boolean }): ChildProcess;
  Readable: {
    from(iterable: AsyncIterable<unknown>, options?: { objectMode?: boolean }): NodeReadable;
  };
}

let loaded: NodeModules | null = null;
let loading: Promise<NodeModules> | null = null;

/** @internal Loads (once) the modules; rejects where there is no Node (a browser). */
export function loadNode(): Promise<NodeModules> {
  if (loaded) return Promise.resolve(loaded);
  loading ??= (async () => {
    // Specifiers as plain strings: bundlers leave them for the runtime, tsc needs no Node types.
    const [childProcess, stream] = (await Promise.all([import("node:child_process" as string), import("node:stream" as string)])) as [
      Pick<NodeModules, "spawn">,
      Pick<NodeModules, "Readable">,
    ];
    return (loaded = { spawn: childProcess.spawn, Readable: stream.Readable });
  })();
  return loading;
}

/** @internal The modules if `loadNode()` has run, else a clear error naming what needed them. */
export function nodeModules(what: string): NodeModules {
  if (!loaded) throw new HearthError(`${what} needs Node's built-in modules (Node 20+ or Bun); they load in joinVoice()`);
  return loaded;
}
