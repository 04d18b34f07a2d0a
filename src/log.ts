import type { LogLevel } from "./config.ts";

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

type LogFields = Record<string, unknown>;
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/**
 * One JSON object a line, or readable text on a TTY. Callers never pass secrets
 * (tokens, passwords, TOTP secrets): log what happened, not what was sent.
 */
export function createLogger(level: LogLevel, pretty = Boolean(process.stdout.isTTY)): Logger {
  const min = ORDER[level];
  const write = (lvl: Exclude<LogLevel, "silent">, message: string, fields?: LogFields) => {
    const time = new Date().toISOString();
    const stream = lvl === "error" || lvl === "warn" ? process.stderr : process.stdout;
    if (pretty) {
      const extra = fields && Object.keys(fields).length ? " " + Object.entries(fields).map(([k, val]) => `${k}=${format(val)}`).join(" ") : "";
      stream.write(`${time} ${lvl.toUpperCase().padEnd(5)} ${message}${extra}\n`);
    } else {
      stream.write(JSON.stringify({ time, level: lvl, msg: message, ...fields }, errorReplacer) + "\n");
    }
  };
  // A level below the minimum is a function that does nothing: every request calls `info` for
  // its log line, and this way a call with the level off does no work (the JIT may even drop the
  // fields object its caller builds).
  const at = (lvl: Exclude<LogLevel, "silent">): Logger["info"] => (ORDER[lvl] < min ? ignore : (m, f) => write(lvl, m, f));
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

function ignore(): void {}

function errorReplacer(_key: string, value: unknown) {
  return value instanceof Error ? { name: value.name, message: value.message, stack: value.stack } : value;
}

function format(value: unknown): string {
  if (value instanceof Error) return JSON.stringify(value.stack ?? value.message);
  return typeof value === "string" ? value : JSON.stringify(value);
}
