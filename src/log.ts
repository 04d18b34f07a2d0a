import type { LogLevel } from "./config.ts";

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export type LogFields = Record<string, unknown>;
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
    if (ORDER[lvl] < min) return;
    const time = new Date().toISOString();
    const stream = lvl === "error" || lvl === "warn" ? process.stderr : process.stdout;
    if (pretty) {
      const extra = fields && Object.keys(fields).length ? " " + Object.entries(fields).map(([k, val]) => `${k}=${format(val)}`).join(" ") : "";
      stream.write(`${time} ${lvl.toUpperCase().padEnd(5)} ${message}${extra}\n`);
    } else {
      stream.write(JSON.stringify({ time, level: lvl, msg: message, ...fields }, errorReplacer) + "\n");
    }
  };
  return {
    debug: (m, f) => write("debug", m, f),
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
  };
}

function errorReplacer(_key: string, value: unknown) {
  return value instanceof Error ? { name: value.name, message: value.message, stack: value.stack } : value;
}

function format(value: unknown): string {
  if (value instanceof Error) return JSON.stringify(value.stack ?? value.message);
  return typeof value === "string" ? value : JSON.stringify(value);
}
