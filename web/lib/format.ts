/** Formatting for the reader: times in their locale, sizes, names. Pure (locale and zone can be given). */

import type { TimestampStyle } from "./rich-node.ts";

interface LocaleOptions {
  locale?: string | string[];
  timeZone?: string;
}

/**
 * One Intl.DateTimeFormat per locale, zone and style, made once: building one costs far more
 * than formatting with it, and every message on screen formats its time on each render (a burst
 * of live messages re-renders the log once per frame).
 */
const formatters = new Map<string, Intl.DateTimeFormat>();
export function dateFormat(locale: LocaleOptions["locale"], options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = JSON.stringify([locale ?? null, options]);
  let format = formatters.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(locale, options);
    formatters.set(key, format);
  }
  return format;
}

/** An embed's ISO 8601 `timestamp` in the reader's locale, or null when it does not parse. */
export function formatEmbedTimestamp(iso: string, options: LocaleOptions = {}): string | null {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return null;
  return dateFormat(options.locale, { dateStyle: "medium", timeStyle: "short", timeZone: options.timeZone }).format(date);
}

/**
 * A message's time (unix seconds): the time alone when it is today, "Yesterday at" the time,
 * otherwise the date and time.
 */
export function formatMessageTime(unixSeconds: number, now: Date = new Date(), options: LocaleOptions = {}): string {
  const date = new Date(unixSeconds * 1000);
  const time = dateFormat(options.locale, { timeStyle: "short", timeZone: options.timeZone }).format(date);
  const day = (d: Date) => dateFormat("en-CA", { dateStyle: "short", timeZone: options.timeZone }).format(d);
  if (day(date) === day(now)) return time;
  const yesterday = new Date(now.getTime() - 24 * 3600 * 1000);
  if (day(date) === day(yesterday)) return `Yesterday at ${time}`;
  return dateFormat(options.locale, { dateStyle: "short", timeStyle: "short", timeZone: options.timeZone }).format(date);
}

/** The full date and time, for a tooltip. */
export function formatFullTime(unixSeconds: number, options: LocaleOptions = {}): string {
  return dateFormat(options.locale, { dateStyle: "full", timeStyle: "short", timeZone: options.timeZone }).format(new Date(unixSeconds * 1000));
}

/** A countdown's time left: "0:09", "4:05", "1:02:03", "3 days 1:02:03" (never negative). */
export function formatTimeLeft(seconds: number): string {
  const total = Math.max(0, Math.ceil(seconds));
  const days = Math.floor(total / 86400);
  const hours = Math.floor((total % 86400) / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const two = (n: number) => String(n).padStart(2, "0");
  const clock = hours > 0 || days > 0 ? `${hours}:${two(minutes)}:${two(total % 60)}` : `${minutes}:${two(total % 60)}`;
  return days > 0 ? `${days} ${days === 1 ? "day" : "days"} ${clock}` : clock;
}

export function formatFileSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/** Up to two letters for a name without an image (a server icon, an avatar). */
export function initials(name: string): string {
  const words = name.trim().split(/[\s_.-]+/).filter(Boolean);
  if (words.length === 0) return "?";
  const letters = words.length === 1 ? [...words[0]!].slice(0, 2) : [[...words[0]!][0]!, [...words[1]!][0]!];
  return letters.join("").toUpperCase();
}

/** "alice is typing…", "alice and bob are typing…", "alice, bob and carol are typing…", "Several people are typing…". */
export function typingText(names: string[]): string {
  if (names.length === 0) return "";
  if (names.length === 1) return `${names[0]} is typing…`;
  if (names.length === 2) return `${names[0]} and ${names[1]} are typing…`;
  if (names.length === 3) return `${names[0]}, ${names[1]} and ${names[2]} are typing…`;
  return "Several people are typing…";
}

/** An invite code from what a person pastes: a code, or a link ending in /invite/<code>. */
export function inviteCodeFrom(input: string): string | null {
  const text = input.trim();
  if (!text) return null;
  const link = /\/invite\/([A-Za-z0-9-]+)\/?(?:[?#].*)?$/.exec(text);
  if (link) return link[1]!;
  return /^[A-Za-z0-9-]+$/.test(text) ? text : null;
}

/** A channel's name as people read it: `#general` for a text channel, `Lounge` for a voice one (as the sidebar shows it). */
export function channelLabel(channel: { name: string; type: string }): string {
  return channel.type === "voice" ? channel.name : `#${channel.name}`;
}

/** Discord's timestamp styles as Intl options (`R` is relative: formatRelativeTime). */
const TIMESTAMP_STYLES: Record<Exclude<TimestampStyle, "R">, Intl.DateTimeFormatOptions> = {
  t: { timeStyle: "short" },
  T: { timeStyle: "medium" },
  d: { dateStyle: "short" },
  D: { dateStyle: "long" },
  f: { dateStyle: "long", timeStyle: "short" },
  F: { dateStyle: "full", timeStyle: "short" },
};

/** A message's `<t:unix:style>` in the reader's locale and time zone, as Discord shows each style. */
export function formatTimestamp(unixSeconds: number, style: TimestampStyle, now: number = Date.now(), options: LocaleOptions = {}): string {
  if (style === "R") return formatRelativeTime(unixSeconds, now, options);
  return dateFormat(options.locale, { ...TIMESTAMP_STYLES[style], timeZone: options.timeZone }).format(new Date(unixSeconds * 1000));
}

const relativeFormats = new Map<string, Intl.RelativeTimeFormat>();
const RELATIVE_UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 86400],
  ["month", 30 * 86400],
  ["day", 86400],
  ["hour", 3600],
  ["minute", 60],
  ["second", 1],
];

/** "in 5 minutes", "3 days ago": the largest unit that fits, in the reader's locale; `now` in milliseconds. */
export function formatRelativeTime(unixSeconds: number, now: number = Date.now(), options: LocaleOptions = {}): string {
  const key = JSON.stringify(options.locale ?? null);
  let format = relativeFormats.get(key);
  if (!format) {
    format = new Intl.RelativeTimeFormat(options.locale, { numeric: "always" });
    relativeFormats.set(key, format);
  }
  const seconds = unixSeconds - now / 1000;
  const [unit, size] = RELATIVE_UNITS.find(([, size]) => Math.abs(seconds) >= size) ?? RELATIVE_UNITS.at(-1)!;
  return format.format(Math.round(seconds / size), unit);
}
