/** Runs fixture-bot.ts as a child process and reads what it prints (one JSON object a line). */
import { join } from "node:path";
import type { TestBot } from "../../helpers/bots.ts";

export interface BotProcess {
  bot: TestBot;
  /** Every interaction the bot received, in order. */
  interactions: Record<string, any>[];
  /** Resolves with the first line (past or future) that matches. */
  waitFor(match: (line: Record<string, any>) => boolean, timeoutMs?: number): Promise<Record<string, any>>;
  /** Every line printed so far. */
  lines: Record<string, any>[];
  /** Writes one JSON line to the process's stdin (a command, for scripts that read them). */
  send(command: Record<string, unknown>): void;
  stop(): void;
}

/** `script` (default fixture-bot.ts) runs with `env` added; it prints `{"event": "ready"}` (or `error`) first. */
export async function spawnBot(
  url: string,
  bot: TestBot,
  options: { commands: unknown[]; silent?: boolean; script?: string; env?: Record<string, string> },
): Promise<BotProcess> {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, options.script ?? "fixture-bot.ts")], {
    env: {
      ...process.env,
      HEARTH_URL: url,
      BOT_TOKEN: bot.token,
      BOT_NAME: bot.name,
      BOT_COMMANDS: JSON.stringify(options.commands),
      BOT_SILENT: options.silent ? "1" : "0",
      ...options.env,
    },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  const lines: Record<string, any>[] = [];
  const waiters = new Set<{ match: (line: Record<string, any>) => boolean; resolve: (line: Record<string, any>) => void }>();
  void (async () => {
    let buffer = "";
    const decoder = new TextDecoder();
    for await (const chunk of child.stdout) {
      buffer += decoder.decode(chunk, { stream: true });
      let newline: number;
      while ((newline = buffer.indexOf("\n")) !== -1) {
        const text = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (!text.trim()) continue;
        const line = JSON.parse(text) as Record<string, any>;
        lines.push(line);
        for (const waiter of waiters) {
          if (waiter.match(line)) {
            waiters.delete(waiter);
            waiter.resolve(line);
          }
        }
      }
    }
  })();
  const waitFor = (match: (line: Record<string, any>) => boolean, timeoutMs = 10_000) =>
    new Promise<Record<string, any>>((resolve, reject) => {
      const seen = lines.find(match);
      if (seen) return resolve(seen);
      const waiter = { match, resolve };
      waiters.add(waiter);
      setTimeout(() => {
        if (waiters.delete(waiter)) reject(new Error(`bot ${bot.name}: no matching line within ${timeoutMs} ms (saw ${JSON.stringify(lines)})`));
      }, timeoutMs);
    });
  const ready = await waitFor((line) => line.event === "ready" || line.event === "error");
  if (ready.event === "error") throw new Error(`bot ${bot.name} failed to start: ${ready.error}`);
  return {
    bot,
    get interactions() {
      return lines.filter((l) => l.event === "interaction").map((l) => l.interaction);
    },
    waitFor,
    lines,
    send: (command) => {
      child.stdin.write(`${JSON.stringify(command)}\n`);
      child.stdin.flush();
    },
    stop: () => child.kill(),
  };
}
