import { join } from "node:path";
import type { Subprocess } from "bun";

const ROOT = join(import.meta.dir, "..", "..");

export interface HearthProcess {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  /** Where it listens, from its listening line. */
  url: string;
  /** Everything it wrote to stdout so far (read on, so the pipe never fills). */
  output(): string;
  /** Everything it wrote to stderr so far: its warnings and errors (read on too). */
  errors(): string;
}

export interface StartOptions {
  /** What to run instead of `bun src/main.ts` (the single binary: test/binary/). */
  command?: string[];
  /** Its working directory: the repository unless given. */
  cwd?: string;
  /** How long to wait for the listening line: 10 s unless given (an emulated CPU needs more). */
  startTimeoutMs?: number;
}

/**
 * Runs `bun src/main.ts` as `npm start` does (or `command`), on port 0 unless `env` names
 * a PORT, and waits for its listening line.
 */
export async function startProcess(env: Record<string, string>, options: StartOptions = {}): Promise<HearthProcess> {
  const proc = Bun.spawn(options.command ?? [process.execPath, "src/main.ts"], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let output = "";
  let errors = "";
  const stderrRead = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stderr) errors += decoder.decode(chunk, { stream: true });
  })();
  const listening = Promise.withResolvers<string>();
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stdout) {
      output += decoder.decode(chunk, { stream: true });
      const url = /listening on (https?:\/\/[^\s"]+)/.exec(output)?.[1];
      if (url) listening.resolve(url);
    }
    await stderrRead;
    listening.reject(new Error(`exited before listening: ${output} ${errors}`));
  })();
  const startTimeoutMs = options.startTimeoutMs ?? 10_000;
  const timer = setTimeout(() => listening.reject(new Error(`no listening line within ${startTimeoutMs / 1000} s: ${output}`)), startTimeoutMs);
  try {
    const url = await listening.promise;
    return { proc, url, output: () => output, errors: () => errors };
  } catch (error) {
    proc.kill("SIGKILL");
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
